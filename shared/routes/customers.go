package routes

import (
	"github.com/subsight/subsight/shared/api/customers"
)

// customerAPIs are the customer, contact, custom-attribute and tag operations.
var customerAPIs = map[string]API{
	"CreateCustomerFunction":             customers.CreateCustomer,
	"ListCustomersFunction":              customers.ListCustomers,
	"SearchCustomersFunction":            customers.SearchCustomers,
	"GetCustomerFunction":                customers.GetCustomer,
	"UpdateCustomerFunction":             customers.UpdateCustomer,
	"PutCustomerFunction":                customers.UpdateCustomer,
	"DeleteCustomerFunction":             customers.DeleteCustomer,
	"GetCustomerAttributesFunction":      customers.GetCustomerAttributes,
	"AddCustomerTagsFunction":            customers.AddTags,
	"RemoveCustomerTagsFunction":         customers.RemoveTags,
	"AddCustomerTagsByEmailFunction":     customers.AddTagsByEmail,
	"AddCustomAttributesFunction":        customers.AddCustomAttributes,
	"AddCustomAttributesByEmailFunction": customers.AddCustomAttributesByEmail,
	"UpdateCustomAttributesFunction":     customers.UpdateCustomAttributes,
	"RemoveCustomAttributesFunction":     customers.RemoveCustomAttributes,
	"GetCustomAttributesFunction":        customers.GetCustomAttributes,
	"CreateContactFunction":              customers.CreateContact,
	"CreateCustomerContactFunction":      customers.CreateCustomerContact,
	"ListContactsFunction":               customers.ListContacts,
	"ListCustomerContactsFunction":       customers.ListCustomerContacts,
	"GetContactFunction":                 customers.GetContact,
	"UpdateContactFunction":              customers.UpdateContact,
	"DeleteContactFunction":              customers.DeleteContact,
	"MergeContactsFunction":              customers.MergeContacts,
}
