package samtemplate

import (
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Intrinsic function names, in their long form.
const (
	FnRef    = "Ref"
	FnGetAtt = "Fn::GetAtt"
	FnSub    = "Fn::Sub"
)

// shortTags maps YAML short-form tags to intrinsic names. Every CloudFormation
// short form is listed so that a template using one parses; only Ref, GetAtt and Sub
// can be resolved locally.
var shortTags = map[string]string{
	"!Ref": FnRef, "!GetAtt": FnGetAtt, "!Sub": FnSub,
	"!If": "Fn::If", "!Join": "Fn::Join", "!Select": "Fn::Select", "!Split": "Fn::Split",
	"!FindInMap": "Fn::FindInMap", "!ImportValue": "Fn::ImportValue", "!GetAZs": "Fn::GetAZs",
	"!Base64": "Fn::Base64", "!Cidr": "Fn::Cidr", "!Equals": "Fn::Equals", "!Not": "Fn::Not",
	"!And": "Fn::And", "!Or": "Fn::Or", "!Condition": "Condition", "!Length": "Fn::Length",
	"!ToJsonString": "Fn::ToJsonString", "!Transform": "Fn::Transform",
}

// Value is a scalar property that may also be an intrinsic function. References stay
// symbolic: the local stack substitutes its own physical names (see Resolve).
type Value struct {
	// Fn is "" for a literal, else the intrinsic's long name ("Ref", "Fn::GetAtt", ...).
	Fn string
	// Lit is the literal text (Fn == "").
	Lit string
	// Target is the LogicalId or parameter of Ref and GetAtt.
	Target string
	// Attr is the GetAtt attribute ("Arn").
	Attr string
	// Sub is the Fn::Sub template string, and SubVars its variable map.
	Sub     string
	SubVars map[string]Value
	// Node is the raw node of intrinsics that cannot be resolved locally.
	Node *yaml.Node
	// Line is where the value is written, for error messages.
	Line int
}

// Lit returns a literal Value.
func Lit(s string) Value { return Value{Lit: s} }

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
	default:
		return v.Fn + "(...)"
	}
}

// UnmarshalYAML reads a scalar or an intrinsic in short (!Ref X) or long
// ({Ref: X}) form.
func (v *Value) UnmarshalYAML(n *yaml.Node) error {
	parsed, err := parseValue(n)
	if err != nil {
		return err
	}
	*v = parsed
	return nil
}

func parseValue(n *yaml.Node) (Value, error) {
	v := Value{Line: n.Line}
	if fn, ok := shortTags[n.Tag]; ok {
		return parseIntrinsic(fn, n, v)
	}
	if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
		return v, fmt.Errorf("line %d: unknown tag %s", n.Line, n.Tag)
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return v, fmt.Errorf("line %d: null value", n.Line)
		}
		v.Lit = n.Value
		return v, nil
	case yaml.MappingNode:
		if len(n.Content) == 2 {
			key := n.Content[0].Value
			if key == FnRef || key == "Condition" || strings.HasPrefix(key, "Fn::") {
				arg := *n.Content[1]
				return parseIntrinsic(key, &arg, v)
			}
		}
	}
	return v, fmt.Errorf("line %d: expected a scalar or an intrinsic function", n.Line)
}

func parseIntrinsic(fn string, n *yaml.Node, v Value) (Value, error) {
	v.Fn = fn
	switch fn {
	case FnRef:
		if n.Kind != yaml.ScalarNode || n.Value == "" {
			return v, fmt.Errorf("line %d: Ref needs a name", n.Line)
		}
		v.Target = n.Value
	case FnGetAtt:
		switch n.Kind {
		case yaml.ScalarNode:
			// The short form splits at the first dot: X.Endpoint.Address has attribute Endpoint.Address.
			t, a, ok := strings.Cut(n.Value, ".")
			if !ok || t == "" || a == "" {
				return v, fmt.Errorf("line %d: GetAtt %q is not Resource.Attribute", n.Line, n.Value)
			}
			v.Target, v.Attr = t, a
		case yaml.SequenceNode:
			if len(n.Content) != 2 || n.Content[0].Kind != yaml.ScalarNode || n.Content[1].Kind != yaml.ScalarNode {
				return v, fmt.Errorf("line %d: GetAtt needs [Resource, Attribute]", n.Line)
			}
			v.Target, v.Attr = n.Content[0].Value, n.Content[1].Value
		default:
			return v, fmt.Errorf("line %d: GetAtt needs Resource.Attribute", n.Line)
		}
	case FnSub:
		switch n.Kind {
		case yaml.ScalarNode:
			v.Sub = n.Value
		case yaml.SequenceNode:
			if len(n.Content) != 2 || n.Content[0].Kind != yaml.ScalarNode || n.Content[1].Kind != yaml.MappingNode {
				return v, fmt.Errorf("line %d: Sub needs a string or [string, {variables}]", n.Line)
			}
			v.Sub = n.Content[0].Value
			v.SubVars = map[string]Value{}
			m := n.Content[1]
			for i := 0; i < len(m.Content); i += 2 {
				sv, err := parseValue(m.Content[i+1])
				if err != nil {
					return v, err
				}
				v.SubVars[m.Content[i].Value] = sv
			}
		default:
			return v, fmt.Errorf("line %d: Sub needs a string", n.Line)
		}
		if _, err := subRefs(v.Sub); err != nil {
			return v, fmt.Errorf("line %d: %w", n.Line, err)
		}
	default:
		v.Node = n
	}
	return v, nil
}

var subVar = regexp.MustCompile(`\$\{([^}]*)\}`)

// subRefs lists the ${...} names of a Sub string, without ${!Literal} escapes.
func subRefs(s string) ([]string, error) {
	var out []string
	for _, m := range subVar.FindAllStringSubmatch(s, -1) {
		name := strings.TrimSpace(m[1])
		if strings.HasPrefix(name, "!") {
			continue
		}
		if name == "" {
			return nil, fmt.Errorf("empty ${} in Sub %q", s)
		}
		out = append(out, name)
	}
	return out, nil
}

// Refs lists the names the value refers to: "X" for Ref X, "X.Attr" for GetAtt, and
// the ${...} names of a Sub (its own variables excluded).
func (v Value) Refs() []string {
	switch v.Fn {
	case FnRef:
		return []string{v.Target}
	case FnGetAtt:
		return []string{v.Target + "." + v.Attr}
	case FnSub:
		names, _ := subRefs(v.Sub)
		var out []string
		for _, n := range names {
			if _, local := v.SubVars[n]; !local {
				out = append(out, n)
			}
		}
		for _, sv := range v.SubVars {
			out = append(out, sv.Refs()...)
		}
		return out
	}
	return nil
}

// Resolver says what template names stand for in a given environment (the local
// stack's physical names, or test values).
type Resolver struct {
	// Refs maps a resource LogicalId to what Ref returns (table name, queue URL, ...).
	Refs map[string]string
	// Attrs maps "LogicalId.Attribute" to what GetAtt returns.
	Attrs map[string]string
	// Params overrides parameter defaults.
	Params map[string]string
	// Pseudo holds pseudo parameters ("AWS::Region", "AWS::StackName", ...).
	Pseudo map[string]string
	// Dynamic resolves a dynamic reference {{resolve:service:ref}}, e.g. a
	// secretsmanager secret. Nil leaves the reference in place.
	Dynamic func(service, ref string) (string, error)
}

var dynamicRef = regexp.MustCompile(`\{\{resolve:([a-z0-9-]+):([^}]*)\}\}`)

// Resolve turns a value into a string in the resolver's environment.
func (t *Template) Resolve(v Value, r *Resolver) (string, error) {
	s, err := t.resolve(v, r)
	if err != nil {
		return "", err
	}
	if r.Dynamic == nil || !strings.Contains(s, "{{resolve:") {
		return s, nil
	}
	var derr error
	out := dynamicRef.ReplaceAllStringFunc(s, func(m string) string {
		sm := dynamicRef.FindStringSubmatch(m)
		val, err := r.Dynamic(sm[1], sm[2])
		if err != nil && derr == nil {
			derr = err
		}
		return val
	})
	return out, derr
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
		var firstErr error
		out := subVar.ReplaceAllStringFunc(v.Sub, func(m string) string {
			name := strings.TrimSpace(m[2 : len(m)-1])
			if strings.HasPrefix(name, "!") {
				return "${" + name[1:] + "}"
			}
			var s string
			var err error
			if sv, ok := v.SubVars[name]; ok {
				s, err = t.resolve(sv, r)
			} else {
				s, err = t.resolveName(name, r)
			}
			if err != nil && firstErr == nil {
				firstErr = err
			}
			return s
		})
		return out, firstErr
	}
	return "", fmt.Errorf("line %d: %s cannot be resolved locally", v.Line, v.Fn)
}

// resolveName resolves "X" (Ref) or "X.Attr" (GetAtt) as used in Ref, GetAtt and Sub.
func (t *Template) resolveName(name string, r *Resolver) (string, error) {
	if res, attr, ok := strings.Cut(name, "."); ok && !strings.HasPrefix(name, "AWS::") {
		if s, ok := r.Attrs[name]; ok {
			return s, nil
		}
		return "", fmt.Errorf("no local value for GetAtt %s.%s", res, attr)
	}
	if s, ok := r.Refs[name]; ok {
		return s, nil
	}
	if s, ok := r.Params[name]; ok {
		return s, nil
	}
	if p, ok := t.Parameters[name]; ok && p.Default != nil {
		return *p.Default, nil
	}
	if s, ok := r.Pseudo[name]; ok {
		return s, nil
	}
	return "", fmt.Errorf("no local value for Ref %s", name)
}
