#!/usr/bin/env bash
# Runs a client suite against the whole local stack (infra/local) with every response
# validated against docs/openapi.yaml: the suite talks to infra/apiproxy, which forwards
# to the stack and turns a response that breaks the document into a 502 naming the
# violation (and fails this script even if the suite swallowed it).
#
#   bash test/with-stack.sh CMD [ARGS...]
#
# CMD runs from the repository root with SUBSIGHT_BASE_URL (the proxy), SUBSIGHT_API_KEY,
# SUBSIGHT_STACK_FILE and SUBSIGHT_ADMIN_BIN set. Environment: PORT (the stack's port;
# default: a free one), LOCAL_API_KEY (default: random), MOTO_SERVER (default:
# .venv/bin/moto_server), KEEP_LOGS=1 to print the stack's log even on success,
# OPENAPI_SPEC=FILE to validate against another document, OPENAPI_REPORT=FILE to keep the proxy's JSON report, OPENAPI_OBSERVE=1 to pass
# violating responses through unchanged (drafting a new route's schema). Exits with CMD's status, or 1
# when CMD passed but a response broke the document.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
(($#)) || { echo "usage: test/with-stack.sh CMD [ARGS...]" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/subsight-clients.XXXXXX")
# infra/local always writes .local/stack.json; a developer's own stack file (make run in
# another terminal) is put aside and restored on exit.
stack_file="$root/.local/stack.json"
stack_pid=""
proxy_pid=""
status=1

stop_group() {  # stop_group PID: SIGTERM to the process group, up to 10 s, then SIGKILL
  local pid=$1
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM -- "-$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL -- "-$pid" 2>/dev/null || true
}

cleanup() {
  if [[ -n "$proxy_pid" ]]; then stop_group "$proxy_pid"; wait "$proxy_pid" 2>/dev/null || true; fi
  stop_group "$stack_pid"
  [[ -n "$stack_pid" ]] && { wait "$stack_pid" 2>/dev/null || true; }
  if [[ -f "$work/stack.json.saved" ]]; then
    mv -f "$work/stack.json.saved" "$stack_file"
  elif [[ -n "$stack_pid" ]]; then
    rm -f "$stack_file"
  fi
  if [[ "$status" != 0 || "${KEEP_LOGS:-}" == 1 ]] && [[ -s "$work/stack.log" ]]; then
    echo "---- local stack log (last 100 lines) ----" >&2
    tail -n 100 "$work/stack.log" >&2
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Build once: the stack, the admin command the suites call, the validating proxy.
go build -o "$work/local" ./infra/local
go build -o "$work/admin" ./infra/admin
go build -o "$work/apiproxy" ./infra/apiproxy

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=${PORT:-$(free_port)}
api_key=${LOCAL_API_KEY:-clienttest_$(python3 -c 'import secrets; print(secrets.token_hex(16))')}
if [[ -f "$stack_file" ]]; then mv "$stack_file" "$work/stack.json.saved"; fi

# Each in its own process group (setsid), so that stopping the stack also stops moto
# and the pollers.
# The suites make their own data: no demo portfolio (LOCAL_DEMO_DATA=1 keeps it).
PORT=$port LOCAL_API_KEY=$api_key LOCAL_DEMO_DATA=${LOCAL_DEMO_DATA:-0} setsid "$work/local" >"$work/stack.log" 2>&1 &
stack_pid=$!

# Ready when the stack file is written and GET /v1/ping answers (the key's own ping
# comes after the limit is raised below: the router caches the authorizer's answer, with
# the limit in it, for a minute as API Gateway does).
ping() { # ping KEY WANT: wait until GET /v1/ping with KEY ("" for none) answers WANT
python3 - "$stack_file" "http://127.0.0.1:$port" "$1" "$stack_pid" "$2" <<'PY'
import base64, os, sys, time, urllib.error, urllib.request
file, base, key, pid, want = sys.argv[1:]
headers = {"Authorization": "Basic " + base64.b64encode((key + ":").encode()).decode()} if key else {}
deadline, last = time.time() + 60, "no answer"
while time.time() < deadline:
    try:
        os.kill(int(pid), 0)
    except OSError:
        sys.exit("with-stack.sh: the local stack exited during start-up")
    if os.path.exists(file):
        try:
            with urllib.request.urlopen(urllib.request.Request(base + "/v1/ping", headers=headers), timeout=5) as r:
                status = r.status
        except urllib.error.HTTPError as e:
            status = e.code
        except Exception as e:  # not listening yet, or not ready
            status, last = None, str(e)
        if status == int(want):
            sys.exit(0)
        if status is not None:
            last = f"status {status}"
    time.sleep(0.25)
sys.exit(f"with-stack.sh: the local stack was not ready within 60 s (last ping: {last})")
PY
}
ping "" 401

# The suites drive the demo account faster than the production 40 requests a second
# (schemathesis with two workers, tight client loops): raise its limit for the run, as
# docs/local-stack.md describes. Accounts the suites create raise their own.
account_id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["account_id"])' "$stack_file")
"$work/admin" -local set-limit -account "$account_id" -name requests_per_second -value 100000 >/dev/null
ping "$api_key" 200

setsid "$work/apiproxy" ${OPENAPI_OBSERVE:+-observe} ${OPENAPI_SPEC:+-spec "$OPENAPI_SPEC"} -upstream "http://127.0.0.1:$port" -ready "$work/proxy.url" \
  -report "${OPENAPI_REPORT:-$work/openapi-report.json}" 2>"$work/proxy.log" &
proxy_pid=$!
for _ in $(seq 1 100); do [[ -s "$work/proxy.url" ]] && break; sleep 0.1; done
[[ -s "$work/proxy.url" ]] || { echo "with-stack.sh: the validating proxy did not start" >&2; cat "$work/proxy.log" >&2; exit 1; }

set +e
SUBSIGHT_BASE_URL=$(cat "$work/proxy.url") SUBSIGHT_API_KEY="$api_key" \
SUBSIGHT_STACK_FILE="$stack_file" SUBSIGHT_ADMIN_BIN="$work/admin" "$@"
status=$?
kill -TERM "$proxy_pid" 2>/dev/null
wait "$proxy_pid"
proxy_status=$?
proxy_pid=""
set -e
cat "$work/proxy.log" >&2
if [[ "$status" == 0 && "$proxy_status" != 0 ]]; then
  echo "with-stack.sh: the suite passed, but responses broke docs/openapi.yaml (above)" >&2
  status=1
fi
exit "$status"
