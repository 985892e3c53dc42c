#!/usr/bin/env bash
# A private three-master Redis Cluster on free loopback ports, no replicas, no persistence.
# Usage: scripts/redis-cluster.sh start <dir>   → prints the seed node URLs, one a line
#        scripts/redis-cluster.sh stop <dir>    → kills the nodes and removes <dir>
# <dir> holds the nodes' config files, logs and pid files (redis-<port>.pid); it is created if
# missing. Nodes give up on a silent peer after 2 s (cluster-node-timeout) and keep serving their
# own slots when another master is down (cluster-require-full-coverage no).
set -euo pipefail
action=${1:-} dir=${2:-}
[ -n "$dir" ] || { echo "usage: $0 start|stop <dir>" >&2; exit 2; }
marker="$dir/cutover-redis-cluster"

stop() {
  [ -f "$marker" ] || return 0 # not a directory this script made: leave it alone
  for pidfile in "$dir"/redis-*.pid; do
    [ -f "$pidfile" ] && kill -KILL "$(cat "$pidfile")" 2>/dev/null || true
  done
  rm -rf "$dir"
}

case "$action" in
  start)
    for tool in redis-server redis-cli; do
      command -v "$tool" >/dev/null || { echo "$tool is missing: run scripts/setup.sh --system" >&2; exit 1; }
    done
    mkdir -p "$dir"
    touch "$marker"
    # Six free ports: three for clients, three for the cluster bus (cluster-port).
    read -r -a ports <<<"$(node -e "
      const net = require('net'); const servers = [];
      const next = () => { const s = net.createServer().listen(0, '127.0.0.1', () => { servers.push(s);
        if (servers.length < 6) return next();
        console.log(servers.map((x) => x.address().port).join(' ')); servers.forEach((x) => x.close()); }); };
      next();")"
    seeds=()
    for i in 0 1 2; do
      port=${ports[$i]} bus=${ports[$((i + 3))]}
      redis-server --port "$port" --cluster-port "$bus" --bind 127.0.0.1 --cluster-enabled yes \
        --cluster-config-file "$dir/nodes-$port.conf" --cluster-node-timeout 2000 \
        --cluster-require-full-coverage no --save '' --appendonly no --daemonize yes \
        --pidfile "$dir/redis-$port.pid" --dir "$dir" --logfile "$dir/redis-$port.log" >/dev/null
      seeds+=("127.0.0.1:$port")
    done
    trap 'stop; echo "redis-cluster: start failed (logs removed with $dir)" >&2' ERR
    for seed in "${seeds[@]}"; do
      for _ in $(seq 100); do
        redis-cli -p "${seed#*:}" ping >/dev/null 2>&1 && break
        sleep 0.05
      done
    done
    redis-cli --cluster create "${seeds[@]}" --cluster-replicas 0 --cluster-yes >"$dir/create.log" 2>&1
    for seed in "${seeds[@]}"; do
      ok=0
      for _ in $(seq 200); do
        if redis-cli -p "${seed#*:}" cluster info 2>/dev/null | grep -q '^cluster_state:ok'; then ok=1; break; fi
        sleep 0.05
      done
      [ "$ok" = 1 ] || { echo "redis-cluster: $seed did not reach cluster_state:ok" >&2; false; }
    done
    trap - ERR
    for seed in "${seeds[@]}"; do echo "redis://$seed"; done
    ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop <dir>" >&2; exit 2 ;;
esac
