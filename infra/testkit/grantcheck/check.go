package grantcheck

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/subsight/subsight/infra/devstack/samtemplate"
	"github.com/subsight/subsight/shared/routes"
)

// Universe is every resource a grant can name, in classes: the table, each of its
// indexes, each queue, each bucket, and each top-level prefix of a bucket's objects
// ("ImportBucket/imports/"). A grant on a wildcard covers the classes it matches, and
// each of them must be used: "Table/index/*" is proven only if every index is
// queried, "ImportBucket/*" only if every prefix is read.
type Universe struct {
	classes map[string]bool
	buckets []string
}

// UniverseOf is the template's resources, with the object prefixes that the
// registry's grants name or that the calls touched.
func UniverseOf(tpl *samtemplate.Template, fns []routes.Function, calls map[string][]Call) Universe {
	u := Universe{classes: map[string]bool{}}
	for id, table := range tpl.Tables {
		u.classes[id] = true
		for _, ix := range table.GlobalIndexes {
			u.classes[id+"/index/"+ix.IndexName] = true
		}
	}
	for id := range tpl.Queues {
		u.classes[id] = true
	}
	for id := range tpl.Buckets {
		u.classes[id] = true
		u.buckets = append(u.buckets, id)
	}
	for _, f := range fns {
		for _, g := range f.Needs() {
			for _, r := range g.Resources {
				if c := u.classOf(r); !strings.Contains(c, "*") {
					u.classes[c] = true
				}
			}
		}
	}
	for _, cs := range calls {
		for _, c := range cs {
			u.classes[u.classOf(c.Resource)] = true
		}
	}
	return u
}

// classOf is a resource's class: an object's bucket and top-level prefix, or the
// resource itself.
func (u Universe) classOf(resource string) string {
	for _, b := range u.buckets {
		if key, ok := strings.CutPrefix(resource, b+"/"); ok {
			if top, _, found := strings.Cut(key, "/"); found {
				return b + "/" + top + "/"
			}
		}
	}
	return resource
}

// covers are the classes a grant's resource pattern matches.
func (u Universe) covers(pattern string) []string {
	var out []string
	for c := range u.classes {
		sample := c
		if strings.HasSuffix(c, "/") {
			sample += "object"
		}
		if Match(pattern, sample) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// Match reports whether an IAM pattern (actions and resources: * any run of
// characters, ? one) matches s.
func Match(pattern, s string) bool {
	// path.Match's * stops at "/", IAM's does not: compare with "/" swapped for a
	// character that neither contains.
	const sep = "\x00"
	ok, err := path.Match(strings.ReplaceAll(pattern, "/", sep), strings.ReplaceAll(s, "/", sep))
	return err == nil && ok
}

// Check compares the calls of each function (by LogicalId) with the registry and
// returns what is wrong, sorted:
//
//   - a call that its function's role does not grant;
//   - when complete (every function's case ran, none failed), a grant of a role, action
//     by action and class by class, that none of the role's functions called, unless
//     the grant carries its Reason; and a Reason on a grant the calls prove entirely
//     (it no longer needs one).
func Check(fns []routes.Function, calls map[string][]Call, u Universe, complete bool) []string {
	var problems []string
	byID := map[string]routes.Function{}
	for _, f := range fns {
		byID[f.LogicalID()] = f
	}
	for _, id := range slices.Sorted(maps.Keys(calls)) {
		f, ok := byID[id]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s is not in the registry but sent AWS requests", id))
			continue
		}
		for _, c := range calls[id] {
			if !slices.ContainsFunc(f.Needs(), func(g routes.Grant) bool { return grants(g, c) }) {
				problems = append(problems, fmt.Sprintf("%s calls %s, which its role %s does not grant", id, c, f.Needs().RoleName()))
			}
		}
	}
	if !complete {
		return problems
	}
	roles := map[string][]routes.Function{}
	for _, f := range fns {
		roles[f.Needs().RoleName()] = append(roles[f.Needs().RoleName()], f)
	}
	for _, role := range slices.Sorted(maps.Keys(roles)) {
		members := roles[role]
		var called []Call
		for _, f := range members {
			called = append(called, calls[f.LogicalID()]...)
		}
		for _, g := range members[0].Needs().Sorted() {
			unused := u.unused(g, called)
			switch {
			case g.Reason == "" && len(unused) > 0:
				problems = append(problems, fmt.Sprintf("%s grants %s, which none of %s called: remove it, or give the grant %s its Reason",
					role, strings.Join(unused, ", "), names(members), g.Name))
			case g.Reason != "" && len(unused) == 0:
				problems = append(problems, fmt.Sprintf("%s: the grant %s has a Reason, but the calls of %s use all of it: remove the Reason",
					role, g.Name, names(members)))
			}
		}
	}
	return problems
}

// grants reports whether g allows c.
func grants(g routes.Grant, c Call) bool {
	return slices.ContainsFunc(g.Actions, func(a string) bool { return Match(a, c.Action) }) &&
		slices.ContainsFunc(g.Resources, func(r string) bool { return Match(r, c.Resource) })
}

// unused lists the actions and resource classes of g that no call used.
func (u Universe) unused(g routes.Grant, called []Call) []string {
	var out []string
	for _, a := range g.Actions {
		for _, r := range g.Resources {
			for _, class := range u.covers(r) {
				used := slices.ContainsFunc(called, func(c Call) bool {
					return Match(a, c.Action) && Match(r, c.Resource) && u.classOf(c.Resource) == class
				})
				if !used {
					out = append(out, a+" on "+class)
				}
			}
		}
	}
	return out
}

func names(fns []routes.Function) string {
	out := make([]string, len(fns))
	for i, f := range fns {
		out[i] = f.Name
	}
	if len(out) > 3 {
		return fmt.Sprintf("its %d functions (%s, …)", len(out), strings.Join(out[:3], ", "))
	}
	return strings.Join(out, ", ")
}

// Count is the size of the registry's grants: execution roles, their statements, and
// their actions times resources.
func Count(fns []routes.Function) (roles, statements, pairs int) {
	seen := map[string]bool{}
	for _, f := range fns {
		name := f.Needs().RoleName()
		if seen[name] {
			continue
		}
		seen[name] = true
		roles++
		for _, g := range f.Needs() {
			statements++
			pairs += len(g.Actions) * len(g.Resources)
		}
	}
	return roles, statements, pairs
}
