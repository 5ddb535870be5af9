#!/usr/bin/env bash
# `npm run chaos`: the fault run of tools/chaos (see tools/chaos/src/run.ts) at full length. Needs PostgreSQL
# (DATABASE_URL or TEST_DATABASE_URL; `npm test` starts one): the replicas share one database.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_node_modules
ensure_nats_server
export NATS_SERVER_BIN
NATS_SERVER_BIN=$(nats_server_bin)
if [ -z "${DATABASE_URL:-}" ] && [ -z "${TEST_DATABASE_URL:-}" ]; then
  TEST_DATABASE_URL=$(ensure_postgres)
  export TEST_DATABASE_URL
fi
mkdir -p dist/chaos
npx esbuild tools/chaos/src/main.ts --bundle --platform=node --target=node20 --packages=external \
  --tsconfig=tsconfig.base.json --outfile=dist/chaos/main.js --log-level=warning
exec node dist/chaos/main.js
