#!/usr/bin/env bash
# Starts a private redis-server on a free loopback port and prints its URL; `stop` ends it.
# Usage: scripts/redis-server.sh start <pidfile>   → prints redis://127.0.0.1:<port>
#        scripts/redis-server.sh stop <pidfile>
set -euo pipefail
action=$1 pidfile=$2
case "$action" in
  start)
    command -v redis-server >/dev/null || { echo "redis-server is missing: run scripts/setup.sh --system" >&2; exit 1; }
    port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
    redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
      --pidfile "$pidfile" --dir "${TMPDIR:-/tmp}" --logfile "" >/dev/null
    for _ in $(seq 100); do
      redis-cli -p "$port" ping >/dev/null 2>&1 && { echo "redis://127.0.0.1:$port"; exit 0; }
      sleep 0.05
    done
    echo "redis-server did not answer on port $port" >&2
    exit 1
    ;;
  stop)
    [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
    rm -f "$pidfile"
    ;;
esac
