# Shared set-up steps of `npm start` and `npm test`. Each step is idempotent and says what it does.
# Sourced by scripts/start.sh and scripts/test.sh.

log() { printf '\033[1;34m==>\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1;31mError:\033[0m %s\n' "$*" >&2; exit 1; }

is_root() { [ "$(id -u)" = "0" ]; }

APT_UPDATED=""
apt_install() {
  is_root || die "$1 is missing. Install it with: sudo apt-get install -y $*"
  if [ -z "$APT_UPDATED" ]; then
    log "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    APT_UPDATED=1
  fi
  log "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# npm ci when node_modules is missing or older than the lockfile. The lockfile records every platform's optional
# packages (regenerated from scratch with npm 11), so `npm ci` accepts it on any machine.
ensure_node_modules() {
  if [ ! -d node_modules ] || [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    log "npm ci"
    npm ci --no-audit --no-fund || die "npm ci failed"
  fi
}

ensure_nats_server() {
  if [ -n "${NATS_SERVER_BIN:-}" ] && [ -x "$NATS_SERVER_BIN" ]; then return; fi
  if command -v nats-server >/dev/null 2>&1 || [ -x /usr/sbin/nats-server ]; then return; fi
  apt_install nats-server
}

nats_server_bin() {
  if [ -n "${NATS_SERVER_BIN:-}" ]; then echo "$NATS_SERVER_BIN"; return; fi
  command -v nats-server 2>/dev/null || echo /usr/sbin/nats-server
}

ensure_kubectl() {
  command -v kubectl >/dev/null 2>&1 && return
  apt_install kubernetes-client
}

ensure_chromium() {
  [ -x /usr/bin/chromium ] && return
  apt_install chromium
}

# A reachable PostgreSQL server for the storage and integration tests. Prints its URL.
ensure_postgres() {
  local url="${TEST_DATABASE_URL:-${DATABASE_URL:-postgres://$(id -un)@127.0.0.1:5432/postgres}}"
  if pg_ready "$url"; then echo "$url"; return; fi
  if ! command -v pg_ctlcluster >/dev/null 2>&1; then apt_install postgresql; fi
  is_root || die "PostgreSQL is not reachable at $url; start it or set TEST_DATABASE_URL"
  local ver
  ver=$(ls /etc/postgresql | sort -V | tail -n 1)
  log "starting PostgreSQL $ver"
  pg_ctlcluster --skip-systemctl-redirect "$ver" main start >/dev/null 2>&1 || true
  for _ in $(seq 1 30); do pg_ready "postgres:///postgres?host=/var/run/postgresql&user=postgres" && break; sleep 1; done
  # a superuser role for the current user, so tests can create their own databases
  su postgres -c "psql -qtAc \"DO \\\$\\\$BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname='$(id -un)') THEN CREATE ROLE \\\"$(id -un)\\\" SUPERUSER LOGIN; END IF; END\\\$\\\$\"" >/dev/null
  # local TCP connections of that role without a password (test machines only)
  local hba="/etc/postgresql/$ver/main/pg_hba.conf"
  if ! grep -q '^host all all 127.0.0.1/32 trust' "$hba"; then
    sed -i '1i host all all 127.0.0.1/32 trust' "$hba"
    pg_ctlcluster --skip-systemctl-redirect "$ver" main reload >/dev/null 2>&1 || true
  fi
  pg_ready "$url" || die "PostgreSQL is still not reachable at $url"
  echo "$url"
}

pg_ready() {
  node -e '
    const { Client } = require("pg");
    const c = new Client({ connectionString: process.argv[1], connectionTimeoutMillis: 2000 });
    c.connect().then(() => c.end()).then(() => process.exit(0), () => process.exit(1));
  ' "$1" >/dev/null 2>&1
}
