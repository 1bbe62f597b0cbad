#!/usr/bin/env bash
# Client compatibility test: the official ChartMogul Python client (chartmogul 4.11.0,
# test/python/requirements.txt), unmodified (only its base URL changes), against the
# whole local stack, every response validated against docs/openapi.yaml
# (test/with-stack.sh).
#
#   bash test/python/run.sh                          every test_*.py file
#   bash test/python/run.sh test_customers.py -k tag pytest arguments (files relative to test/python)
#
# Environment: as test/with-stack.sh (PORT, LOCAL_API_KEY, MOTO_SERVER, KEEP_LOGS).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
venv="$here/.venv"

if [[ ! -x "$venv/bin/pytest" ]]; then
  echo "run.sh: installing test/python dependencies into test/python/.venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$here/requirements.txt"
fi

args=()
for a in "$@"; do  # a file name relative to test/python, else a pytest argument as given
  if [[ "$a" != -* && -f "$here/${a%%::*}" ]]; then args+=("$here/$a"); else args+=("$a"); fi
done
((${#args[@]})) || args=("$here")

exec bash "$here/../with-stack.sh" "$venv/bin/pytest" -p no:cacheprovider -rfE "${args[@]}"
