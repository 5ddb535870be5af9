#!/usr/bin/env bash
# `npm test`: installs what the suite needs, then checks the formatting, the contracts, the types and the lint,
# and runs every project's tests through nx. nx caches each task by its inputs (.nx/cache): a fresh clone runs
# everything, a second run only what changed since (NX_SKIP_NX_CACHE=true runs everything anyway).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_node_modules
ensure_nats_server
ensure_kubectl
ensure_chromium
TEST_DATABASE_URL=$(ensure_postgres)
export TEST_DATABASE_URL
export NATS_SERVER_BIN
NATS_SERVER_BIN=$(nats_server_bin)

rm -rf .test-results
mkdir -p .test-results
log "buf lint (contracts)"
npx buf lint
log "format (prettier --check; npm run format writes it), typecheck and lint of the whole tree"
npx nx run-many -t format-check typecheck lint --parallel=2 --outputStyle=stream
log "tests"
status=0
npx nx run-many -t test --parallel=1 --outputStyle=stream || status=$?
node scripts/test-summary.mjs .test-results || status=1
exit $status
