#!/usr/bin/env bash
# `npm start`: installs and builds what is missing, then runs the whole gateway locally (scripts/start-stack.mjs).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_node_modules
if [ -z "${NATS_URL:-}" ]; then ensure_nats_server; export NATS_SERVER_BIN; NATS_SERVER_BIN=$(nats_server_bin); fi
log "building apps"
npx nx run-many -t build --outputStyle=static >/dev/null
exec node scripts/start-stack.mjs
