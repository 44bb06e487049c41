#!/usr/bin/env bash
# Sets up and starts Bullpen with no configuration: checks Node, installs redis-server
# (apt-get on Debian) when it is missing, installs npm dependencies, then starts the
# embedded Redis, the worker and the dashboard (scripts/start.ts) and prints the URL
# and how to sign in. Any argument is passed on (e.g. --demo).
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "bullpen: $*" >&2; exit 1; }

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
[ "$node_major" -ge 20 ] || die "Node.js 20 or newer is required (found: $(node -v 2>/dev/null || echo none))."

if [ -z "${REDIS_URL:-}" ] && [ -z "${REDIS_CLUSTER_NODES:-}" ] && ! command -v redis-server >/dev/null; then
  if [ -r /etc/debian_version ] && command -v apt-get >/dev/null; then
    echo "bullpen: installing redis-server with apt-get..."
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq redis-server >/dev/null
  else
    die "redis-server (Redis 7 or newer) is not installed. Install it (macOS: brew install redis; Fedora: dnf install redis; Alpine: apk add redis) or set REDIS_URL."
  fi
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "bullpen: installing npm dependencies..."
  npm install --no-audit --no-fund
fi

export NEXT_TELEMETRY_DISABLED=1
exec node --import tsx scripts/start.ts "$@"
