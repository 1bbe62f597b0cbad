package routes

import "github.com/subsight/subsight/shared/api"

// customerAPIs are the customer, contact, custom-attribute and tag operations.
var customerAPIs = map[string]API{
	"CreateCustomerFunction":             api.CreateCustomer,
	"ListCustomersFunction":              api.ListCustomers,
	"SearchCustomersFunction":            api.SearchCustomers,
	"GetCustomerFunction":                api.GetCustomer,
	"UpdateCustomerFunction":             api.UpdateCustomer,
	"PutCustomerFunction":                api.UpdateCustomer,
	"DeleteCustomerFunction":             api.DeleteCustomer,
	"GetCustomerAttributesFunction":      api.GetCustomerAttributes,
	"AddCustomerTagsFunction":            api.AddTags,
	"RemoveCustomerTagsFunction":         api.RemoveTags,
	"AddCustomerTagsByEmailFunction":     api.AddTagsByEmail,
	"AddCustomAttributesFunction":        api.AddCustomAttributes,
	"AddCustomAttributesByEmailFunction": api.AddCustomAttributesByEmail,
	"UpdateCustomAttributesFunction":     api.UpdateCustomAttributes,
	"RemoveCustomAttributesFunction":     api.RemoveCustomAttributes,
	"GetCustomAttributesFunction":        api.GetCustomAttributes,
	"CreateContactFunction":              api.CreateContact,
	"CreateCustomerContactFunction":      api.CreateCustomerContact,
	"ListContactsFunction":               api.ListContacts,
	"ListCustomerContactsFunction":       api.ListCustomerContacts,
	"GetContactFunction":                 api.GetContact,
	"UpdateContactFunction":              api.UpdateContact,
	"DeleteContactFunction":              api.DeleteContact,
	"MergeContactsFunction":              api.MergeContacts,
}
