#!/usr/bin/env bash
# `npm run bench`: builds the apps and the bench, then runs tools/bench/src/main.ts (see there). Under 5 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_node_modules
ensure_nats_server
export NATS_SERVER_BIN
NATS_SERVER_BIN=$(nats_server_bin)
log "building apps"
npx nx run-many -t build --outputStyle=static >/dev/null
mkdir -p dist/bench
for entry in main helpers-server; do
  npx esbuild "tools/bench/src/$entry.ts" --bundle --platform=node --target=node20 --packages=external \
    --tsconfig=tsconfig.base.json --outfile="dist/bench/$entry.js" --log-level=warning
done
exec node dist/bench/main.js
