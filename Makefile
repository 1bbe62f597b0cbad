# Subsight: the single entry point for developers, CI (.ci/run) and `sam build`.
#
#   make run     the whole service on one machine (moto + API on 127.0.0.1:$${PORT:-3000})
#   make demo    a generated account of CUSTOMERS customers into the running make run
#                (SOURCE=stripe: as a generated Stripe history through the webhook endpoint)
#   make check   the fast tier: make lint and the unit tests, without emulators (under 2 min)
#   make test    make lint first, then unit + integration + Lambda-parity tests, sam build, both
#                client suites, the dashboard in Chromium, sam local smoke (SAM_SMOKE=0 skips it)
#   make sam-local  sam local start-api (Docker) against a running make run
#   make lint    gofmt, go vet, go mod tidy drift, staticcheck, the generated files' staleness
#                (go generate ./shared/routes), the stack's resource count, cfn-lint (with the
#                serverless rules), sam validate
#   make build   the dashboard's assets (web/), then every function's arm64 bootstrap, in one
#                go build, into bin/<folder>/bootstrap
#   make bench   Go benchmarks (make bench-import, make bench-metrics: full-size runs)
#   make fault-test  the import under injected DynamoDB faults at 1,000 customers
#   make hot-partition-test  the import with one partition throttled for a minute
#   make bench-fairness  one account's 200-customer import beside another's 3,000
#   make sizes   bootstrap sizes into bin/sizes.md (fails above 15 MB; make test checks the limit)
#   make deploy  sam build + sam deploy with samconfig.toml (needs AWS credentials)
#
# `sam build` calls `make build-<LogicalId>` (Metadata BuildMethod: makefile) in the source folder
# (samconfig.toml: build_in_source); those targets only copy the binary `make build` produced.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build
MAKEFLAGS += --no-builtin-rules --no-print-directory
.DELETE_ON_ERROR:

GO      ?= go
PYTHON  ?= python3
NPM     ?= npm
NODE    ?= node

# Python tools (moto server, cfn-lint, SAM CLI), pinned in infra/requirements.txt.
VENV        := .venv
VENV_STAMP  := $(VENV)/.stamp-requirements
SAM         := $(VENV)/bin/sam
CFN_LINT    := $(VENV)/bin/cfn-lint
MOTO_SERVER := $(CURDIR)/$(VENV)/bin/moto_server

# SAM CLI: no telemetry, and its settings (with the weekly PyPI version check's timestamp) live
# inside .venv instead of ~/.aws-sam, so sam never reaches for the network on its own.
export SAM_CLI_TELEMETRY := 0
export __SAM_CLI_APP_DIR := $(CURDIR)/$(VENV)/sam-cli

# npm packages for the client compatibility test (test/node/package.json + package-lock.json).
NODE_DIR   := test/node
NPM_STAMP  := $(NODE_DIR)/node_modules/.stamp-lock

# The web dashboard: its npm packages (esbuild, Observable Plot) pinned by web/package-lock.json,
# built by web/build.mjs into shared/dashboard/dist, which the dashboard function embeds
# (go:embed). The built files are not committed: every `make build` makes them first from the
# lock file and web/src (byte-identical for the same commit: `make dashboard-check`).
WEB_DIR         := web
WEB_NPM_STAMP   := $(WEB_DIR)/node_modules/.stamp-lock
DASHBOARD_STAMP := $(WEB_DIR)/.stamp-dist
WEB_SOURCES     := $(WEB_DIR)/build.mjs $(shell find $(WEB_DIR)/src -type f 2>/dev/null)

# The dashboard's browser test: playwright-core (test/dashboard/package-lock.json) driving
# Debian's chromium, which the Makefile installs when missing.
DASHBOARD_TEST_DIR   := test/dashboard
DASHBOARD_TEST_STAMP := $(DASHBOARD_TEST_DIR)/node_modules/.stamp-lock
CHROMIUM             ?= /usr/bin/chromium
CHROMIUM_DEBS        := chromium fonts-dejavu-core

# The Python client compatibility suite: chartmogul (pinned in test/python/requirements.txt)
# and pytest in their own venv, apart from the tools of .venv.
PY_TEST_DIR   := test/python
PY_TEST_VENV  := $(PY_TEST_DIR)/.venv
PY_TEST_STAMP := $(PY_TEST_VENV)/.stamp-requirements

# Lambda runtime interface emulator, built from the Go module proxy for the host.
RIE_VERSION := v0.0.0-20261030222936-bef5c4ba774d
RIE         := .bin/aws-lambda-rie
RIE_STAMP   := .bin/.stamp-rie-$(RIE_VERSION)

# staticcheck, pinned, built from the Go module proxy into .bin/ like aws-lambda-rie above: a
# tool, not a dependency of the module, so go.mod and go mod tidy stay the service's.
STATICCHECK_VERSION := v0.8.2
STATICCHECK         := .bin/staticcheck
STATICCHECK_STAMP   := .bin/.stamp-staticcheck-$(STATICCHECK_VERSION)

# stripe-mock, Stripe's mock of its API generated from its OpenAPI document, pinned and built
# from the Go module proxy into .bin/ like the tools above: the Stripe backfill's tests send
# their requests to it (infra/testkit/stripemock).
STRIPE_MOCK_VERSION := v0.203.0
STRIPE_MOCK         := .bin/stripe-mock
STRIPE_MOCK_STAMP   := .bin/.stamp-stripe-mock-$(STRIPE_MOCK_VERSION)

# Production binaries: Lambda provided.al2023 on arm64 (template.yaml's Architecture
# parameter). LAMBDA_ARCH=x86_64 builds the same functions for x86_64 into bin-x86_64/, for
# `sam local` on an x86_64 machine and the Lambda-parity tests (infra/testkit/rie).
LAMBDA_ARCH ?= arm64
LAMBDA_GOOS := linux
ifeq ($(LAMBDA_ARCH),arm64)
LAMBDA_GOARCH := arm64
BIN           := bin
else ifeq ($(LAMBDA_ARCH),x86_64)
LAMBDA_GOARCH := amd64
BIN           := bin-x86_64
else
$(error LAMBDA_ARCH must be arm64 or x86_64, not $(LAMBDA_ARCH))
endif
GO_BUILD_FLAGS := -trimpath -tags lambda.norpc -ldflags "-s -w"
BUILD_STAMP := $(BIN)/.stamp-build
GO_SOURCES := Makefile go.mod go.sum $(shell find functions shared -type f ! -name '*_test.go' 2>/dev/null)
MAX_BOOTSTRAP_BYTES := 15000000
# Resources of the stack once SAM expands the template (infra/stacksize.py; make lint):
# CloudFormation allows 500, the limit keeps half of them free.
MAX_STACK_RESOURCES := 250

SAM_BUILD_DIR := .aws-sam/build

# LogicalId stem -> function folder: GetAccount -> get-account, CreateCSVImport -> create-csv-import.
kebab = $(shell echo '$(1)' | sed -E 's/([A-Z]+)([A-Z][a-z])/\1-\2/g; s/([a-z0-9])([A-Z])/\1-\2/g' | tr '[:upper:]' '[:lower:]')

.PHONY: bench-stripe-freshness sam-local sam-smoke build run demo test lint lint-go lint-layout lint-template check unit-test fault-test hot-partition-test bench-fairness bench bench-import bench-metrics deploy sizes size-check clean distclean venv npm rie stripe-mock \
        pyclient go-test fuzz api-fuzz staticcheck sam-build node-test python-test dashboard dashboard-check dashboard-test chromium

# ------------------------------------------------------------------ build

build: $(BUILD_STAMP)

# One compiler run for every function; then bin/<folder>/bootstrap. Rebuilt only when a
# non-test Go file under functions/ or shared/ (or go.mod/go.sum) changed, so the
# build-<LogicalId> calls of `sam build` are copies.
$(BUILD_STAMP): $(GO_SOURCES) $(DASHBOARD_STAMP)
	@rm -rf $(BIN).tmp && mkdir -p $(BIN).tmp
	CGO_ENABLED=0 GOOS=$(LAMBDA_GOOS) GOARCH=$(LAMBDA_GOARCH) \
	  $(GO) build $(GO_BUILD_FLAGS) -o $(BIN).tmp/ ./functions/...
	@rm -rf $(BIN) && mkdir -p $(BIN)
	@for f in $(BIN).tmp/*; do n=$$(basename $$f); mkdir -p $(BIN)/$$n; mv $$f $(BIN)/$$n/bootstrap; done
	@rm -rf $(BIN).tmp
	@touch $@
	@echo "built $$(ls $(BIN) | wc -l) functions ($(LAMBDA_GOOS)/$(LAMBDA_GOARCH)) into $(BIN)/<folder>/bootstrap"

# The dashboard's assets, embedded by shared/dashboard (see WEB_DIR above).
dashboard: $(DASHBOARD_STAMP)

$(WEB_NPM_STAMP): $(WEB_DIR)/package.json $(WEB_DIR)/package-lock.json
	cd $(WEB_DIR) && $(NPM) ci --no-audit --no-fund --loglevel=error
	touch $@

$(DASHBOARD_STAMP): $(WEB_NPM_STAMP) $(WEB_SOURCES)
	$(NODE) $(WEB_DIR)/build.mjs
	touch $@

# Builds the assets again into a temporary folder and fails unless they equal the embedded ones.
dashboard-check: $(DASHBOARD_STAMP)
	$(NODE) $(WEB_DIR)/build.mjs --check

# Called by `sam build` with ARTIFACTS_DIR set, e.g. make build-GetAccountFunction.
build-%Function: $(BUILD_STAMP)
	@test -n "$${ARTIFACTS_DIR:-}" || { echo "ARTIFACTS_DIR is not set: this target is for sam build" >&2; exit 1; }
	@test -f $(BIN)/$(call kebab,$*)/bootstrap || { echo "$*Function: no functions/$(call kebab,$*)/main.go" >&2; exit 1; }
	mkdir -p "$$ARTIFACTS_DIR"
	cp $(BIN)/$(call kebab,$*)/bootstrap "$$ARTIFACTS_DIR/bootstrap"

sizes: $(BUILD_STAMP)
	@$(PYTHON) infra/sizes.py $(MAX_BOOTSTRAP_BYTES) $(LAMBDA_GOARCH) $(BIN)/*/bootstrap > $(BIN)/sizes.md; \
	  status=$$?; cat $(BIN)/sizes.md; exit $$status

# The same limit without the zipped sizes (fast; part of make test).
size-check: $(BUILD_STAMP)
	@$(PYTHON) infra/sizes.py --no-zip $(MAX_BOOTSTRAP_BYTES) $(LAMBDA_GOARCH) $(BIN)/*/bootstrap | tail -n 1

# ------------------------------------------------------------------ tools

venv: $(VENV_STAMP)

$(VENV_STAMP): infra/requirements.txt
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --no-input -r infra/requirements.txt
	mkdir -p $(__SAM_CLI_APP_DIR)
	echo '{"telemetryEnabled": false, "lastVersionCheck": 4102444800.0}' > $(__SAM_CLI_APP_DIR)/metadata.json
	touch $@

npm: $(NPM_STAMP)

$(NPM_STAMP): $(NODE_DIR)/package.json $(NODE_DIR)/package-lock.json
	cd $(NODE_DIR) && $(NPM) ci --no-audit --no-fund --loglevel=error
	touch $@

pyclient: $(PY_TEST_STAMP)

$(PY_TEST_STAMP): $(PY_TEST_DIR)/requirements.txt
	rm -rf $(PY_TEST_VENV)
	$(PYTHON) -m venv $(PY_TEST_VENV)
	$(PY_TEST_VENV)/bin/pip install --quiet --disable-pip-version-check --no-input -r $(PY_TEST_DIR)/requirements.txt
	touch $@

rie: $(RIE_STAMP)

staticcheck: $(STATICCHECK_STAMP)
	$(STATICCHECK) ./...

$(STATICCHECK_STAMP):
	rm -f .bin/.stamp-staticcheck-*
	GOBIN=$(CURDIR)/.bin $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	touch $@

stripe-mock: $(STRIPE_MOCK_STAMP)

$(STRIPE_MOCK_STAMP):
	rm -f .bin/.stamp-stripe-mock-*
	GOBIN=$(CURDIR)/.bin $(GO) install github.com/stripe/stripe-mock@$(STRIPE_MOCK_VERSION)
	touch $@

$(RIE_STAMP):
	rm -f .bin/.stamp-rie-*
	GOBIN=$(CURDIR)/.bin $(GO) install github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie@$(RIE_VERSION)
	touch $@

# ------------------------------------------------------------------ run

run: venv $(DASHBOARD_STAMP)
	MOTO_SERVER=$(MOTO_SERVER) $(GO) run ./infra/local

# A generated account of CUSTOMERS customers (default 1,000) loaded into the running `make
# run` (its .local/stack.json) through the HTTP API, with a progress line until the
# metrics have settled (docs/local-stack.md).
CUSTOMERS ?= 1000
demo:
	$(GO) run ./infra/local demo -customers $(CUSTOMERS) $(if $(SOURCE),-source $(SOURCE))

# ------------------------------------------------------------------ sam local

# `sam local start-api` (Docker) against the emulator, resources and demo account of a
# running `make run` (docs/local-stack.md). The functions are built for this machine's
# architecture (template parameter Architecture), the containers reach the emulator at
# SAM_LOCAL_EMULATOR_HOST (Docker's host gateway by default), and --env-vars comes from
# the stack file.
HOST_ARCH               := $(if $(filter aarch64 arm64,$(shell uname -m)),arm64,x86_64)
SAM_LOCAL_ARCH          ?= $(HOST_ARCH)
SAM_LOCAL_PORT          ?= 3001
SAM_LOCAL_STACK         ?= .local/stack.json
SAM_LOCAL_EMULATOR_HOST ?= host.docker.internal
SAM_LOCAL_ADD_HOST      ?= host.docker.internal:host-gateway
SAM_LOCAL_DIR           := .aws-sam/local-$(SAM_LOCAL_ARCH)

sam-local: venv
	@test -f $(SAM_LOCAL_STACK) || { echo "no $(SAM_LOCAL_STACK): start make run (in another terminal) first" >&2; exit 1; }
	LAMBDA_ARCH=$(SAM_LOCAL_ARCH) $(SAM) build --template template.yaml --build-dir $(SAM_LOCAL_DIR) \
	  --parameter-overrides Architecture=$(SAM_LOCAL_ARCH)
	@umask 077 && $(GO) run ./infra/samlocal env-vars -stack $(SAM_LOCAL_STACK) \
	  -emulator-host $(SAM_LOCAL_EMULATOR_HOST) > $(SAM_LOCAL_DIR)/env-vars.json
	$(SAM) local start-api --template $(SAM_LOCAL_DIR)/template.yaml --env-vars $(SAM_LOCAL_DIR)/env-vars.json \
	  --parameter-overrides Architecture=$(SAM_LOCAL_ARCH) --host 127.0.0.1 --port $(SAM_LOCAL_PORT) \
	  --warm-containers LAZY $(if $(SAM_LOCAL_ADD_HOST),--add-host $(SAM_LOCAL_ADD_HOST)) $(SAM_LOCAL_FLAGS)

# ------------------------------------------------------------------ test

# The linters first: they take about a minute and fail fast; each later step installs what it
# needs.
test: venv
	$(MAKE) lint
	$(MAKE) go-test
	$(MAKE) fuzz
	$(MAKE) sam-build
	$(MAKE) size-check
	$(MAKE) node-test
	$(MAKE) python-test
	$(MAKE) api-fuzz
	$(MAKE) dashboard-test
	$(MAKE) sam-smoke

# Unit tests, integration tests against moto (infra/testkit/testenv starts one per test binary) and the
# Lambda-parity tests: every function's real bootstrap under the runtime interface emulator
# (infra/testkit/rie, which runs `make build LAMBDA_ARCH=<this machine's>`).
# A package may take longer than go test's default 10 minutes on a loaded host (infra/local
# runs whole stacks, the fault-injection import among them): 30. Three packages at once on
# two cores: most of a package's time is spent waiting for its emulator or its stack.
GO_TEST_PACKAGES ?= 3
go-test: venv rie stripe-mock $(DASHBOARD_STAMP)
	MOTO_SERVER=$(MOTO_SERVER) RIE_BIN=$(CURDIR)/$(RIE) STRIPE_MOCK=$(CURDIR)/$(STRIPE_MOCK) $(GO) test -count=1 -p $(GO_TEST_PACKAGES) -timeout 30m ./...

# Go native fuzzing, a short run of each target (the seed corpora in testdata/fuzz also run
# in go-test): the body decoder, the cursor decoder, the json_imports validation.
# FUZZ_TIME per target; what it finds goes to testdata/fuzz and fails the run.
FUZZ_TIME    ?= 10s
FUZZ_TARGETS := ./shared/jsonbody:FuzzDecode ./shared/cursor:FuzzDecode ./shared/model:FuzzParseImport

fuzz:
	@for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; name=$${t##*:}; \
	  echo "fuzz $$pkg $$name for $(FUZZ_TIME)"; \
	  $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZ_TIME) -parallel 2 $$pkg || exit 1; done

# Without Docker: every function is a Makefile build in the source folder (samconfig.toml).
sam-build: venv $(BUILD_STAMP)
	$(SAM) build --template template.yaml --build-dir $(SAM_BUILD_DIR)
	@for f in $(SAM_BUILD_DIR)/*Function; do test -s $$f/bootstrap || { echo "$$f/bootstrap missing" >&2; exit 1; }; done
	@echo "sam build: $$(ls -d $(SAM_BUILD_DIR)/*Function | wc -l) functions"

# The official clients, unmodified, against the local stack, every response validated
# against docs/openapi.yaml (test/with-stack.sh): chartmogul-node 3.12.3 and chartmogul 4.11.0.
node-test: venv npm
	MOTO_SERVER=$(MOTO_SERVER) bash $(NODE_DIR)/run.sh

python-test: venv pyclient
	MOTO_SERVER=$(MOTO_SERVER) bash $(PY_TEST_DIR)/run.sh

# Property-based HTTP fuzzing of the local stack from docs/openapi.yaml (test/fuzz/run.sh):
# schemathesis pinned in test/fuzz/requirements.txt, a fixed seed and number of examples per
# operation; fails on any 5xx, a response slower than the functions' 10 s timeout, or a
# response whose content type the document does not allow.
FUZZ_SEED     ?= 18
FUZZ_EXAMPLES ?= 10
api-fuzz: venv $(DASHBOARD_STAMP)
	MOTO_SERVER=$(MOTO_SERVER) FUZZ_SEED=$(FUZZ_SEED) FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) bash test/fuzz/run.sh

# The dashboard in headless Chromium against the local stack (test/dashboard/README.md): the
# script's unit tests, the reproducible build, then the browser test; screenshots of each
# page (light, dark, phone width) go to test/dashboard/screenshots/.
dashboard-test: venv chromium $(DASHBOARD_TEST_STAMP) $(DASHBOARD_STAMP)
	$(NODE) --test $(WEB_DIR)/test/
	$(NODE) $(WEB_DIR)/build.mjs --check
	MOTO_SERVER=$(MOTO_SERVER) CHROMIUM=$(CHROMIUM) bash $(DASHBOARD_TEST_DIR)/run.sh

$(DASHBOARD_TEST_STAMP): $(DASHBOARD_TEST_DIR)/package.json $(DASHBOARD_TEST_DIR)/package-lock.json
	cd $(DASHBOARD_TEST_DIR) && $(NPM) ci --no-audit --no-fund --loglevel=error
	touch $@

# Debian's chromium (and a font), installed when missing; needs root, as apt-get does.
chromium:
	@test -x $(CHROMIUM) || { echo "chromium: installing $(CHROMIUM_DEBS)"; bash infra/samlocal/install-debs.sh $(CHROMIUM_DEBS); }

# SAM CLI's local commands on this machine (infra/samlocal TestSAMLocalSmoke): `make sam-local`
# on a private dockerd without bridge or packet filtering, with stand-in Lambda base images.
# Installs Debian's docker.io and busybox-static when missing. Needs root; SAM_SMOKE=0 skips it.
SAM_SMOKE      ?= 1
SAM_SMOKE_DEBS := docker.io busybox-static

sam-smoke: venv rie
ifeq ($(SAM_SMOKE),1)
	@missing=$$(for p in $(SAM_SMOKE_DEBS); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	  if [ -n "$$missing" ]; then echo "sam-smoke: installing" $$missing; bash infra/samlocal/install-debs.sh $$missing; fi
	SAM_SMOKE=1 MOTO_SERVER=$(MOTO_SERVER) $(GO) test -count=1 -timeout 20m -v -run '^TestSAMLocalSmoke$$' ./infra/samlocal
else
	@echo "sam-smoke: skipped (SAM_SMOKE=$(SAM_SMOKE))"
endif

# The fault-injection import at full size (infra/local TestImportUnderFaults; make test runs
# it at 50 customers): 1,000 customers imported and recomputed with 10 % of the DynamoDB
# request attempts failing, against the same import without faults (docs/benchmarks.md).
fault-test: venv
	MOTO_SERVER=$(MOTO_SERVER) FAULT_TEST_CUSTOMERS=$${FAULT_TEST_CUSTOMERS:-1000} \
	  $(GO) test -count=1 -timeout 60m -v -run '^TestImportUnderFaults$$' ./infra/local

# A hot partition for a minute during an import (infra/local TestImportUnderHotPartition;
# make test runs it with a 5-second window): every request touching it is throttled.
hot-partition-test: venv
	MOTO_SERVER=$(MOTO_SERVER) FAULT_TEST_CUSTOMERS=$${FAULT_TEST_CUSTOMERS:-200} HOT_PARTITION_SECONDS=$${HOT_PARTITION_SECONDS:-60} \
	  $(GO) test -count=1 -timeout 60m -v -run '^TestImportUnderHotPartition$$' ./infra/local
# The import lanes' fairness at full size (infra/local TestFairLanes; make test runs it at
# A = 400, B = 20): account B imports 200 customers alone, then beside account A's 3,000
# started 5 s before; B must complete first (docs/benchmarks.md, "Fair lanes").
bench-fairness: venv
	MOTO_SERVER=$(MOTO_SERVER) FAIRNESS_A=$${FAIRNESS_A:-3000} FAIRNESS_B=$${FAIRNESS_B:-200} \
	  $(GO) test -count=1 -timeout 60m -v -run '^TestFairLanes$$' ./infra/local

# The Stripe webhook-to-metrics freshness on the running `make run`: STRIPE_FRESHNESS_SAMPLES
# new customers (default 30), one at a time, each timed from the 200 of its invoice.paid
# delivery to today's MRR holding it; p50 and p95 (docs/benchmarks.md, "Stripe webhooks").
bench-stripe-freshness:
	$(GO) run ./infra/local stripe-freshness -samples $${STRIPE_FRESHNESS_SAMPLES:-30}

bench: venv
	MOTO_SERVER=$(MOTO_SERVER) IMPORT_BENCH_CUSTOMERS=$${IMPORT_BENCH_CUSTOMERS:-100} \
	  METRICS_BENCH_SIZES=$${METRICS_BENCH_SIZES:-100,1000} \
	  $(GO) test -count=1 -timeout 60m -run '^$$' -bench . -benchmem ./...

# The import benchmark: 1,000 customers x 12 invoices (IMPORT_BENCH_CUSTOMERS) by HTTP through
# the local stack (json_imports, S3, SQS FIFO, import worker) with the customers'
# recomputations (IMPORT_BENCH_RECOMPUTE=0 leaves them out): write units and requests per
# record against the minimum, CPU per record, the heat meter's hottest keys and projected
# customers per second per account on DynamoDB, the cost of a million records, the time per
# customer with the emulator's CPU time and memory, and the emulator's raw BatchWriteItem
# throughput for information (docs/benchmarks.md). IMPORT_BENCH_READER_RPS=10 reads the
# account beside the import and reports the reads' latency; IMPORT_BENCH_TIMEOUT bounds the
# run (10,000 customers take most of an hour on two cores).
bench-import: venv
	MOTO_SERVER=$(MOTO_SERVER) IMPORT_BENCH_CUSTOMERS=$${IMPORT_BENCH_CUSTOMERS:-1000} \
	  $(GO) test -count=1 -run '^$$' -bench ImportThroughLocalStack -benchtime 1x -timeout $${IMPORT_BENCH_TIMEOUT:-180m} ./infra/local

# The Metrics API benchmark at full size: every endpoint x interval over two years, by
# HTTP through the local stack (router, authorizer, handlers, moto), for 1,000 and 10,000
# customers; p50/p95 latency and the DynamoDB reads of one request (docs/benchmarks.md). Each
# case samples for METRICS_BENCH_TIME (moto answers a 10,000-customer request in seconds).
bench-metrics: venv
	MOTO_SERVER=$(MOTO_SERVER) METRICS_BENCH_SIZES=$${METRICS_BENCH_SIZES:-1000,10000} \
	  $(GO) test -count=1 -run '^$$' -bench MetricsHTTP -benchtime $${METRICS_BENCH_TIME:-30s} -timeout 180m ./infra/local

# ------------------------------------------------------------------ lint

GO_FILES = $(shell find . -name '*.go' -not -path './.venv/*' -not -path './.aws-sam/*' \
             -not -path '*/node_modules/*' -not -path './.bin/*' -not -path './bin/*')

# The Go linters and the template's in parallel (the Python tools are single-threaded).
lint: venv $(STATICCHECK_STAMP)
	$(MAKE) -j2 --output-sync=target lint-go lint-template

lint-go: $(STATICCHECK_STAMP) lint-layout
	@out=$$(gofmt -l $(GO_FILES)); if [ -n "$$out" ]; then echo "gofmt -l:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) mod tidy -diff
	$(STATICCHECK) ./...
	$(GO) run ./infra/stackgen -check

# The layout's rules (docs/architecture.md): no non-test package under shared/ imports
# infra/; the storage contract names no key; an operation family reaches the store only
# through its own Storage (storage.go).
lint-layout:
	@out=$$($(GO) list -f '{{.ImportPath}} {{join .Imports " "}}' ./shared/... | grep ' github.com/subsight/subsight/infra/' || true); \
	  if [ -n "$$out" ]; then echo "shared/ imports infra/:"; echo "$$out"; exit 1; fi
	@out=$$(grep -n 'keys\.' $$(ls shared/store/*.go | grep -v _test.go) || true); \
	  if [ -n "$$out" ]; then echo "the storage contract names keys:"; echo "$$out"; exit 1; fi
	@out=$$(grep -n 'd\.Store\b' $$(ls shared/api/*/*.go | grep -v -e _test.go -e /storage.go) || true); \
	  if [ -n "$$out" ]; then echo "an operation reaches the store outside its family's Storage:"; echo "$$out"; exit 1; fi

# cfn-lint with its own rules and the serverless rules (cfn-lint-serverless); template.yaml
# names the rules it declines with their reasons (cfn-lint Metadata ignore_checks).
lint-template: venv
	$(VENV)/bin/python infra/stacksize.py $(MAX_STACK_RESOURCES) template.yaml
	$(CFN_LINT) template.yaml --append-rules cfn_lint_serverless.rules
	$(SAM) validate --lint --template template.yaml --region us-east-1

# ------------------------------------------------------------------ fast tier

# make check: the linters and the unit tests, without the emulator, the runtime interface
# emulator or Docker (MOTO_SERVER=none: tests that need moto skip, saying make test runs
# them), all three at once; under two minutes on two cores (README.md).
check: venv $(STATICCHECK_STAMP)
	$(MAKE) -j3 --output-sync=target lint-go lint-template unit-test

unit-test:
	MOTO_SERVER=none RIE_BIN= SAM_SMOKE=0 $(GO) test -count=1 ./...

# ------------------------------------------------------------------ deploy (never run in CI)

deploy: sam-build
	$(SAM) deploy --template-file $(SAM_BUILD_DIR)/template.yaml

# ------------------------------------------------------------------ clean

clean:
	rm -rf bin bin.tmp bin-x86_64 bin-x86_64.tmp .aws-sam $(DASHBOARD_STAMP) $(DASHBOARD_TEST_DIR)/screenshots
	find shared/dashboard/dist -mindepth 1 ! -name .keep -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) .bin $(NODE_DIR)/node_modules $(PY_TEST_VENV) .local $(WEB_DIR)/node_modules $(DASHBOARD_TEST_DIR)/node_modules
