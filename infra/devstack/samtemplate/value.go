package samtemplate

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Intrinsic functions the local stack resolves, by their long names.
const (
	FnRef    = "Ref"
	FnGetAtt = "Fn::GetAtt"
	FnSub    = "Fn::Sub"
)

// Value is a property that is a literal or an intrinsic function, in short (!Ref X) or
// long ({Ref: X}) form. Ref, GetAtt and Sub stay symbolic until Resolve; any other
// intrinsic is read but cannot be resolved locally.
type Value struct {
	// Fn is "" for a literal, else the intrinsic's name ("Ref", "Fn::GetAtt", ...).
	Fn string
	// Lit is the literal text (Fn == "").
	Lit string
	// Target is the LogicalId or parameter of Ref and GetAtt; Attr is GetAtt's attribute.
	Target, Attr string
	// Sub is the Fn::Sub string, and SubVars its variables.
	Sub     string
	SubVars map[string]Value
	// Line is where the value is written, for messages.
	Line int
}

// IsZero reports an absent value.
func (v Value) IsZero() bool { return v.Fn == "" && v.Lit == "" && v.Line == 0 }

// String renders the value in short form, for messages and tests.
func (v Value) String() string {
	switch v.Fn {
	case "":
		return v.Lit
	case FnRef:
		return "!Ref " + v.Target
	case FnGetAtt:
		return "!GetAtt " + v.Target + "." + v.Attr
	case FnSub:
		return "!Sub " + v.Sub
	}
	return v.Fn + "(...)"
}

// UnmarshalYAML reads a scalar or an intrinsic function.
func (v *Value) UnmarshalYAML(n *yaml.Node) error {
	*v = Value{Line: n.Line}
	fn, arg := "", n
	switch {
	case strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!"):
		fn = "Fn::" + n.Tag[1:]
		if n.Tag == "!Ref" {
			fn = FnRef
		}
	case n.Kind == yaml.MappingNode && len(n.Content) == 2 &&
		(n.Content[0].Value == FnRef || strings.HasPrefix(n.Content[0].Value, "Fn::")):
		fn, arg = n.Content[0].Value, n.Content[1]
	case n.Kind == yaml.ScalarNode:
		v.Lit = n.Value
		return nil
	default:
		return fmt.Errorf("line %d: expected a scalar or an intrinsic function", n.Line)
	}
	v.Fn = fn
	switch fn {
	case FnRef:
		v.Target = arg.Value
	case FnGetAtt:
		if arg.Kind == yaml.SequenceNode && len(arg.Content) == 2 {
			v.Target, v.Attr = arg.Content[0].Value, arg.Content[1].Value
		} else {
			// The short form splits at the first dot: X.Endpoint.Address is X's Endpoint.Address.
			v.Target, v.Attr, _ = strings.Cut(arg.Value, ".")
		}
	case FnSub:
		if arg.Kind == yaml.SequenceNode && len(arg.Content) == 2 {
			v.Sub = arg.Content[0].Value
			return arg.Content[1].Decode(&v.SubVars)
		}
		v.Sub = arg.Value
	}
	return nil
}

// Resolver says what template names stand for in one environment (the local stack's
// physical names, or test values). Parameters resolve to their defaults.
type Resolver struct {
	// Refs maps a resource LogicalId to what Ref returns (table name, queue URL, ...).
	Refs map[string]string
	// Attrs maps "LogicalId.Attribute" to what GetAtt returns.
	Attrs map[string]string
	// Pseudo holds pseudo parameters ("AWS::Region", "AWS::StackName", ...).
	Pseudo map[string]string
	// Dynamic resolves a dynamic reference {{resolve:service:ref}}, e.g. a
	// secretsmanager secret. Nil leaves the reference in place.
	Dynamic func(service, ref string) (string, error)
}

var (
	subVar     = regexp.MustCompile(`\$\{([^}]*)\}`)
	dynamicRef = regexp.MustCompile(`\{\{resolve:([a-z0-9-]+):([^}]*)\}\}`)
)

// Resolve turns a value into a string in the resolver's environment.
func (t *Template) Resolve(v Value, r *Resolver) (string, error) {
	s, err := t.resolve(v, r)
	if err != nil || r.Dynamic == nil {
		return s, err
	}
	out := dynamicRef.ReplaceAllStringFunc(s, func(m string) string {
		sm := dynamicRef.FindStringSubmatch(m)
		val, derr := r.Dynamic(sm[1], sm[2])
		err = cmp.Or(err, derr)
		return val
	})
	return out, err
}

func (t *Template) resolve(v Value, r *Resolver) (string, error) {
	switch v.Fn {
	case "":
		return v.Lit, nil
	case FnRef:
		return t.resolveName(v.Target, r)
	case FnGetAtt:
		return t.resolveName(v.Target+"."+v.Attr, r)
	case FnSub:
		var err error
		out := subVar.ReplaceAllStringFunc(v.Sub, func(m string) string {
			name := strings.TrimSpace(m[2 : len(m)-1])
			if literal, ok := strings.CutPrefix(name, "!"); ok {
				return "${" + literal + "}"
			}
			var s string
			var serr error
			if sv, ok := v.SubVars[name]; ok {
				s, serr = t.resolve(sv, r)
			} else {
				s, serr = t.resolveName(name, r)
			}
			err = cmp.Or(err, serr)
			return s
		})
		return out, err
	}
	return "", fmt.Errorf("line %d: %s cannot be resolved locally", v.Line, v.Fn)
}

// resolveName resolves "X" (Ref) or "X.Attr" (GetAtt) as written in Ref, GetAtt and Sub.
func (t *Template) resolveName(name string, r *Resolver) (string, error) {
	if _, _, ok := strings.Cut(name, "."); ok && !strings.HasPrefix(name, "AWS::") {
		if s, ok := r.Attrs[name]; ok {
			return s, nil
		}
		return "", fmt.Errorf("no local value for GetAtt %s", name)
	}
	for _, m := range []map[string]string{r.Refs, t.defaults, r.Pseudo} {
		if s, ok := m[name]; ok {
			return s, nil
		}
	}
	return "", fmt.Errorf("no local value for Ref %s", name)
}
