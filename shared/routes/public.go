package routes

import "github.com/subsight/subsight/shared/dashboard"

// Public are the functions of routes without the authorizer (`Auth: Authorizer: NONE`
// on every event): they get no account and no AWS client, and answer anyone.
var Public = map[string]func() dashboard.Handler{
	"DashboardFunction": dashboard.New,
}
