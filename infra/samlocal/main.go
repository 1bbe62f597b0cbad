// Command samlocal supports `make sam-local` (sam local start-api against the stack of
// a running `make run`); see docs/local-stack.md.
//
//	samlocal env-vars [-stack .local/stack.json] [-emulator-host host.docker.internal]
//	    prints the file for sam local's --env-vars: every variable template.yaml
//	    declares for the functions, as the running stack resolved it, with
//	    AWS_ENDPOINT_URL pointing the containers at the stack's emulator.
//	samlocal host-network -listen SOCKET -docker SOCKET
//	    serves the Docker API of the engine at -docker on -listen, putting SAM CLI's
//	    Lambda containers on the host network (hostnet.go), for an engine without a
//	    bridge.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "samlocal:", err)
		os.Exit(2)
	}
}

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: samlocal env-vars|host-network [flags]")
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	switch args[0] {
	case "env-vars":
		stack := fs.String("stack", ".local/stack.json", "the stack file of a running `make run`")
		host := fs.String("emulator-host", "host.docker.internal", "the emulator's host name as the containers reach it")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		b, err := os.ReadFile(*stack)
		if err != nil {
			return fmt.Errorf("%w (start `make run` first)", err)
		}
		out, err := envVars(b, *host)
		if err != nil {
			return err
		}
		_, err = stdout.Write(out)
		return err
	case "host-network":
		listen := fs.String("listen", "", "unix socket to serve the adapted Docker API on")
		docker := fs.String("docker", "/var/run/docker.sock", "the engine's unix socket")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *listen == "" {
			return errors.New("host-network: -listen is required")
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		defer os.Remove(*listen)
		return serveHostNetwork(ctx, *listen, *docker)
	}
	return fmt.Errorf("unknown command %q", args[0])
}

// envVars builds sam local's --env-vars file from a stack file: "Parameters" applies
// to every function, and sam local uses only the variables a function declares.
func envVars(stackFile []byte, emulatorHost string) ([]byte, error) {
	var st struct {
		EndpointURL string            `json:"endpoint_url"`
		FunctionEnv map[string]string `json:"function_env"`
	}
	if err := json.Unmarshal(stackFile, &st); err != nil {
		return nil, fmt.Errorf("stack file: %w", err)
	}
	if len(st.FunctionEnv) == 0 || st.EndpointURL == "" {
		return nil, errors.New("stack file: no function_env or endpoint_url (written by an older make run? restart it)")
	}
	if _, ok := st.FunctionEnv["AWS_ENDPOINT_URL"]; !ok {
		return nil, errors.New("template.yaml does not declare AWS_ENDPOINT_URL: sam local could not point the functions at the emulator")
	}
	u, err := url.Parse(st.EndpointURL)
	if err != nil {
		return nil, fmt.Errorf("stack file endpoint_url: %w", err)
	}
	u.Host = net.JoinHostPort(emulatorHost, u.Port())
	params := map[string]string{}
	for k, v := range st.FunctionEnv {
		params[k] = v
	}
	params["AWS_ENDPOINT_URL"] = u.String()
	return json.MarshalIndent(map[string]any{"Parameters": params}, "", "  ")
}
