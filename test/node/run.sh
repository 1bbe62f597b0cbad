#!/usr/bin/env bash
# Client compatibility test: the official chartmogul-node 3.12.3, unmodified (only its
# base URL changes), against the whole local stack, every response validated against
# docs/openapi.yaml (test/with-stack.sh).
#
#   bash test/node/run.sh                      every *.test.mjs file
#   bash test/node/run.sh foundation.test.mjs  some files (names relative to test/node)
#
# Environment: as test/with-stack.sh (PORT, LOCAL_API_KEY, MOTO_SERVER, KEEP_LOGS).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

files=()
for f in "$@"; do  # a path from the caller's directory, else a name relative to test/node
  if [[ -f "$f" ]]; then files+=("$(cd "$(dirname "$f")" && pwd)/$(basename "$f")"); else files+=("$here/$f"); fi
done
((${#files[@]})) || files=("$here"/*.test.mjs)

if [[ ! -f "$here/node_modules/chartmogul-node/package.json" ]]; then
  echo "run.sh: installing test/node dependencies (npm ci)" >&2
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi

exec bash "$here/../with-stack.sh" node --test --test-reporter=spec "${files[@]}"
