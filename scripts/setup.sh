#!/usr/bin/env bash
# Installs the Debian packages retryproof builds and tests with, and any named as
# arguments (scripts/bench.sh and scripts/soak.sh add wrk). Idempotent: it does nothing
# when every package is present, and runs `apt-get update` once otherwise. Then installs the
# npm packages the examples use, exactly as their lock files pin them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

packages=(
  cmake ninja-build g++ pkg-config
  libcpp-httplib-dev   # HTTP client (0.11): the reference client, the tests, the demo
  libboost-dev         # Boost.Beast and Asio (1.74, header-only): the provider's HTTP server
  nlohmann-json3-dev   # JSON
  libssl-dev           # SHA-256 through OpenSSL's EVP interface
  libcli11-dev         # command line
  libsqlite3-dev       # the client's durable intent ledger
  libgtest-dev         # unit and integration tests
  librapidcheck-dev    # property tests
  curl                 # examples and the README walkthrough
  python3              # the Python embedding helper's tests, and the Python examples
  "$@"
)
# Node runs the JavaScript examples and the Node embedding helper's tests (node:test); a Node
# already installed (with its npm) is used as it is.
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi

for example in examples/stripe-node; do
  # A copy of the lock it was installed from: when it still matches, nothing changed.
  stamp="$example/node_modules/.installed-from-lock"
  if ! cmp -s "$example/package-lock.json" "$stamp" 2>/dev/null; then
    echo "setup: npm ci in $example" >&2
    npm ci --prefix "$example" --no-audit --no-fund --loglevel=error
    cp "$example/package-lock.json" "$stamp"
  fi
done
