#!/usr/bin/env bash
# Sets up and starts Bullpen with no configuration: checks Node, installs redis-server
# (apt-get on Debian, scripts/system-deps.sh) when it is missing, installs npm dependencies, then starts the
# embedded Redis, the worker and the dashboard (scripts/start.ts) and prints the URL
# and how to sign in. Any argument is passed on (e.g. --demo).
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "bullpen: $*" >&2; exit 1; }

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
[ "$node_major" -ge 20 ] || die "Node.js 20 or newer is required (found: $(node -v 2>/dev/null || echo none))."

bash scripts/system-deps.sh start

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "bullpen: installing npm dependencies..."
  npm install --no-audit --no-fund
fi

export NEXT_TELEMETRY_DISABLED=1
exec node --import tsx scripts/start.ts "$@"
