package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/subsight/subsight/infra/devstack/emulator"
	"github.com/subsight/subsight/infra/devstack/provision"
	"github.com/subsight/subsight/infra/devstack/samtemplate"
	"github.com/subsight/subsight/infra/repo"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/auth"
	"github.com/subsight/subsight/shared/config"
	"github.com/subsight/subsight/shared/dashboard"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/routes"
	"github.com/subsight/subsight/shared/sqsworker"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/workers"
)

// options configure a stack; main fills them from the environment, tests directly.
type options struct {
	root         string // repository root (template.yaml, .local/)
	addr         string // listen address; port 0 picks a free one
	apiKey       string // demo account key; "" generates one
	cursorSecret string // "" generates one
	retryDelay   time.Duration
	// pollers is how many batches of one queue may run at once (Lambda runs up to
	// the mapping's MaximumConcurrency); 0 means defaultPollers.
	pollers    int
	motoOutput io.Writer
	// emulatorHost is the address moto listens on ("" is 127.0.0.1); a Docker
	// bridge's address lets sam local's containers reach it.
	emulatorHost string
	// setProcessEnv exports the functions' environment into this process, as
	// Lambda would; tests leave it off because they run several stacks at once.
	setProcessEnv bool
	// stackFile is where stack.json goes; "" writes none.
	stackFile string
	// stripeAPIBase is the Stripe API the backfills read (LOCAL_STRIPE_API_BASE, e.g. a
	// stripe-mock); "" leaves the template's, Stripe's own.
	stripeAPIBase string
	// demoLimits are the demo account's limits (zero fields: the production
	// defaults, which `make run` keeps); the tests and benchmarks that drive the demo
	// account faster than 40 requests a second raise them here.
	demoLimits model.Limits

	apis        map[string]routes.API
	workers     map[string]func(*workers.Deps) sqsworker.Handler
	authorizers map[string]func(store.KeyResolver) auth.AuthorizerHandler
	schedules   map[string]routes.Scheduled
	// public serves the routes the template leaves without an authorizer.
	public map[string]func() dashboard.Handler
	// scheduleEvery replaces the period of every Schedule event when positive.
	scheduleEvery time.Duration
	// awsConfig, when set, may change the AWS configuration before the functions'
	// clients are built from it (benchmarks attach their meters there).
	awsConfig func(*aws.Config)
	// held are queues (LogicalIds) whose pollers wait for stack.release: a benchmark
	// runs the stages one after the other.
	held map[string]bool
}

// stack is the whole service running on one machine.
type stack struct {
	moto      *emulator.Server
	template  *samtemplate.Template
	resources *provision.Resources
	deps      *app.Deps
	// functionEnv is the variables template.yaml declares, resolved locally; env adds
	// the emulator's endpoint, region and credentials.
	functionEnv map[string]string
	env         map[string]string
	router      *router
	pollers     []*poller
	schedules   []*scheduler
	pollCtx     context.Context

	server    *http.Server
	listener  net.Listener
	baseURL   string
	apiKey    string
	accountID string

	cancel    context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once
}

// readRunningStack reads the file of the running `make run` stack (path, else
// .local/stack.json of the repository).
func readRunningStack(path string) (stackInfo, error) {
	var info stackInfo
	if path == "" {
		root, err := repo.Root()
		if err != nil {
			return info, err
		}
		path = filepath.Join(root, ".local", "stack.json")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return info, fmt.Errorf("%w: start the local stack with `make run` (in another terminal) first", err)
	}
	if err := json.Unmarshal(raw, &info); err != nil {
		return info, fmt.Errorf("%s: %w", path, err)
	}
	return info, nil
}

// stackInfo is .local/stack.json.
type stackInfo struct {
	BaseURL        string `json:"base_url"`
	APIKey         string `json:"api_key"`
	AccountID      string `json:"account_id"`
	EndpointURL    string `json:"endpoint_url"`
	Region         string `json:"region"`
	TableName      string `json:"table_name"`
	ImportBucket   string `json:"import_bucket"`
	ImportQueueURL string `json:"import_queue_url"`
	JobsQueueURL   string `json:"jobs_queue_url"`
	CursorSecret   string `json:"cursor_secret"`
	// QueueURLs are every queue of the template by LogicalId (the admin command's
	// dead-letter commands read them).
	QueueURLs map[string]string `json:"queue_urls"`
	// FunctionEnv is every variable template.yaml declares for the functions, as the
	// local stack resolved it (make sam-local passes it to sam local).
	FunctionEnv map[string]string `json:"function_env"`
}

// newStack starts moto, creates the template's resources, seeds the demo account,
// and starts the HTTP server and the SQS pollers. Close stops everything.
func newStack(ctx context.Context, o options) (_ *stack, err error) {
	t0 := time.Now()
	if o.apis == nil {
		o.apis = routes.APIs
	}
	if o.workers == nil {
		o.workers = routes.Workers
	}
	if o.authorizers == nil {
		o.authorizers = routes.Authorizers
	}
	if o.schedules == nil {
		o.schedules = routes.Schedules
	}
	if o.public == nil {
		o.public = routes.Public
	}
	if o.apiKey == "" {
		if o.apiKey, err = auth.NewAPIKey(); err != nil {
			return nil, err
		}
	} else if !auth.ValidLocalKey(o.apiKey) {
		return nil, errors.New("LOCAL_API_KEY must be 16 to 128 letters, digits, '_' or '-'")
	}
	if o.cursorSecret == "" {
		o.cursorSecret = randomHex(32)
	} else if len(o.cursorSecret) < 16 {
		return nil, errors.New("LOCAL_CURSOR_SECRET must be at least 16 characters")
	}
	if o.retryDelay <= 0 {
		o.retryDelay = time.Second
	}
	tpl, err := samtemplate.ParseFile(filepath.Join(o.root, "template.yaml"))
	if err != nil {
		return nil, err
	}

	s := &stack{template: tpl, apiKey: o.apiKey}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if s.moto, err = emulator.Start(ctx, emulator.Options{Output: o.motoOutput, Host: o.emulatorHost}); err != nil {
		return nil, err
	}
	tMoto := time.Since(t0)
	awsCfg, err := s.moto.AWSConfig(ctx)
	if err != nil {
		return nil, err
	}
	if o.awsConfig != nil {
		o.awsConfig(&awsCfg)
	}
	if s.resources, err = provision.Provision(ctx, tpl, awsCfg, provision.Options{}); err != nil {
		return nil, err
	}
	if s.functionEnv, err = functionsEnv(tpl, s.resources.Resolver(tpl, o.cursorSecret)); err != nil {
		return nil, err
	}
	if o.stripeAPIBase != "" {
		s.functionEnv["STRIPE_API_BASE"] = o.stripeAPIBase
	}
	s.env = maps.Clone(s.functionEnv)
	maps.Copy(s.env, emulator.Env(s.moto.URL, awsCfg.Region))
	scaleLaneWindow(tpl, s.env, o.pollers)

	var cfg config.Config
	if o.setProcessEnv {
		for k, v := range s.env {
			if err := os.Setenv(k, v); err != nil {
				return nil, err
			}
		}
		// The same path a Lambda takes, so a missing variable fails here too.
		if cfg, err = config.FromEnv(); err != nil {
			return nil, err
		}
	} else if cfg, err = provision.AppConfig(s.env); err != nil {
		return nil, err
	}
	s.deps = app.New(cfg, emulator.Clients(awsCfg))

	if s.accountID, err = seedDemoAccount(ctx, s.deps, o.apiKey); err != nil {
		return nil, fmt.Errorf("seed demo account: %w", err)
	}
	if o.demoLimits != (model.Limits{}) {
		if err := s.deps.Store.UpdateLimits(ctx, s.accountID, o.demoLimits); err != nil {
			return nil, fmt.Errorf("demo account limits: %w", err)
		}
	}
	if s.router, err = buildRouter(tpl, s.deps, o, s.resources.Region); err != nil {
		return nil, err
	}
	if s.pollers, err = buildPollers(tpl, s.deps, s.resources, o); err != nil {
		return nil, err
	}
	if s.schedules, err = buildSchedulers(tpl, s.deps.Workers(), o.schedules, o.scheduleEvery); err != nil {
		return nil, err
	}

	if s.listener, err = net.Listen("tcp", o.addr); err != nil {
		return nil, err
	}
	s.baseURL = "http://" + s.listener.Addr().String()
	s.server = &http.Server{Handler: s.router, ReadHeaderTimeout: 10 * time.Second}
	s.wg.Go(func() {
		if err := s.server.Serve(s.listener); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("http server", "error", err.Error())
		}
	})
	pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel, s.pollCtx = cancel, pctx
	for _, p := range s.pollers {
		if !o.held[p.queue] {
			s.wg.Go(func() { p.run(pctx) })
		}
	}
	for _, sc := range s.schedules {
		s.wg.Go(func() { sc.run(pctx) })
	}

	if o.stackFile != "" {
		if err := s.writeStackFile(o.stackFile, o.cursorSecret); err != nil {
			return nil, err
		}
	}
	slog.Info("local stack ready", "base_url", s.baseURL, "endpoint_url", s.moto.URL,
		"moto_ms", tMoto.Milliseconds(), "total_ms", time.Since(t0).Milliseconds(),
		"routes", len(s.router.routes), "pollers", len(s.pollers), "schedules", len(s.schedules))
	return s, nil
}

// release starts the pollers of a held queue.
func (s *stack) release(queue string) {
	for _, p := range s.pollers {
		if p.queue == queue {
			s.wg.Go(func() { p.run(s.pollCtx) })
		}
	}
}

// functionsEnv resolves every function's environment; all functions run in this one
// process, so a variable must mean the same for all of them.
func functionsEnv(tpl *samtemplate.Template, r *samtemplate.Resolver) (map[string]string, error) {
	env := map[string]string{}
	owner := map[string]string{}
	for _, id := range tpl.FunctionIDs() {
		vars, err := tpl.FunctionEnv(id, r)
		if err != nil {
			return nil, err
		}
		for k, v := range vars {
			if prev, ok := env[k]; ok && prev != v {
				return nil, fmt.Errorf("environment variable %s differs between %s and %s; the local stack runs all functions in one process", k, owner[k], id)
			}
			env[k], owner[k] = v, id
		}
	}
	return env, nil
}

func buildRouter(tpl *samtemplate.Template, d *app.Deps, o options, region string) (*router, error) {
	rt := &router{region: region}
	apiDeps, gate := d.API(), d.Gate()
	authorizers := map[string]auth.AuthorizerHandler{}
	public := map[string]apigw.LambdaHandler{}
	for _, r := range tpl.Routes() {
		if build, ok := routes.StripeWebhooks[r.Function]; ok && r.Authorizer == "" {
			if public[r.Function] == nil {
				public[r.Function] = apigw.WrapPublic(build(d.StripeWebhooks()))
			}
			rt.routes = append(rt.routes, &route{Route: r, segments: strings.Split(strings.TrimPrefix(r.Path, "/"), "/"),
				handler: public[r.Function], timeout: time.Duration(tpl.Functions[r.Function].Timeout) * time.Second})
			continue
		}
		if r.Authorizer == "" {
			rte, err := publicRoute(tpl, r, o.public, public)
			if err != nil {
				return nil, err
			}
			rt.routes = append(rt.routes, rte)
			continue
		}
		build, ok := o.apis[r.Function]
		if !ok {
			return nil, fmt.Errorf("template route %s: %s is not in shared/routes.APIs", r.Key(), r.Function)
		}
		rte := &route{Route: r, segments: strings.Split(strings.TrimPrefix(r.Path, "/"), "/"),
			handler: apigw.Wrap(build(apiDeps), gate), timeout: time.Duration(tpl.Functions[r.Function].Timeout) * time.Second}
		if r.Authorizer != "" {
			h, ok := authorizers[r.Authorizer]
			if !ok {
				build, ok := o.authorizers[r.Authorizer]
				if !ok {
					return nil, fmt.Errorf("authorizer %s is not in shared/routes.Authorizers", r.Authorizer)
				}
				h = build(d.Store)
				authorizers[r.Authorizer] = h
			}
			rte.authorizer = h
			rte.identity, rte.authTTL = authorizerIdentity(tpl, r.Authorizer)
		}
		rt.routes = append(rt.routes, rte)
	}
	return rt, nil
}

// publicRoute binds a route the template leaves without an authorizer (`Auth: Authorizer:
// NONE`) to its function in shared/routes.Public, called as API Gateway calls it: without
// an authorizer and without ChartMogul's 401 wrapper. Each function's handler is built once.
func publicRoute(tpl *samtemplate.Template, r samtemplate.Route, registry map[string]func() dashboard.Handler,
	built map[string]apigw.LambdaHandler) (*route, error) {
	build, ok := registry[r.Function]
	if !ok {
		return nil, fmt.Errorf("template route %s has no authorizer, but %s is not in shared/routes.Public", r.Key(), r.Function)
	}
	if built[r.Function] == nil {
		built[r.Function] = apigw.LambdaHandler(build())
	}
	return &route{Route: r, segments: strings.Split(strings.TrimPrefix(r.Path, "/"), "/"), handler: built[r.Function],
		timeout: time.Duration(tpl.Functions[r.Function].Timeout) * time.Second}, nil
}

// authorizerIdentity returns the identity source headers of the function's
// authorizer, lower case, and how long API Gateway caches its answers.
func authorizerIdentity(tpl *samtemplate.Template, function string) ([]string, time.Duration) {
	for _, api := range tpl.HttpApis {
		for _, a := range api.Authorizers {
			if a.Function == function {
				var out []string
				for _, h := range a.IdentityHeaders {
					out = append(out, strings.ToLower(h))
				}
				return out, a.ResultTTL
			}
		}
	}
	return nil, 0
}

func buildPollers(tpl *samtemplate.Template, d *app.Deps, res *provision.Resources, o options) ([]*poller, error) {
	var out []*poller
	early := &earlyReleases{}
	for _, m := range tpl.SQSMappings() {
		if !m.Enabled {
			continue
		}
		build, ok := o.workers[m.Function]
		if !ok {
			return nil, fmt.Errorf("SQS mapping %s -> %s: the function is not in shared/routes.Workers", m.Queue, m.Function)
		}
		if build == nil {
			continue // a benchmark that leaves this queue unpolled
		}
		q := res.Queues[m.Queue]
		// Each poller gets its own handler, as each concurrent batch on AWS runs in
		// its own function instance.
		for range concurrentBatches(m, o.pollers) {
			w := d.Workers()
			w.Redeliver = early
			out = append(out, &poller{
				sqs: d.Clients.SQS, queueURL: q.URL, queueARN: q.ARN, queue: m.Queue, region: res.Region,
				function: m.Function, batchSize: m.BatchSize, reportFailures: m.ReportBatchItemFailures,
				handler: build(w), timeout: time.Duration(tpl.Functions[m.Function].Timeout) * time.Second,
				retryDelay: o.retryDelay, early: early, wait: 1,
			})
		}
	}
	return out, nil
}

// scaleLaneWindow sizes the import lanes' window to the local stack: the template's
// is for the import worker's MaximumConcurrency on Lambda, and the local stack runs
// concurrentBatches of them, so the window keeps the same share of the batches at once
// (docs/architecture.md, "Lanes").
func scaleLaneWindow(tpl *samtemplate.Template, env map[string]string, pollers int) {
	w, err := strconv.Atoi(env["IMPORT_LANE_WINDOW"])
	if err != nil {
		return
	}
	for _, m := range tpl.SQSMappings() {
		if m.Queue == "ImportQueue" && m.MaximumConcurrency > 0 {
			env["IMPORT_LANE_WINDOW"] = strconv.Itoa(max(m.BatchSize, w*concurrentBatches(m, pollers)/m.MaximumConcurrency))
		}
	}
}

// defaultPollers is how many batches of one queue run at once unless LOCAL_POLLERS
// says otherwise: enough to keep the emulator busy while a batch's worker computes,
// few enough for a two-core machine.
const defaultPollers = 2

// concurrentBatches is how many pollers a mapping gets: as many batches as Lambda
// would run at once (its MaximumConcurrency, when set), at most the local limit.
func concurrentBatches(m samtemplate.SQSMapping, limit int) int {
	if limit <= 0 {
		limit = defaultPollers
	}
	if m.MaximumConcurrency > 0 {
		return min(m.MaximumConcurrency, limit)
	}
	return limit
}

func (s *stack) info(cursorSecret string) stackInfo {
	info := stackInfo{
		BaseURL: s.baseURL, APIKey: s.apiKey, AccountID: s.accountID, EndpointURL: s.moto.URL,
		Region: s.resources.Region, TableName: s.deps.Config.TableName, ImportBucket: s.deps.Config.ImportBucket,
		ImportQueueURL: s.deps.Config.ImportQueueURL, JobsQueueURL: s.deps.Config.JobsQueueURL, CursorSecret: cursorSecret,
		FunctionEnv: s.functionEnv, QueueURLs: map[string]string{},
	}
	for id, q := range s.resources.Queues {
		info.QueueURLs[id] = q.URL
	}
	return info
}

func (s *stack) writeStackFile(path, cursorSecret string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(s.info(cursorSecret), "", "  ")
	if err != nil {
		return err
	}
	// The file holds a key: readable by the owner only.
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Close stops the pollers, the schedulers and the server, then moto. Safe to call more than once.
func (s *stack) Close() {
	s.closeOnce.Do(func() {
		if s.cancel != nil {
			s.cancel()
		}
		if s.server != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = s.server.Shutdown(ctx)
			cancel()
		}
		s.wg.Wait()
		if s.moto != nil {
			s.moto.Stop()
		}
	})
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(errors.New("no randomness"))
	}
	return hex.EncodeToString(b)
}
