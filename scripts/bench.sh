#!/usr/bin/env bash
# `npm run bench`: builds the apps and the bench, then runs tools/bench/src/main.ts (see there): the embedded and the
# production configuration in one run, about 12 minutes on 2 cores. The production one runs on the PostgreSQL server of
# BENCH_DATABASE_URL or DATABASE_URL (a fresh database per run, dropped after); when neither is set, the local server,
# installed and started when missing and root (as for the tests).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_node_modules
ensure_nats_server
export NATS_SERVER_BIN
NATS_SERVER_BIN=$(nats_server_bin)
if [[ ",${BENCH_CONFIGS:-production}," == *,production,* ]]; then
  BENCH_DATABASE_URL=$(TEST_DATABASE_URL="${BENCH_DATABASE_URL:-${DATABASE_URL:-}}" ensure_postgres)
  export BENCH_DATABASE_URL
fi
log "building apps"
# each app is its own esbuild bundle: no build needs another first (tests import apps, which nx sees as cycles)
npx nx run-many -t build --outputStyle=static --excludeTaskDependencies >/dev/null
mkdir -p dist/bench
for entry in main helpers-server profile-summary; do
  npx esbuild "tools/bench/src/$entry.ts" --bundle --platform=node --target=node20 --packages=external \
    --tsconfig=tsconfig.base.json --outfile="dist/bench/$entry.js" --log-level=warning
done
exec node dist/bench/main.js
