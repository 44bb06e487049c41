#!/usr/bin/env bash
# Installs the system programs a command needs when they are missing, so a newcomer's
# first `npm start` and `npm test` work on a fresh Debian machine. One list per use:
#   bash scripts/system-deps.sh start   # redis-server (unless REDIS_URL / REDIS_CLUSTER_NODES)
#   bash scripts/system-deps.sh test    # what the tests start: redis-server, redis-cli, chromium, nginx, prometheus
# Elsewhere than Debian it names what to install and exits 1.
set -euo pipefail

use=${1:-test}
need=()
want() { command -v "$1" >/dev/null 2>&1 || [ -x "$1" ] || need+=("$2"); }

case "$use" in
  start)
    if [ -z "${REDIS_URL:-}" ] && [ -z "${REDIS_CLUSTER_NODES:-}" ]; then want redis-server redis-server; fi
    ;;
  test)
    want redis-server redis-server
    want redis-cli redis-tools
    want "${CHROMIUM_PATH:-/usr/bin/chromium}" chromium
    want nginx nginx
    want prometheus prometheus
    want promtool prometheus
    ;;
  *)
    echo "usage: system-deps.sh start|test" >&2
    exit 2
    ;;
esac

[ ${#need[@]} -gt 0 ] || exit 0
# prometheus is listed twice when both of its commands are missing.
mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)
if [ -r /etc/debian_version ] && command -v apt-get >/dev/null; then
  echo "bullpen: installing ${need[*]} with apt-get..."
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  # The packages' own services are not wanted: the tests start their own on loopback ports.
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
else
  echo "bullpen: missing ${need[*]}. Install them with your package manager (Redis 7+, Chromium at /usr/bin/chromium or CHROMIUM_PATH)." >&2
  exit 1
fi
