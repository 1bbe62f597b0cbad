#!/usr/bin/env bash
# Client compatibility test: the official chartmogul-node 3.12.3, unmodified (only its
# base URL changes), against the whole local stack (infra/local) on a free port.
#
#   bash test/node/run.sh                      every *.test.mjs file
#   bash test/node/run.sh foundation.test.mjs  some files (names relative to test/node)
#
# Environment: PORT (default: a free one), LOCAL_API_KEY (default: random), MOTO_SERVER
# (default: .venv/bin/moto_server, see infra/emulator), KEEP_LOGS=1 to print the stack's
# log even on success. Exits with node --test's status.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

files=()
for f in "$@"; do  # a path from the caller's directory, else a name relative to test/node
  if [[ -f "$f" ]]; then files+=("$(cd "$(dirname "$f")" && pwd)/$(basename "$f")"); else files+=("$here/$f"); fi
done
((${#files[@]})) || files=("$here"/*.test.mjs)
cd "$root"

if [[ ! -f "$here/node_modules/chartmogul-node/package.json" ]]; then
  echo "run.sh: installing test/node dependencies (npm ci)" >&2
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/subsight-node-test.XXXXXX")
# infra/local always writes .local/stack.json; a developer's own stack file (make run in
# another terminal) is put aside below and restored on exit.
stack_file="$root/.local/stack.json"
stack_pid=""
status=1

stop_stack() {
  if [[ -n "$stack_pid" ]] && kill -0 "$stack_pid" 2>/dev/null; then
    kill -TERM -- "-$stack_pid" 2>/dev/null || true
    for _ in $(seq 1 100); do  # up to 10 s for a clean shutdown (moto included)
      kill -0 "$stack_pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL -- "-$stack_pid" 2>/dev/null || true
    wait "$stack_pid" 2>/dev/null || true
  fi
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
trap stop_stack EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Build once: the stack and the admin command the tests call (SUBSIGHT_ADMIN_BIN).
go build -o "$work/local" ./infra/local
go build -o "$work/admin" ./infra/admin

port=${PORT:-$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')}
api_key=${LOCAL_API_KEY:-nodetest_$(node -e 'console.log(require("crypto").randomBytes(16).toString("hex"))')}
if [[ -f "$stack_file" ]]; then mv "$stack_file" "$work/stack.json.saved"; fi

# Its own process group (setsid), so that stopping it also stops moto and the pollers.
PORT=$port LOCAL_API_KEY=$api_key setsid "$work/local" >"$work/stack.log" 2>&1 &
stack_pid=$!

# Ready when the stack file is written and GET /v1/ping answers 200 with the key.
node - "$stack_file" "http://127.0.0.1:$port" "$api_key" "$stack_pid" <<'JS'
const fs = require('node:fs');
const [file, base, key, pid] = process.argv.slice(2);
const deadline = Date.now() + 60000;
const auth = 'Basic ' + Buffer.from(key + ':').toString('base64');
(async () => {
  let last = 'no answer';
  while (Date.now() < deadline) {
    try { process.kill(Number(pid), 0); } catch { console.error('run.sh: the local stack exited during start-up'); process.exit(1); }
    if (fs.existsSync(file)) {
      try {
        const res = await fetch(base + '/v1/ping', { headers: { authorization: auth } });
        last = `${res.status} ${await res.text()}`;
        if (res.status === 200) process.exit(0);
      } catch (err) { last = err.cause?.code || err.message; }
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  console.error(`run.sh: the local stack was not ready within 60 s (last ping: ${last})`);
  process.exit(1);
})();
JS

set +e
SUBSIGHT_BASE_URL="http://127.0.0.1:$port" SUBSIGHT_API_KEY="$api_key" \
SUBSIGHT_STACK_FILE="$stack_file" SUBSIGHT_ADMIN_BIN="$work/admin" \
  node --test --test-reporter=spec "${files[@]}"
status=$?
set -e
exit "$status"
