// Command local runs the whole service on one machine (`make run`): moto with the
// resources of template.yaml, a demo account, the HTTP API on 127.0.0.1:${PORT:-3000}
// routed to the same handlers the Lambdas run, with the authorizer in front, and
// pollers feeding the SQS queues to the workers. `local demo -customers N` (`make demo`)
// loads a generated account of N customers into the running stack. See
// docs/local-stack.md.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/subsight/subsight/infra/repo"
	"github.com/subsight/subsight/shared/auth"
)

func main() {
	level := slog.LevelInfo
	if os.Getenv("LOG_LEVEL") == "debug" {
		level = slog.LevelDebug
	}
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
	if len(os.Args) > 1 && os.Args[1] == "demo" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if err := runDemo(ctx, os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "\nmake demo:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "stripe-freshness" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if err := runStripeFreshness(ctx, os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "\nstripe freshness:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "local stack:", err)
		os.Exit(1)
	}
}

func run() error {
	o, err := optionsFromEnv()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := newStack(ctx, o)
	if err != nil {
		return err
	}
	defer s.Close()
	demo := "off (LOCAL_DEMO_DATA=0)"
	if os.Getenv("LOCAL_DEMO_DATA") != "0" {
		imp, err := seedDemoData(ctx, s.baseURL, s.apiKey, time.Now().UTC())
		if err != nil {
			return err
		}
		demo = fmt.Sprintf("%d customers over 18 months, importing (%s/#/imports/%s)", len(demoCustomers), s.baseURL, imp)
	}
	rel, _ := filepath.Rel(o.root, o.stackFile)
	fmt.Printf("Subsight local stack is up\n  base URL:   %s\n  dashboard:  %s/ (enter the API key)\n  API key:    %s\n  account id: %s\n  demo data:  %s\n  emulator:   %s\n  stack file: %s\nPress Ctrl-C to stop.\n",
		s.baseURL, s.baseURL, s.apiKey, s.accountID, demo, s.moto.URL, rel)
	<-ctx.Done()
	slog.Info("shutting down")
	return nil
}

func optionsFromEnv() (options, error) {
	root, err := repo.Root()
	if err != nil {
		return options{}, err
	}
	port := os.Getenv("PORT")
	if port == "" {
		port = "3000"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return options{}, fmt.Errorf("PORT %q is not a port number", port)
	}
	key := os.Getenv("LOCAL_API_KEY")
	if key != "" && !auth.ValidLocalKey(key) {
		return options{}, fmt.Errorf("LOCAL_API_KEY must be 16 to 128 characters, each a letter, digit, '_' or '-' (got %d characters)", len(key))
	}
	delay := time.Second
	if v := os.Getenv("LOCAL_RETRY_DELAY"); v != "" {
		if delay, err = time.ParseDuration(v); err != nil || delay <= 0 {
			return options{}, fmt.Errorf("LOCAL_RETRY_DELAY %q is not a positive duration such as 1s", v)
		}
	}
	var pollers int
	if v := os.Getenv("LOCAL_POLLERS"); v != "" {
		if pollers, err = strconv.Atoi(v); err != nil || pollers < 1 || pollers > 10 {
			return options{}, fmt.Errorf("LOCAL_POLLERS %q is not a number of concurrent batches from 1 to 10", v)
		}
	}
	var every time.Duration
	if v := os.Getenv("LOCAL_SCHEDULE_EVERY"); v != "" {
		if every, err = time.ParseDuration(v); err != nil || every <= 0 {
			return options{}, fmt.Errorf("LOCAL_SCHEDULE_EVERY %q is not a positive duration such as 10s", v)
		}
	}
	stackFile := os.Getenv("LOCAL_STACK_FILE")
	if stackFile == "" {
		stackFile = filepath.Join(root, ".local", "stack.json")
	}
	emulatorHost := os.Getenv("LOCAL_EMULATOR_HOST")
	if emulatorHost != "" && net.ParseIP(emulatorHost) == nil {
		return options{}, fmt.Errorf("LOCAL_EMULATOR_HOST %q is not an IP address", emulatorHost)
	}
	stripeAPI := os.Getenv("LOCAL_STRIPE_API_BASE")
	if u, err := url.Parse(stripeAPI); stripeAPI != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		return options{}, fmt.Errorf("LOCAL_STRIPE_API_BASE %q is not an http(s) URL such as http://127.0.0.1:12111", stripeAPI)
	}
	var motoLog io.Writer
	if os.Getenv("LOCAL_MOTO_LOG") != "" {
		motoLog = os.Stderr
	}
	return options{
		root:          root,
		addr:          "127.0.0.1:" + port,
		apiKey:        key,
		cursorSecret:  os.Getenv("LOCAL_CURSOR_SECRET"),
		retryDelay:    delay,
		pollers:       pollers,
		scheduleEvery: every,
		motoOutput:    motoLog,
		emulatorHost:  emulatorHost,
		setProcessEnv: true,
		stackFile:     stackFile,
		stripeAPIBase: stripeAPI,
	}, nil
}
