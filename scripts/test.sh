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
# The whole-stack tests (the e2e project, about two thirds of the suite's time) start first and run beside
# everything else: the format, type and lint checks and the other projects' tests leave most of two cores idle
# (waiting on processes, PostgreSQL and NATS), and the e2e project keeps them busy. Run one after the other, the
# suite took about 13 minutes on 2 cores; side by side, about 10 (README, "Tests").
log "tests of the whole stack (e2e), beside the checks and the other tests"
npx nx run e2e:test --outputStyle=stream &
e2e=$!
# stopped with the script (an interrupted run leaves no stack behind)
trap 'kill "$e2e" 2>/dev/null || true' EXIT
status=0
log "format (prettier --check; npm run format writes it), typecheck and lint of the whole tree"
npx nx run-many -t format-check typecheck lint --parallel=2 --outputStyle=stream || status=$?
log "tests of every other project"
npx nx run-many -t test --exclude=e2e --parallel=1 --outputStyle=stream || status=$?
wait "$e2e" || status=$?
node scripts/test-summary.mjs .test-results || status=1
exit $status
