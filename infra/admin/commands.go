package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/subsight/subsight/shared/auth"
	"github.com/subsight/subsight/shared/awsclients"
	"github.com/subsight/subsight/shared/blobs"
	"github.com/subsight/subsight/shared/fifo"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo"
)

const usage = `usage: admin [-local] [-table NAME] [-jobs-queue URL] [-stack NAME] [-bucket NAME] [-region REGION] COMMAND [flags]

commands:
  create-account -name NAME [-currency USD] [-time-zone UTC] [-week-start monday]
  create-key     -account ACCOUNT_ID
  list-keys      -account ACCOUNT_ID
  revoke-key     -account ACCOUNT_ID (-key-id KEY_ID | -api-key KEY)
  add-member     -account ACCOUNT_ID -email EMAIL -name NAME
  list-members   -account ACCOUNT_ID
  show-account   -account ACCOUNT_ID
  set-setting    -account ACCOUNT_ID -setting NAME -value VALUE   (also time_zone, week_start_on; recomputes every customer)
  set-limit      -account ACCOUNT_ID -name NAME -value N   (requests_per_second, imports_in_flight,
                 import_records_per_minute; a positive integer; recomputes nothing; the API applies
                 requests_per_second within a minute, the authorizer's cache)
  load-fx-rates  -account ACCOUNT_ID -file RATES.csv   (lines: date,currency,rate; recomputes every customer)
  define-attribute -account ACCOUNT_ID -object contact|customer -key KEY -type String|Integer|Decimal|Timestamp|Boolean
  check-series   -account ACCOUNT_ID [-fold]   (the stored series against every customer recomputed; exit 1 on a difference;
                 -fold folds the series' bulk shards into the read copy first)
  reshard        -account ACCOUNT_ID   (moves items written before the write shards to their shard; repeatable)
  dlq list       [-account ACCOUNT_ID] [-json]   (every dead-letter queue, by account and error; consumes nothing)
  dlq redrive    -queue NAME [-account ACCOUNT_ID] [-dry-run] [-json]   (replays to the source queue what is safe;
                 on AWS the dlq commands need -stack, and -bucket for the import queue)
  delete-account -account ACCOUNT_ID [-settle 90s]   (every item, object and queued message of the account;
                 no undo; on AWS needs -bucket)
`

// env is what every command needs.
type env struct {
	store *dynamo.Store
	// jobs is the jobs queue; nil when none is configured (commands that enqueue
	// recomputations then refuse to run).
	jobs jobSender
	// objects is the import bucket; nil when none is configured.
	objects objectEraser
	stdout  io.Writer
	// deadLetters opens the stack's dead-letter queues (the dlq commands); nil when
	// they are not known.
	deadLetters func(ctx context.Context) (*deadLetters, error)
}

type command func(ctx context.Context, e env, args []string) error

var commands = map[string]command{
	"create-account":   createAccount,
	"create-key":       createKey,
	"list-keys":        listKeys,
	"revoke-key":       revokeKey,
	"add-member":       addMember,
	"list-members":     listMembers,
	"show-account":     showAccount,
	"set-setting":      setSetting,
	"set-limit":        setLimit,
	"load-fx-rates":    loadFXRates,
	"define-attribute": defineAttribute,
	"check-series":     checkSeries,
	"reshard":          reshard,
	"dlq":              dlqCommand,
	"delete-account":   deleteAccount,
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	global := flag.NewFlagSet("admin", flag.ContinueOnError)
	global.SetOutput(stderr)
	global.Usage = func() { fmt.Fprint(stderr, usage) }
	local := global.Bool("local", false, "act on the running local stack (.local/stack.json)")
	table := global.String("table", os.Getenv("TABLE_NAME"), "DynamoDB table of the deployment")
	region := global.String("region", "", "AWS region (default from the environment)")
	jobsQueue := global.String("jobs-queue", os.Getenv("JOBS_QUEUE_URL"), "URL of the deployment's jobs queue (the stack's JobsQueueUrl output)")
	stack := global.String("stack", os.Getenv("STACK_NAME"), "the deployment's CloudFormation stack name (the dlq commands find its queues by it)")
	bucket := global.String("bucket", os.Getenv("IMPORT_BUCKET"), "the deployment's import bucket (the stack's ImportBucketName output)")
	if err := global.Parse(args); err != nil {
		return 2
	}
	if global.NArg() == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	name, rest := global.Arg(0), global.Args()[1:]
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "admin: unknown command %q\n\n%s", name, usage)
		return 2
	}
	st, q, objects, err := openStore(ctx, *local, *table, *jobsQueue, *bucket, *region)
	if err != nil {
		fmt.Fprintf(stderr, "admin: %v\n", err)
		return 1
	}
	e := env{store: st, stdout: stdout}
	if q != nil {
		e.jobs = q
	}
	if objects != nil {
		e.objects = objects
	}
	e.deadLetters = func(ctx context.Context) (*deadLetters, error) {
		return openDeadLetters(ctx, st, *local, *stack, *bucket, *region)
	}
	if err := cmd(ctx, e, rest); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 2
		}
		fmt.Fprintf(stderr, "admin %s: %v\n", name, err)
		return 1
	}
	return 0
}

// stackFile is the part of .local/stack.json the admin command reads.
type stackFile struct {
	EndpointURL  string            `json:"endpoint_url"`
	Region       string            `json:"region"`
	TableName    string            `json:"table_name"`
	JobsQueue    string            `json:"jobs_queue_url"`
	ImportBucket string            `json:"import_bucket"`
	QueueURLs    map[string]string `json:"queue_urls"`
}

// openStore opens the table and, when they are known, the jobs queue and the import
// bucket (nil otherwise).
func openStore(ctx context.Context, local bool, table, jobsQueue, bucket, region string) (*dynamo.Store, *jobs.Queue, *blobs.Store, error) {
	now := func() time.Time { return time.Now().UTC() }
	if local {
		cfg, sf, err := localConfig(ctx)
		if err != nil {
			return nil, nil, nil, err
		}
		return openClients(cfg, sf.TableName, sf.JobsQueue, sf.ImportBucket, now)
	}
	if table == "" {
		return nil, nil, nil, errors.New("no table: pass -table NAME (the stack's TableName output), set TABLE_NAME, or use -local")
	}
	cfg, err := awsConfig(ctx, region)
	if err != nil {
		return nil, nil, nil, err
	}
	return openClients(cfg, table, jobsQueue, bucket, now)
}

// localConfig is the SDK configuration of the running local stack.
func localConfig(ctx context.Context) (aws.Config, stackFile, error) {
	sf, err := readStackFile()
	if err != nil {
		return aws.Config{}, sf, err
	}
	cfg, err := awsclients.LoadConfig(ctx,
		awsconfig.WithRegion(sf.Region),
		awsconfig.WithBaseEndpoint(sf.EndpointURL),
		awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")))
	return cfg, sf, err
}

// awsConfig is the SDK configuration of an AWS deployment (region from the environment
// unless given).
func awsConfig(ctx context.Context, region string) (aws.Config, error) {
	var opts []func(*awsconfig.LoadOptions) error
	if region != "" {
		opts = append(opts, awsconfig.WithRegion(region))
	}
	return awsclients.LoadConfig(ctx, opts...)
}

func openClients(cfg aws.Config, table, jobsQueue, bucket string, now func() time.Time) (*dynamo.Store, *jobs.Queue, *blobs.Store, error) {
	c := awsclients.New(cfg)
	var q *jobs.Queue
	if jobsQueue != "" {
		q = jobs.NewQueue(fifo.New(c.SQS, jobsQueue, "JOBS_QUEUE_URL"))
	}
	var objects *blobs.Store
	if bucket != "" {
		objects = blobs.New(cfg, bucket)
	}
	return dynamo.New(c.DynamoDB, table, now), q, objects, nil
}

// readStackFile finds .local/stack.json in the current directory or above it.
func readStackFile() (stackFile, error) {
	path, err := findUp(filepath.Join(".local", "stack.json"))
	if err != nil {
		return stackFile{}, errors.New("no .local/stack.json found: start the local stack with `make run` first")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return stackFile{}, err
	}
	var sf stackFile
	if err := json.Unmarshal(b, &sf); err != nil {
		return sf, fmt.Errorf(".local/stack.json: %w", err)
	}
	if sf.EndpointURL == "" || sf.TableName == "" {
		return sf, errors.New(".local/stack.json lacks endpoint_url or table_name")
	}
	if sf.Region == "" {
		sf.Region = "us-east-1"
	}
	return sf, nil
}

// findUp finds rel in the current directory or the nearest one above it.
func findUp(rel string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		path := filepath.Join(dir, rel)
		if _, err := os.Stat(path); err == nil {
			return path, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no %s in this directory or above", rel)
		}
		dir = parent
	}
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	return fs
}

func requireAccount(ctx context.Context, e env, id string) (model.Account, error) {
	if id == "" {
		return model.Account{}, errors.New("-account is required")
	}
	acc, err := e.store.GetAccount(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return acc, fmt.Errorf("account %q does not exist", id)
	}
	return acc, err
}

func createAccount(ctx context.Context, e env, args []string) error {
	fs := newFlags("create-account")
	name := fs.String("name", "", "account (company) name")
	currency := fs.String("currency", "USD", "ISO 4217 currency code")
	tz := fs.String("time-zone", "UTC", "IANA time zone")
	week := fs.String("week-start", "monday", "first day of the week: monday or sunday")
	if err := fs.Parse(args); err != nil {
		return err
	}
	acc := model.Account{ID: model.NewAccountID(), Name: strings.TrimSpace(*name),
		Currency: strings.ToUpper(*currency), TimeZone: *tz, WeekStartOn: strings.ToLower(*week),
		Settings: model.DefaultSettings()}
	if err := acc.Validate(); err != nil {
		return err
	}
	key, err := auth.NewAPIKey()
	if err != nil {
		return err
	}
	if err := e.store.CreateAccount(ctx, acc); err != nil {
		return err
	}
	if _, err := e.store.CreateAPIKey(ctx, acc.ID, auth.Hash(key)); err != nil {
		return err
	}
	return printJSON(e.stdout, map[string]string{"account_id": acc.ID, "api_key": key})
}

func createKey(ctx context.Context, e env, args []string) error {
	fs := newFlags("create-key")
	account := fs.String("account", "", "account id")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := requireAccount(ctx, e, *account); err != nil {
		return err
	}
	key, err := auth.NewAPIKey()
	if err != nil {
		return err
	}
	id, err := e.store.CreateAPIKey(ctx, *account, auth.Hash(key))
	if err != nil {
		return err
	}
	return printJSON(e.stdout, map[string]string{"account_id": *account, "key_id": id, "api_key": key})
}

func listKeys(ctx context.Context, e env, args []string) error {
	fs := newFlags("list-keys")
	account := fs.String("account", "", "account id")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := requireAccount(ctx, e, *account); err != nil {
		return err
	}
	keys, err := e.store.ListAPIKeys(ctx, *account)
	if err != nil {
		return err
	}
	type row struct {
		KeyID     string  `json:"key_id"`
		CreatedAt string  `json:"created_at"`
		RevokedAt *string `json:"revoked_at"`
	}
	out := []row{}
	for _, k := range keys {
		r := row{KeyID: k.ID, CreatedAt: k.CreatedAt.Format(time.RFC3339)}
		if k.RevokedAt != nil {
			s := k.RevokedAt.Format(time.RFC3339)
			r.RevokedAt = &s
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt < out[j].CreatedAt })
	return printJSON(e.stdout, map[string]any{"account_id": *account, "keys": out})
}

func revokeKey(ctx context.Context, e env, args []string) error {
	fs := newFlags("revoke-key")
	account := fs.String("account", "", "account id")
	keyID := fs.String("key-id", "", "id of the key (from create-key or list-keys)")
	apiKey := fs.String("api-key", "", "the key itself, when its id is unknown")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := requireAccount(ctx, e, *account); err != nil {
		return err
	}
	if (*keyID == "") == (*apiKey == "") {
		return errors.New("give exactly one of -key-id and -api-key")
	}
	id := *keyID
	if *apiKey != "" {
		keys, err := e.store.ListAPIKeys(ctx, *account)
		if err != nil {
			return err
		}
		hash := auth.Hash(*apiKey)
		for _, k := range keys {
			if k.Hash == hash {
				id = k.ID
			}
		}
		if id == "" {
			return errors.New("that API key does not belong to this account")
		}
	}
	if err := e.store.RevokeAPIKey(ctx, *account, id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("key %q does not exist", id)
		}
		return err
	}
	return printJSON(e.stdout, map[string]string{"account_id": *account, "key_id": id, "status": "revoked"})
}

func addMember(ctx context.Context, e env, args []string) error {
	fs := newFlags("add-member")
	account := fs.String("account", "", "account id")
	email := fs.String("email", "", "member e-mail")
	name := fs.String("name", "", "member display name")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := requireAccount(ctx, e, *account); err != nil {
		return err
	}
	m := model.Member{AccountID: *account, Email: strings.TrimSpace(*email), Name: strings.TrimSpace(*name)}
	if err := m.Validate(); err != nil {
		return err
	}
	if err := e.store.PutMember(ctx, m); err != nil {
		return err
	}
	return printJSON(e.stdout, map[string]string{"account_id": *account, "email": m.Email, "name": m.Name})
}

func listMembers(ctx context.Context, e env, args []string) error {
	fs := newFlags("list-members")
	account := fs.String("account", "", "account id")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := requireAccount(ctx, e, *account); err != nil {
		return err
	}
	members, err := e.store.ListMembers(ctx, *account)
	if err != nil {
		return err
	}
	out := []map[string]string{}
	for _, m := range members {
		out = append(out, map[string]string{"email": m.Email, "name": m.Name})
	}
	return printJSON(e.stdout, map[string]any{"account_id": *account, "members": out})
}

func showAccount(ctx context.Context, e env, args []string) error {
	fs := newFlags("show-account")
	account := fs.String("account", "", "account id")
	if err := fs.Parse(args); err != nil {
		return err
	}
	acc, err := requireAccount(ctx, e, *account)
	if err != nil {
		return err
	}
	return printJSON(e.stdout, map[string]any{
		"id": acc.ID, "name": acc.Name, "currency": acc.Currency, "time_zone": acc.TimeZone,
		"week_start_on": acc.WeekStartOn, "churn_recognition": acc.Settings.ChurnRecognition,
		"churn_when_zero_mrr": acc.Settings.ChurnWhenZeroMRR, "auto_churn_subscription": acc.Settings.AutoChurnSubscription,
		"refund_handling": acc.Settings.RefundHandling, "proximate_movement_reclassification": acc.Settings.ProximateMovementReclassification,
		"limits": limitsJSON(acc.Limits.Effective()),
	})
}

func limitsJSON(l model.Limits) map[string]int {
	return map[string]int{"requests_per_second": l.RequestsPerSecond, "imports_in_flight": l.ImportsInFlight,
		"import_records_per_minute": l.ImportRecordsPerMinute}
}

// setLimit changes one of the account's limits. Unlike a setting it changes no
// customer's metrics, so nothing is recomputed.
func setLimit(ctx context.Context, e env, args []string) error {
	fs := newFlags("set-limit")
	account := fs.String("account", "", "account id")
	name := fs.String("name", "", "one of "+strings.Join(model.LimitNames, ", "))
	value := fs.String("value", "", "a positive integer")
	if err := fs.Parse(args); err != nil {
		return err
	}
	acc, err := requireAccount(ctx, e, *account)
	if err != nil {
		return err
	}
	if err := acc.Limits.Set(*name, *value); err != nil {
		return err
	}
	if err := e.store.UpdateLimits(ctx, acc.ID, acc.Limits); err != nil {
		return err
	}
	return printJSON(e.stdout, map[string]any{"account_id": acc.ID, "limits": limitsJSON(acc.Limits.Effective())})
}

func setSetting(ctx context.Context, e env, args []string) error {
	fs := newFlags("set-setting")
	account := fs.String("account", "", "account id")
	setting := fs.String("setting", "", "one of "+strings.Join(append(slices.Clone(model.AccountIncludes), model.CalendarSettings...), ", "))
	value := fs.String("value", "", "new value")
	if err := fs.Parse(args); err != nil {
		return err
	}
	acc, err := requireAccount(ctx, e, *account)
	if err != nil {
		return err
	}
	calendar := slices.Contains(model.CalendarSettings, *setting)
	if calendar {
		err = acc.SetCalendar(*setting, *value)
	} else {
		err = acc.Settings.Set(*setting, *value)
	}
	if err != nil {
		return err
	}
	if err := requireJobs(e); err != nil {
		return err
	}
	if calendar {
		err = e.store.UpdateCalendar(ctx, acc.ID, acc.TimeZone, acc.WeekStartOn)
	} else {
		err = e.store.UpdateSettings(ctx, acc.ID, acc.Settings)
	}
	if err != nil {
		return err
	}
	// The settings change every customer's metrics (churn, refunds, reclassification).
	// The calendar changes no customer's result but every day and week bucket of the
	// account series: the recomputation re-applies each customer's movements in the new
	// calendar (its series hash includes it) and writes only the numbers that moved
	// (docs/metrics-api.md, "Consistency notes").
	n, err := recomputeAccount(ctx, e, acc.ID)
	if err != nil {
		return fmt.Errorf("setting stored, but enqueueing the recomputations failed after %d (run the command again): %w", n, err)
	}
	return printJSON(e.stdout, map[string]any{"account_id": acc.ID, "setting": *setting, "value": *value, "recomputations": n})
}
