#!/usr/bin/env bash
# Peers under the same wrk load as the provider, each answering every POST with a fixed 201:
# nginx with one worker (what HTTP itself costs on this machine), Node's own HTTP server
# (node:http: the floor under the seeds' JavaScript original, which is not in this
# repository: docs/original-spec describes its wire only) and Mountebank (@mbtest/mountebank, the
# over-the-wire test double people use for this job; bench/peers/package-lock.json pins it,
# and scripts/bench.sh installs it with npm ci). Each is measured with both of the
# provider's POST loads, and printed beside the provider's rate with the ratio.
# Usage: bench/peers.sh DURATION PROVIDER_NEW_KEYS_PER_S PROVIDER_REPLAYS_PER_S
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
duration="$1"
provider_new="$2"
provider_replay="$3"
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for_port() {  # port seconds
  for _ in $(seq $(($2 * 20))); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.05
  done
  return 1
}
rate() { wrk -t2 -c32 -d"$duration" -s "$1" "$2/jobs" | awk '/Requests\/sec/ {print $2}'; }
report() {  # name url
  local new replay
  # A second of the load first: the JavaScript peers compile their hot paths as they run.
  wrk -t2 -c32 -d1s -s "$here/post_replay.lua" "$2/jobs" >/dev/null
  new=$(rate "$here/post_new_keys.lua" "$2")
  replay=$(rate "$here/post_replay.lua" "$2")
  awk -v n="$1" -v pn="$provider_new" -v pr="$provider_replay" -v new="$new" -v rep="$replay" 'BEGIN {
    printf "%-34s new keys %8.0f req/s (provider %8.0f, ratio %.2f)   replays %8.0f req/s (provider %8.0f, ratio %.2f)\n", n, new, pn, pn / new, rep, pr, pr / rep
  }'
}

if command -v nginx >/dev/null; then
  port=$(free_port)
  cat >"$work/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $work;
  proxy_temp_path $work;
  fastcgi_temp_path $work;
  uwsgi_temp_path $work;
  scgi_temp_path $work;
  server {
    listen 127.0.0.1:$port;
    location / { default_type application/json; return 201 '{"id":"job_00000001"}'; }
  }
}
CONF
  nginx -p "$work" -c "$work/nginx.conf" &
  pids+=($!)
  wait_for_port "$port" 5 && report "nginx, 1 worker, fixed 201" "http://127.0.0.1:$port"
else
  echo "nginx is not installed: no nginx peer in this run"
fi

node "$here/peers/node_fixed_201.mjs" >"$work/node.url" &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/node.url" ] && break; sleep 0.05; done
report "Node http, 1 process, fixed 201" "$(head -n 1 "$work/node.url")"

mb="$here/peers/node_modules/.bin/mb"
if [ -x "$mb" ]; then
  port=$(free_port)
  sed "s/\"\${PORT}\"/$port/" "$here/peers/mountebank_imposter.json" >"$work/imposter.json"
  "$mb" start --port "$(free_port)" --configfile "$work/imposter.json" --loglevel warn \
    --nologfile --pidfile "$work/mb.pid" >"$work/mb.log" 2>&1 &
  pids+=($!)
  if wait_for_port "$port" 30; then
    version="$(node -p 'require(process.argv[1]).version' "$here/peers/node_modules/@mbtest/mountebank/package.json")"
    report "Mountebank $version, fixed 201" "http://127.0.0.1:$port"
  else
    echo "Mountebank did not start: $(tail -n 3 "$work/mb.log")"
  fi
else
  echo "Mountebank is not installed (bench/peers: npm ci): no Mountebank peer in this run"
fi
echo "the seeds' Node provider (the JavaScript original): not in this repository, not measured"
