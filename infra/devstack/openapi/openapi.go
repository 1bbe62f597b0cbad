// Package openapi loads the API's OpenAPI 3.1 description (docs/openapi.yaml) and checks
// real responses against it. The client compatibility suites send all their traffic
// through Proxy, so that a response whose shape the document does not allow fails the
// suite that received it; the tests of this package check that the document covers
// exactly the routes of the registry (shared/routes) and declares what the registry
// declares of each: operationId, path parameters, tag, security and 401.
package openapi

import (
	"fmt"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	liberrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/paths"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
)

// DocumentPath is the document's place in the repository.
const DocumentPath = "docs/openapi.yaml"

// Spec is a loaded document with its validator.
type Spec struct {
	model     *v3.Document
	validator validator.Validator
	options   *config.ValidationOptions
}

// Load parses and builds the document at path.
func Load(path string) (*Spec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(b)
}

// Parse builds a document from its bytes.
func Parse(b []byte) (*Spec, error) {
	doc, err := libopenapi.NewDocument(b)
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	model, err := doc.BuildV3Model()
	if err != nil {
		return nil, fmt.Errorf("openapi: building the model: %w", err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		return nil, fmt.Errorf("openapi: building the validator: %v", errs)
	}
	return &Spec{model: &model.Model, validator: v, options: config.NewValidationOptions()}, nil
}

// CheckDocument validates the document itself against the OpenAPI 3.1 schema.
func (s *Spec) CheckDocument() []string {
	return describeAll(s.validator.ValidateDocument())
}

// Version is the document's openapi field.
func (s *Spec) Version() string { return s.model.Version }

// Routes lists every documented operation as "METHOD /path" (the template's route keys).
func (s *Spec) Routes() []string {
	var out []string
	for p := orderedmap.First(s.model.Paths.PathItems); p != nil; p = p.Next() {
		for m := orderedmap.First(p.Value().GetOperations()); m != nil; m = m.Next() {
			out = append(out, strings.ToUpper(m.Key())+" "+p.Key())
		}
	}
	sort.Strings(out)
	return out
}

// Operations maps each documented route ("METHOD /path") to its operation.
func (s *Spec) Operations() map[string]*v3.Operation {
	out := map[string]*v3.Operation{}
	for p := orderedmap.First(s.model.Paths.PathItems); p != nil; p = p.Next() {
		for m := orderedmap.First(p.Value().GetOperations()); m != nil; m = m.Next() {
			out[strings.ToUpper(m.Key())+" "+p.Key()] = m.Value()
		}
	}
	return out
}

// Declaration is what the document declares of one operation beyond its shapes: what
// the registry (shared/routes) declares too, compared field by field by this package's
// tests.
type Declaration struct {
	OperationID string
	Tags        []string
	// PathParameters are the names of the parameters "in: path", the path item's and
	// the operation's.
	PathParameters []string
	// Security names the schemes the operation requires: its own security, else the
	// document's; none when it is open to all (security: []).
	Security []string
	// Documents401 says whether the operation lists a 401 response.
	Documents401 bool
}

// Declarations maps each documented route ("METHOD /path") to its declaration.
func (s *Spec) Declarations() map[string]Declaration {
	out := map[string]Declaration{}
	for p := orderedmap.First(s.model.Paths.PathItems); p != nil; p = p.Next() {
		for m := orderedmap.First(p.Value().GetOperations()); m != nil; m = m.Next() {
			op := m.Value()
			d := Declaration{OperationID: op.OperationId, Tags: op.Tags}
			for _, param := range append(slices.Clone(p.Value().Parameters), op.Parameters...) {
				if param.In == "path" {
					d.PathParameters = append(d.PathParameters, param.Name)
				}
			}
			security := op.Security
			if security == nil {
				security = s.model.Security
			}
			for _, req := range security {
				for r := orderedmap.First(req.Requirements); r != nil; r = r.Next() {
					d.Security = append(d.Security, r.Key())
				}
			}
			d.Documents401 = op.Responses != nil && op.Responses.Codes.GetOrZero("401") != nil
			out[strings.ToUpper(m.Key())+" "+p.Key()] = d
		}
	}
	return out
}

// Route is the documented route a request matches ("METHOD /path template"), or ""
// when the document has no operation for it.
func (s *Spec) Route(req *http.Request) string {
	item, errs, path := paths.FindPath(req, s.model, s.options)
	if item == nil || len(errs) > 0 {
		return ""
	}
	return req.Method + " " + path
}

// CheckResponse validates a response (its body already buffered in resp.Body) against
// the operation of req. It returns the violations, none when the response conforms.
func (s *Spec) CheckResponse(req *http.Request, resp *http.Response) []string {
	return describeAll(s.validator.ValidateHttpResponse(req, resp))
}

// describeAll renders a validator's verdict: nil when it passed.
func describeAll(ok bool, errs []*liberrors.ValidationError) []string {
	if ok {
		return nil
	}
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, describe(e))
	}
	return out
}

// describe renders a violation on one line: what failed and, for a schema failure,
// each failing field with its reason.
func describe(e *liberrors.ValidationError) string {
	var b strings.Builder
	b.WriteString(e.Message)
	if e.Reason != "" && len(e.SchemaValidationErrors) == 0 {
		b.WriteString(": " + e.Reason)
	}
	for _, f := range e.SchemaValidationErrors {
		field := f.FieldPath
		if field == "" {
			field = "/" + strings.Join(f.InstancePath, "/")
		}
		fmt.Fprintf(&b, "; %s: %s", field, f.Reason)
	}
	return b.String()
}
