package routes

// resourceAPIs are the plan and customer-note operations.
var resourceAPIs = map[string]API{}
