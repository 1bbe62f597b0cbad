package routes

// customerAPIs are the customer, contact, custom-attribute and tag operations.
var customerAPIs = map[string]API{}
