package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/subsight/subsight/infra/repo"
)

// samCreate is the body SAM CLI 1.170 posts to create a Lambda container (as
// TestSAMCreatesContainersAsTheAdapterExpects records it), trimmed.
const samCreate = `{"Image":"public.ecr.aws/lambda/provided:al2023-rapid-x86_64","Cmd":[],"WorkingDir":"/var/task",
 "Entrypoint":["/var/rapid/aws-lambda-rie","--log-level","error"],"Env":["AWS_REGION=us-east-1"],
 "ExposedPorts":{"8080/tcp":{}},
 "HostConfig":{"Binds":["/code:/var/task:ro,delegated"],"Memory":536870912,
  "PortBindings":{"8080/tcp":[{"HostIp":"127.0.0.1","HostPort":"5123"}]}}}`

func TestRewriteCreate(t *testing.T) {
	pick := func() (string, error) { return "127.0.0.1:40001", nil }
	tests := []struct {
		name, body    string
		wantRewritten bool
		wantErr       bool
	}{
		{"SAM's Lambda container", samCreate, true, false},
		{"another container", `{"Image":"busybox","Entrypoint":["/bin/sh"],"HostConfig":{"PortBindings":{"80/tcp":[{"HostIp":"","HostPort":"80"}]}}}`, false, false},
		{"no entrypoint", `{"Image":"busybox"}`, false, false},
		{"Lambda container without its port", `{"Entrypoint":["/var/rapid/aws-lambda-rie"],"HostConfig":{}}`, false, true},
		{"Lambda container with a debug port", `{"Entrypoint":["/var/rapid/aws-lambda-rie"],"HostConfig":{"PortBindings":{
			"8080/tcp":[{"HostIp":"127.0.0.1","HostPort":"5123"}],"5858/tcp":[{"HostIp":"127.0.0.1","HostPort":"5858"}]}}}`, false, true},
		{"not JSON", `{`, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, rewritten, err := rewriteCreate([]byte(tc.body), pick)
			if (err != nil) != tc.wantErr || rewritten != tc.wantRewritten {
				t.Fatalf("rewritten %v, err %v; want %v, error %v", rewritten, err, tc.wantRewritten, tc.wantErr)
			}
			if err != nil {
				return
			}
			if !rewritten {
				if string(out) != tc.body {
					t.Errorf("body changed: %s", out)
				}
				return
			}
			checkRewritten(t, out, "127.0.0.1:5123", "127.0.0.1:40001")
		})
	}
}

// checkRewritten checks a rewritten Lambda container: host network, no published
// ports, the emulator on invokeAddr and the runtime API on runtimeAddr, the rest kept.
func checkRewritten(t *testing.T, body []byte, invokeAddr, runtimeAddr string) {
	t.Helper()
	var got struct {
		Image        string
		Entrypoint   []string
		ExposedPorts map[string]any
		HostConfig   map[string]any
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if got.HostConfig["NetworkMode"] != "host" || got.HostConfig["PortBindings"] != nil || got.ExposedPorts != nil {
		t.Errorf("network: %+v", got)
	}
	want := []string{rieEntrypoint, "--log-level", "error",
		"--runtime-interface-emulator-address", invokeAddr, "--runtime-api-address", runtimeAddr}
	if !slices.Equal(got.Entrypoint, want) {
		t.Errorf("entrypoint %q, want %q", got.Entrypoint, want)
	}
	if got.Image == "" || got.HostConfig["Binds"] == nil || got.HostConfig["Memory"] == nil {
		t.Errorf("fields lost: %s", body)
	}
}

// samContainer makes SAM CLI build its container create request for a
// provided.al2023 function exactly as `sam local start-api` does (LambdaContainer,
// then docker-py's conversion to the Engine API body), without a Docker engine, and
// prints it with the host and port SAM CLI then invokes the function on.
const samContainer = `
import json
import docker
from docker.models.containers import _create_container_args
from samcli.local.docker import utils
from samcli.local.docker.lambda_container import LambdaContainer

created = {}

class API(docker.APIClient):
    def create_container_from_config(self, config, name=None, platform=None):
        created.update(config)
        return {"Id": "0" * 64}

class Containers:
    def create(self, image, **kwargs):
        # What docker.models.containers.ContainerCollection.create does, up to the request.
        args = _create_container_args(dict(kwargs, image=image, version="1.41"))
        API(base_url="unix:///nonexistent", version="1.41").create_container(**args)
        class Created:
            id = "0" * 64
        return Created()

class Client:
    containers = Containers()

class Image:
    def build(self, *args, **kwargs):
        return "public.ecr.aws/lambda/provided:al2023-rapid-x86_64"
    def get_config(self, image):
        return {}

utils.get_validated_container_client = lambda: Client()
container = LambdaContainer("provided.al2023", None, "bootstrap", "Zip", None, "/code", [], Image(), "x86_64",
                            memory_mb=512, env_vars={"TABLE_NAME": "t"}, container_host="127.0.0.1",
                            container_host_interface="127.0.0.1")
container.create(None)
print(json.dumps({"body": created, "port": container.get_port()}))
`

// TestSAMCreatesContainersAsTheAdapterExpects runs the pinned SAM CLI's own code for a
// Lambda container and checks that the host-network adapter rewrites it as the
// smoke test needs. It fails if a SAM CLI upgrade changes the entrypoint, the
// published port or how SAM CLI reaches it; then adjust hostnet.go.
func TestSAMCreatesContainersAsTheAdapterExpects(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	python := filepath.Join(root, ".venv", "bin", "python")
	if _, err := os.Stat(python); err != nil {
		t.Skip("needs SAM CLI (installed into .venv/ by make test or make venv): make test runs it")
	}
	cmd := exec.Command(python, "-c", samContainer)
	cmd.Env = append(os.Environ(), "SAM_CLI_TELEMETRY=0")
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("SAM CLI's container code: %v\n%s", err, stderr)
	}
	var got struct {
		Body json.RawMessage `json:"body"`
		Port int             `json:"port"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	rewritten, ok, err := rewriteCreate(got.Body, func() (string, error) { return "127.0.0.1:40001", nil })
	if err != nil || !ok {
		t.Fatalf("the adapter does not recognise SAM CLI's Lambda container (rewritten %v, %v): %s", ok, err, got.Body)
	}
	checkRewritten(t, rewritten, "127.0.0.1:"+strconv.Itoa(got.Port), "127.0.0.1:40001")
}
