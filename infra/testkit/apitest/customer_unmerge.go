package apitest

const UnmergesRoute = "/v1/customers/unmerges"
