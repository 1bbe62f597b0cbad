#!/usr/bin/env bash
# Property-based HTTP fuzzing: schemathesis (pinned in test/fuzz/requirements.txt, in its own
# venv) generates requests from docs/openapi.yaml and sends them to the whole local stack
# (test/with-stack.sh), straight to the stack rather than through the validating proxy, since
# most generated requests are invalid on purpose. It fails on any 5xx, any response slower
# than the functions' timeout, and any response that is not JSON where the document says JSON.
#
# Environment: FUZZ_SEED (default 18), FUZZ_EXAMPLES per operation (default 4),
# FUZZ_TIMEOUT seconds (default 10, template.yaml's function Timeout), plus those of
# test/with-stack.sh.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
venv="$here/.venv"
stamp="$venv/.stamp-requirements"

if [[ ! -f "$stamp" || "$here/requirements.txt" -nt "$stamp" ]]; then
  echo "run.sh: installing test/fuzz dependencies into test/fuzz/.venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$here/requirements.txt"
  touch "$stamp"
fi

if [[ "${1:-}" != "--inside" ]]; then
  exec bash "$here/../with-stack.sh" bash "$here/run.sh" --inside
fi

base=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["base_url"])' "$SUBSIGHT_STACK_FILE")
auth=$(python3 -c 'import base64,sys; print("Basic " + base64.b64encode((sys.argv[1] + ":").encode()).decode())' "$SUBSIGHT_API_KEY")
start=$(date +%s)
"$venv/bin/schemathesis" run docs/openapi.yaml --url "$base" \
  --header "Authorization: $auth" \
  --seed "${FUZZ_SEED:-18}" --max-examples "${FUZZ_EXAMPLES:-4}" \
  --phases examples,fuzzing --workers 2 --no-color \
  --checks not_a_server_error,content_type_conformance \
  --max-response-time "${FUZZ_TIMEOUT:-10}" \
  --request-timeout "${FUZZ_TIMEOUT:-10}"
echo "api fuzz: seed ${FUZZ_SEED:-18}, ${FUZZ_EXAMPLES:-4} examples per operation, $(( $(date +%s) - start )) s"
