#!/usr/bin/env bash
# `npm test`: installs what the suite needs, then type-checks, lints and tests every project through nx.
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
log "typecheck and lint"
npx nx run-many -t typecheck lint --parallel=2 --skip-nx-cache --outputStyle=stream
log "tests"
status=0
npx nx run-many -t test --parallel=1 --skip-nx-cache --outputStyle=stream || status=$?
node scripts/test-summary.mjs .test-results || status=1
exit $status
