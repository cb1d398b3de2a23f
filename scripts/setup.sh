#!/usr/bin/env bash
# Installs the Debian packages retryproof builds and tests with, and any named as
# arguments (scripts/bench.sh and scripts/soak.sh add wrk). Idempotent: it does nothing
# when every package is present, and runs `apt-get update` once otherwise. Then installs the
# npm packages the examples use, exactly as their lock files pin them. Runs as root, or
# through sudo.
#
# Right after a machine boots, unattended upgrades (or another setup) often hold the
# package lock: setup waits for it, up to RETRYPROOF_LOCK_WAIT seconds (default 300), and
# says once that it is waiting and for whom. apt 2.6 waits for the dpkg lock by itself
# (DPkg::Lock::Timeout) but `apt-get update` does not wait for the lists lock, so the wait
# is done here, for both, before each apt-get.
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
  libfaketime          # run --time-scale: external clients' clocks run N times faster (LD_PRELOAD)
  curl                 # examples and the README walkthrough
  dpkg-dev file        # the .deb's runtime dependencies (CPack runs dpkg-shlibdeps on the binary)
  python3              # the Python embedding helper's tests, and the Python examples
  python3-boto3        # examples/aws-python: AWS's Python SDK, Debian's, run by /usr/bin/python3 (scenarios/sdks/aws)
  python3-venv python3-setuptools python3-wheel python3-pytest  # embed/python installed with pip into a new venv, and its pytest plugin run (embed_python_package)
  python3-requests     # tls_run_test: Python's requests trusts run --tls's CA through REQUESTS_CA_BUNDLE alone
  python3-urllib3 python3-tenacity  # examples_tests: the careful library clients in examples/libraries/python (Debian's urllib3 1.26 and tenacity 8.2)
  chromium             # ui_browser: the live page (GET /_test/ui) tested in a real browser, headless; Debian's, never a downloaded one
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

# The package system's locks (a test points this at files of its own).
read -r -a locks <<<"${RETRYPROOF_PACKAGE_LOCKS:-/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock}"
wait_limit="${RETRYPROOF_LOCK_WAIT:-300}"
deadline=$((SECONDS + wait_limit))

# Prints who holds one of the locks ("process 812 (unattended-upgr) holds
# /var/lib/dpkg/lock-frontend") and exits 3, or exits 0 when none is held. It only asks
# (F_GETLK), never takes a lock. Perl because perl-base is essential in Debian. Should the
# question itself fail, apt-get is left to report the lock.
lock_holder() {
  $sudo perl -MFcntl -e '
    for my $file (@ARGV) {
      open(my $handle, "<", $file) or next;  # not there: nobody holds it
      my $lock = pack("s!s!x![q]qqi!", F_WRLCK, SEEK_SET, 0, 0, 0);
      fcntl($handle, F_GETLK, $lock) or next;
      my ($type, $whence, $start, $length, $pid) = unpack("s!s!x![q]qqi!", $lock);
      next if $type == F_UNLCK;
      my $name = "";
      if ($pid > 0 && open(my $comm, "<", "/proc/$pid/comm")) { chomp($name = <$comm>); }
      print $pid > 0 ? "process $pid" . ($name ne "" ? " ($name)" : "") : "another process",
            " holds $file\n";
      exit 3;
    }' "${locks[@]}"
}

waited=""
wait_for_lock() {
  local holder status
  while :; do
    status=0
    holder="$(lock_holder)" || status=$?
    [ "$status" -eq 3 ] || return 0
    if [ -z "$waited" ]; then
      echo "setup: waiting up to ${wait_limit}s for the package lock: $holder" >&2
      waited=yes
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "setup: the package lock is still held after ${wait_limit}s ($holder); try again when it is done, or set RETRYPROOF_LOCK_WAIT" >&2
      exit 1
    fi
    sleep 1
  done
}

apt_get() {
  wait_for_lock
  local left=$((deadline - SECONDS))
  [ "$left" -gt 0 ] || left=1
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout="$left" "$@"
}

if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null; then
      echo "setup: installing ${missing[*]} needs root: run scripts/setup.sh as root, or install sudo" >&2
      exit 1
    fi
    sudo="sudo"
  fi
  echo "setup: installing ${missing[*]}" >&2
  apt_get update
  apt_get install -y --no-install-recommends "${missing[@]}"
fi

# The official SDKs judged in examples/ (docs/sdks.md), the retry libraries of
# examples/libraries/node (cockatiel's careful client has a test), and playwright-core, which drives
# chromium in the live page's browser test (ui/tests/browser), each pinned by its lock file.
for example in examples/stripe-node examples/square-node examples/openai-node \
  examples/modern-treasury-node examples/mollie-node examples/libraries/node ui/tests/browser; do
  # A copy of the lock it was installed from: when it still matches, nothing changed.
  stamp="$example/node_modules/.installed-from-lock"
  if ! cmp -s "$example/package-lock.json" "$stamp" 2>/dev/null; then
    echo "setup: npm ci in $example" >&2
    npm ci --prefix "$example" --no-audit --no-fund --loglevel=error
    cp "$example/package-lock.json" "$stamp"
  fi
done
