# Subsight: the single entry point for developers, CI (.ci/run) and `sam build`.
#
#   make run     the whole service on one machine (moto + API on 127.0.0.1:$${PORT:-3000})
#   make test    unit + integration tests, template checks, sam build, client compatibility
#   make lint    gofmt, go vet, go mod tidy drift, cfn-lint, sam validate --lint
#   make build   every function's arm64 bootstrap, in one go build, into bin/<folder>/bootstrap
#   make bench   Go benchmarks (make bench-import, make bench-metrics: full-size runs)
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

# Lambda runtime interface emulator, built from the Go module proxy for the host.
RIE_VERSION := v0.0.0-20261030222936-bef5c4ba774d
RIE         := .bin/aws-lambda-rie
RIE_STAMP   := .bin/.stamp-rie-$(RIE_VERSION)

# Production binaries: Lambda provided.al2023 on arm64.
LAMBDA_GOOS   := linux
LAMBDA_GOARCH := arm64
GO_BUILD_FLAGS := -trimpath -tags lambda.norpc -ldflags "-s -w"
BIN        := bin
BUILD_STAMP := $(BIN)/.stamp-build
GO_SOURCES := Makefile go.mod go.sum $(shell find functions shared -type f ! -name '*_test.go' 2>/dev/null)
MAX_BOOTSTRAP_BYTES := 15000000

SAM_BUILD_DIR := .aws-sam/build

# LogicalId stem -> function folder: GetAccount -> get-account, CreateCSVImport -> create-csv-import.
kebab = $(shell echo '$(1)' | sed -E 's/([A-Z]+)([A-Z][a-z])/\1-\2/g; s/([a-z0-9])([A-Z])/\1-\2/g' | tr '[:upper:]' '[:lower:]')

.PHONY: build run test lint bench bench-import bench-metrics deploy sizes size-check clean distclean venv npm rie \
        go-test template-check sam-build node-test

# ------------------------------------------------------------------ build

build: $(BUILD_STAMP)

# One compiler run for every function; then bin/<folder>/bootstrap. Rebuilt only when a
# non-test Go file under functions/ or shared/ (or go.mod/go.sum) changed, so the
# build-<LogicalId> calls of `sam build` are copies.
$(BUILD_STAMP): $(GO_SOURCES)
	@rm -rf $(BIN).tmp && mkdir -p $(BIN).tmp
	CGO_ENABLED=0 GOOS=$(LAMBDA_GOOS) GOARCH=$(LAMBDA_GOARCH) \
	  $(GO) build $(GO_BUILD_FLAGS) -o $(BIN).tmp/ ./functions/...
	@rm -rf $(BIN) && mkdir -p $(BIN)
	@for f in $(BIN).tmp/*; do n=$$(basename $$f); mkdir -p $(BIN)/$$n; mv $$f $(BIN)/$$n/bootstrap; done
	@rm -rf $(BIN).tmp
	@touch $@
	@echo "built $$(ls $(BIN) | wc -l) functions ($(LAMBDA_GOOS)/$(LAMBDA_GOARCH)) into $(BIN)/<folder>/bootstrap"

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

rie: $(RIE_STAMP)

$(RIE_STAMP):
	rm -f .bin/.stamp-rie-*
	GOBIN=$(CURDIR)/.bin $(GO) install github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie@$(RIE_VERSION)
	touch $@

# ------------------------------------------------------------------ run

run: venv
	MOTO_SERVER=$(MOTO_SERVER) $(GO) run ./infra/local

# ------------------------------------------------------------------ test

test: venv npm rie
	$(MAKE) go-test
	$(MAKE) template-check
	$(MAKE) sam-build
	$(MAKE) size-check
	$(MAKE) node-test

# Unit tests, integration tests against moto (infra/testenv starts one per test binary) and the
# runtime-interface-emulator test of a real bootstrap (infra/rie).
go-test: venv rie
	MOTO_SERVER=$(MOTO_SERVER) RIE_BIN=$(CURDIR)/$(RIE) $(GO) test -count=1 ./...

template-check: venv
	$(CFN_LINT) template.yaml
	$(SAM) validate --lint --template template.yaml --region us-east-1

# Without Docker: every function is a Makefile build in the source folder (samconfig.toml).
sam-build: venv $(BUILD_STAMP)
	$(SAM) build --template template.yaml --build-dir $(SAM_BUILD_DIR)
	@for f in $(SAM_BUILD_DIR)/*Function; do test -s $$f/bootstrap || { echo "$$f/bootstrap missing" >&2; exit 1; }; done
	@echo "sam build: $$(ls -d $(SAM_BUILD_DIR)/*Function | wc -l) functions"

# The official Node client (chartmogul-node 3.12.3), unmodified, against the local stack.
node-test: venv npm
	MOTO_SERVER=$(MOTO_SERVER) bash $(NODE_DIR)/run.sh

bench: venv
	MOTO_SERVER=$(MOTO_SERVER) IMPORT_BENCH_CUSTOMERS=$${IMPORT_BENCH_CUSTOMERS:-100} \
	  METRICS_BENCH_SIZES=$${METRICS_BENCH_SIZES:-100,1000} \
	  $(GO) test -count=1 -timeout 60m -run '^$$' -bench . -benchmem ./...

# The import benchmark at full size: 1,000 customers x 12 invoices by HTTP through the
# local stack (json_imports, S3, SQS FIFO, import worker), against the raw BatchWriteItem
# throughput of the same emulator (docs/benchmarks.md).
bench-import: venv
	MOTO_SERVER=$(MOTO_SERVER) IMPORT_BENCH_CUSTOMERS=$${IMPORT_BENCH_CUSTOMERS:-1000} \
	  $(GO) test -count=1 -run '^$$' -bench ImportThroughLocalStack -benchtime 1x -timeout 60m ./infra/local

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

lint: venv
	@out=$$(gofmt -l $(GO_FILES)); if [ -n "$$out" ]; then echo "gofmt -l:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) mod tidy -diff
	$(CFN_LINT) template.yaml
	$(SAM) validate --lint --template template.yaml --region us-east-1

# ------------------------------------------------------------------ deploy (never run in CI)

deploy: sam-build
	$(SAM) deploy --template-file $(SAM_BUILD_DIR)/template.yaml

# ------------------------------------------------------------------ clean

clean:
	rm -rf $(BIN) $(BIN).tmp .aws-sam

distclean: clean
	rm -rf $(VENV) .bin $(NODE_DIR)/node_modules .local
