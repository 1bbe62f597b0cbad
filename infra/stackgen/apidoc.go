package main

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/routes"
)

// apiDocPath is the HTTP contract whose per-endpoint tables are generated.
const apiDocPath = "docs/api.md"

// The markers around docs/api.md's generated tables, by table.
var apiTables = []struct{ name, begin, end string }{
	{"operations", "<!-- the operations: generated from shared/routes (go generate ./shared/routes), notes in infra/stackgen/apinotes.go -->\n",
		"<!-- end of the operations -->\n"},
	{"clients", "<!-- the clients' endpoints: generated from shared/routes (go generate ./shared/routes), notes in infra/stackgen/apinotes.go -->\n",
		"<!-- end of the clients' endpoints -->\n"},
}

// APIDoc is docs/api.md with its per-endpoint tables written from the registry: the
// routes, each handler's error family, the success status the OpenAPI document gives
// the route, and the hand-kept remarks of apiNotes.
func APIDoc(root string, fns []routes.Function) ([]byte, error) {
	doc, err := os.ReadFile(filepath.Join(root, apiDocPath))
	if err != nil {
		return nil, err
	}
	success, err := successStatuses(root)
	if err != nil {
		return nil, err
	}
	var ops []routes.Function
	for _, f := range fns {
		if f.API != nil {
			ops = append(ops, f)
		}
	}
	for name := range apiNotes {
		if !slices.ContainsFunc(ops, func(f routes.Function) bool { return f.Name == name }) {
			return nil, fmt.Errorf("infra/stackgen/apinotes.go: %s is no operation of the registry", name)
		}
	}
	tables := map[string]string{"operations": operationsTable(ops, success), "clients": clientsTable(ops)}
	for _, t := range apiTables {
		begin, end := bytes.Index(doc, []byte(t.begin)), bytes.Index(doc, []byte(t.end))
		if begin < 0 || end < begin {
			return nil, fmt.Errorf("%s: no %q ... %q markers", apiDocPath, strings.TrimSpace(t.begin), strings.TrimSpace(t.end))
		}
		doc = slices.Concat(doc[:begin+len(t.begin)], []byte(tables[t.name]), doc[end:])
	}
	return doc, nil
}

// successStatuses are the 2xx statuses docs/openapi.yaml documents, by route key.
func successStatuses(root string) (map[string][]string, error) {
	b, err := os.ReadFile(filepath.Join(root, "docs/openapi.yaml"))
	if err != nil {
		return nil, err
	}
	var doc struct {
		// Each path's operations by method, and its parameters.
		Paths map[string]map[string]yaml.Node `yaml:"paths"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("docs/openapi.yaml: %w", err)
	}
	out := map[string][]string{}
	for path, item := range doc.Paths {
		for method, node := range item {
			var op struct {
				Responses yaml.Node `yaml:"responses"`
			}
			if method == "parameters" {
				continue
			}
			if err := node.Decode(&op); err != nil {
				return nil, fmt.Errorf("docs/openapi.yaml: %s %s: %w", method, path, err)
			}
			for i := 0; i+1 < len(op.Responses.Content); i += 2 {
				if code := op.Responses.Content[i].Value; strings.HasPrefix(code, "2") {
					key := routes.Route{Method: strings.ToUpper(method), Path: path}.Key()
					out[key] = append(out[key], code)
				}
			}
		}
	}
	return out, nil
}

// usualSuccess is the status a client expects of a method; the table shows any other
// in bold.
var usualSuccess = map[string]string{http.MethodPost: "201", http.MethodDelete: "204"}

// successCell is the Success column of an operation: its documented 2xx status and the
// note's shape of the answer.
func successCell(f routes.Function, statuses []string) string {
	shape := apiNotes[f.Name].Shape
	if len(statuses) == 0 {
		return shape
	}
	usual := usualSuccess[f.Routes[0].Method]
	if usual == "" {
		usual = "200"
	}
	status := strings.Join(statuses, ", ")
	if status != usual {
		status = "**" + status + "**"
	}
	switch {
	case shape == "":
		return status
	case strings.HasPrefix(shape, ","):
		return status + shape
	}
	return status + " " + shape
}

// familyCell is the Fam. column: the handler's error family and the note's exceptions.
func familyCell(f routes.Function) string {
	letter := map[apperr.Family]string{apperr.FamilyA: "A", apperr.FamilyB: "B", apperr.FamilyC: "C", apperr.FamilyE: "E"}[f.API(nil).Family]
	if n := apiNotes[f.Name].Family; n != "" {
		return letter + " " + n
	}
	return letter
}

// operationsTable has a row per operation, in the registry's order; operations with
// the same success, family and behaviour share the row of the first (when the
// behaviour is empty, only a by-external-id twin joins its operation's row).
func operationsTable(ops []routes.Function, success map[string][]string) string {
	type row struct {
		names                      []string
		routes                     []routes.Route
		success, family, behaviour string
	}
	var rows []*row
	for _, f := range ops {
		r := &row{names: []string{f.Name}, routes: f.Routes, success: successCell(f, success[f.Routes[0].Key()]),
			family: familyCell(f), behaviour: apiNotes[f.Name].Behaviour}
		i := slices.IndexFunc(rows, func(o *row) bool {
			twin := slices.Contains(o.names, strings.TrimSuffix(f.Name, "ByExternalId"))
			return (r.behaviour != "" || twin) && o.success == r.success && o.family == r.family && o.behaviour == r.behaviour
		})
		if i < 0 {
			rows = append(rows, r)
			continue
		}
		rows[i].names = append(rows[i].names, f.Name)
		rows[i].routes = append(rows[i].routes, r.routes...)
	}
	var b strings.Builder
	b.WriteString("| Method and path | Success | Fam. | Behaviour the code relies on |\n|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", routesCell(r.routes), r.success, r.family, r.behaviour)
	}
	return b.String()
}

// routesCell names routes, the methods of one path together: "GET, PATCH /v1/notes/{note_uuid}".
func routesCell(rs []routes.Route) string {
	var paths []string
	methods := map[string][]string{}
	for _, r := range rs {
		if methods[r.Path] == nil {
			paths = append(paths, r.Path)
		}
		methods[r.Path] = append(methods[r.Path], r.Method)
	}
	cells := make([]string, len(paths))
	for i, p := range paths {
		cells[i] = strings.Join(methods[p], ", ") + " " + p
	}
	return strings.Join(cells, ", ")
}

// clientsTable has a row per operation an official client sends (a note's SentBy), in
// the registry's order, and the requests of the clients that no route serves.
func clientsTable(ops []routes.Function) string {
	var b strings.Builder
	b.WriteString("| Method and path | Sent by | Tested in |\n|---|---|---|\n")
	for _, f := range ops {
		if n := apiNotes[f.Name]; n.SentBy != "" {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", f.Routes[0].Key(), n.SentBy, n.TestedIn)
		}
	}
	for _, u := range unserved {
		fmt.Fprintf(&b, "| %s | %s | not served (below) |\n", u.route, u.sentBy)
	}
	return b.String()
}
