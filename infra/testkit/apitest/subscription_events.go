package apitest

const EventsRoute = "/v1/subscription_events"
