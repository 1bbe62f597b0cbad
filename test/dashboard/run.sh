#!/usr/bin/env bash
# The dashboard in a real browser: Debian's Chromium ($CHROMIUM, default /usr/bin/chromium)
# driven by playwright-core against the whole local stack (test/with-stack.sh: every API
# response the page receives is validated against docs/openapi.yaml on the way).
#
#   bash test/dashboard/run.sh
#
# Needs the dashboard's assets built (make dashboard) and chromium installed (make
# chromium); `make dashboard-test` does both. Screenshots go to test/dashboard/screenshots/.
# Environment: as test/with-stack.sh (PORT, LOCAL_API_KEY, MOTO_SERVER, KEEP_LOGS), CHROMIUM.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ ! -f "$here/node_modules/playwright-core/package.json" ]]; then
  echo "run.sh: installing test/dashboard dependencies (npm ci)" >&2
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi
exec bash "$here/../with-stack.sh" node --test --test-reporter=spec "$here/dashboard.test.mjs"
