#!/usr/bin/env bash
# nginx with one worker answering every POST with a fixed 201: what HTTP itself costs on
# this machine, the ceiling no provider reaches. Prints the provider's POST rate beside it.
# Usage: bench/nginx_baseline.sh DURATION POST_SCRIPT PROVIDER_POSTS_PER_SECOND
set -euo pipefail
duration="$1"
post_script="$2"
provider_post="$3"
work="$(mktemp -d)"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
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
nginx_pid=$!
trap 'kill "$nginx_pid" 2>/dev/null || true; wait "$nginx_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.05
done
nginx_post=$(wrk -t2 -c32 -d"$duration" -s "$post_script" "http://127.0.0.1:$port/jobs" |
  awk '/Requests\/sec/ {print $2}')
awk -v p="$provider_post" -v n="$nginx_post" 'BEGIN {
  printf "%-22s provider %8.0f req/s   nginx, 1 worker, fixed 201 %8.0f (ratio %.2f)\n", "POST /jobs vs nginx", p, n, p / n
}'
