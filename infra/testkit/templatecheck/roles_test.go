package templatecheck

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/subsight/subsight/infra/devstack/samtemplate"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/routes"
)

// roleDoc is what the roles test reads of template.yaml: every resource's role, trust,
// managed policies and statements, and the HTTP API's integrations.
type roleDoc struct {
	Resources map[string]struct {
		Type       string `yaml:"Type"`
		Properties struct {
			Role                     samtemplate.Value `yaml:"Role"`
			AssumeRolePolicyDocument struct {
				Statement []struct {
					Principal struct {
						Service string `yaml:"Service"`
					} `yaml:"Principal"`
				} `yaml:"Statement"`
			} `yaml:"AssumeRolePolicyDocument"`
			ManagedPolicyArns []samtemplate.Value `yaml:"ManagedPolicyArns"`
			Policies          []struct {
				PolicyDocument struct {
					Statement []struct {
						Effect   string              `yaml:"Effect"`
						Action   yaml.Node           `yaml:"Action"`
						Resource []samtemplate.Value `yaml:"Resource"`
					} `yaml:"Statement"`
				} `yaml:"PolicyDocument"`
			} `yaml:"Policies"`
			DefinitionBody struct {
				Paths map[string]map[string]struct {
					Integration struct {
						URI         samtemplate.Value `yaml:"uri"`
						Credentials samtemplate.Value `yaml:"credentials"`
					} `yaml:"x-amazon-apigateway-integration"`
				} `yaml:"paths"`
			} `yaml:"DefinitionBody"`
		} `yaml:"Properties"`
	} `yaml:"Resources"`
}

func readRoleDoc(t *testing.T) roleDoc {
	t.Helper()
	root, _ := testenv.RepoTemplate(t)
	b, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc roleDoc
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

var subArn = regexp.MustCompile(`^\$\{(\w+)\.Arn\}(/.*)$`)

// resourceName reads a statement's resource back into the registry's words: !GetAtt
// X.Arn is "X", !Sub "${X.Arn}/rest" is "X/rest".
func resourceName(v samtemplate.Value) string {
	switch {
	case v.Fn == samtemplate.FnGetAtt && v.Attr == "Arn":
		return v.Target
	case v.Fn == samtemplate.FnSub && subArn.MatchString(v.Sub):
		m := subArn.FindStringSubmatch(v.Sub)
		return m[1] + m[2]
	}
	return "?" + v.String()
}

func actions(n yaml.Node) []string {
	var list []string
	if n.Kind == yaml.ScalarNode {
		return []string{n.Value}
	}
	_ = n.Decode(&list)
	return list
}

// grantsOf renders grants as "actions on resources" lines, for comparison.
func grantsOf(a routes.Access) []string {
	var out []string
	for _, g := range a.Sorted() {
		out = append(out, fmt.Sprintf("%v on %v", g.Actions, g.Resources))
	}
	return out
}

// executionPolicies are the managed policies of every execution role: the basic
// execution policy (logs) and the X-Ray writes of the functions' active tracing.
var executionPolicies = []string{"service-role/AWSLambdaBasicExecutionRole", "AWSXrayWriteOnlyAccess"}

// TestEveryRoleGrantsExactlyItsFunctionsNeeds: each function's execution role trusts
// Lambda only, adds only the executionPolicies (logs, traces), and grants exactly what the
// registry says the function needs, statement by statement; functions share a role
// exactly when they need the same.
func TestEveryRoleGrantsExactlyItsFunctionsNeeds(t *testing.T) {
	doc := readRoleDoc(t)
	roleOf := map[string]string{} // needs -> role
	for _, f := range routes.Functions {
		t.Run(f.Name, func(t *testing.T) {
			fn, ok := doc.Resources[f.LogicalID()]
			if !ok {
				t.Fatalf("%s is not in template.yaml", f.LogicalID())
			}
			ref := fn.Properties.Role
			if ref.Fn != samtemplate.FnGetAtt || ref.Attr != "Arn" {
				t.Fatalf("Role %s, want !GetAtt <Role>.Arn", ref)
			}
			role, ok := doc.Resources[ref.Target]
			if !ok || role.Type != "AWS::IAM::Role" {
				t.Fatalf("role %s is not an AWS::IAM::Role of the template", ref.Target)
			}
			needs := strings.Join(grantsOf(f.Needs()), "; ")
			if prev, seen := roleOf[needs]; seen && prev != ref.Target {
				t.Errorf("needs %s: roles %s and %s", needs, prev, ref.Target)
			}
			roleOf[needs] = ref.Target
			p := role.Properties
			if len(p.AssumeRolePolicyDocument.Statement) != 1 || p.AssumeRolePolicyDocument.Statement[0].Principal.Service != "lambda.amazonaws.com" {
				t.Errorf("role %s: trust %+v, want lambda.amazonaws.com only", ref.Target, p.AssumeRolePolicyDocument)
			}
			if len(p.ManagedPolicyArns) != len(executionPolicies) {
				t.Errorf("role %s: managed policies %v, want %v only", ref.Target, p.ManagedPolicyArns, executionPolicies)
			}
			for i, want := range executionPolicies {
				if i < len(p.ManagedPolicyArns) && !strings.HasSuffix(p.ManagedPolicyArns[i].Sub, ":iam::aws:policy/"+want) {
					t.Errorf("role %s: managed policy %d is %v, want %s", ref.Target, i, p.ManagedPolicyArns[i], want)
				}
			}
			var granted []string
			for _, pol := range p.Policies {
				for _, st := range pol.PolicyDocument.Statement {
					if st.Effect != "Allow" {
						t.Errorf("role %s: a statement with Effect %s", ref.Target, st.Effect)
					}
					res := make([]string, len(st.Resource))
					for i, r := range st.Resource {
						res[i] = resourceName(r)
					}
					granted = append(granted, fmt.Sprintf("%v on %v", actions(st.Action), res))
				}
			}
			if got := strings.Join(granted, "; "); got != needs {
				t.Errorf("role %s grants\n  %s\nthe registry says %s needs\n  %s", ref.Target, got, f.Name, needs)
			}
			if _, public := routes.Public[f.LogicalID()]; public && len(f.Needs()) > 0 {
				t.Errorf("a public function reads nothing and needs no grant: %v", f.Needs())
			}
		})
	}
	roles := map[string]bool{}
	for _, r := range roleOf {
		if roles[r] {
			t.Errorf("role %s serves two different needs", r)
		}
		roles[r] = true
	}
	t.Logf("%d functions, %d execution roles", len(routes.Functions), len(roles))
}

var invokedFn = regexp.MustCompile(`\$\{(\w+)\.Arn\}/invocations$`)

// TestAPIGatewayInvokesExactlyTheRoutedFunctions: every route's integration invokes its
// function with a role that trusts API Gateway only and may invoke that function; the
// invoke roles together allow exactly the functions behind routes and the authorizer.
func TestAPIGatewayInvokesExactlyTheRoutedFunctions(t *testing.T) {
	doc := readRoleDoc(t)
	allowed := map[string]map[string]bool{} // invoke role -> functions
	for id, r := range doc.Resources {
		if r.Type != "AWS::IAM::Role" || len(r.Properties.AssumeRolePolicyDocument.Statement) == 0 ||
			r.Properties.AssumeRolePolicyDocument.Statement[0].Principal.Service != "apigateway.amazonaws.com" {
			continue
		}
		if len(r.Properties.AssumeRolePolicyDocument.Statement) != 1 || len(r.Properties.ManagedPolicyArns) > 0 {
			t.Errorf("invoke role %s: trust or managed policies beyond API Gateway's invoke", id)
		}
		allowed[id] = map[string]bool{}
		for _, pol := range r.Properties.Policies {
			for _, st := range pol.PolicyDocument.Statement {
				if a := actions(st.Action); !slices.Equal(a, []string{"lambda:InvokeFunction"}) {
					t.Errorf("invoke role %s allows %v", id, a)
				}
				for _, res := range st.Resource {
					allowed[id][resourceName(res)] = true
				}
			}
		}
	}
	used := map[string]bool{}
	api := doc.Resources["HttpApi"].Properties.DefinitionBody
	for path, ops := range api.Paths {
		for method, op := range ops {
			m := invokedFn.FindStringSubmatch(op.Integration.URI.Sub)
			role := op.Integration.Credentials.Target
			if m == nil || !allowed[role][m[1]] {
				t.Errorf("%s %s: integration %s with credentials %s, which may not invoke it", method, path, op.Integration.URI, op.Integration.Credentials)
				continue
			}
			used[m[1]] = true
		}
	}
	want := map[string]bool{}
	for _, f := range routes.Functions {
		if len(f.Routes) > 0 {
			want[f.LogicalID()] = true
		}
	}
	for id := range routes.Authorizers {
		used[id], want[id] = true, true
	}
	var invocable []string
	for _, fns := range allowed {
		invocable = slices.AppendSeq(invocable, maps.Keys(fns))
	}
	slices.Sort(invocable)
	for _, id := range invocable {
		if !want[id] {
			t.Errorf("API Gateway may invoke %s, which has no route and is no authorizer", id)
		}
	}
	for id := range want {
		if !slices.Contains(invocable, id) || !used[id] {
			t.Errorf("%s: invocable %v, invoked by a route %v", id, slices.Contains(invocable, id), used[id])
		}
	}
}
