#!/usr/bin/env bash
# scripts/setup.sh against stand-ins for dpkg-query, apt-get, npm, id and sudo, and package locks
# of its own (RETRYPROOF_PACKAGE_LOCKS): it does nothing when nothing is missing, waits for
# a held lock saying so once, gives up after RETRYPROOF_LOCK_WAIT, and goes through sudo
# when it is not root. Usage: setup_lock_test.sh SOURCE_DIR
set -euo pipefail
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "setup test: $*" >&2; exit 1; }

# A copy of setup.sh in a tree of its own, whose examples' npm packages are already
# installed from their lock files: the test never touches the real tree's node_modules.
mkdir -p "$tmp/repo/scripts"
cp "$1/scripts/setup.sh" "$tmp/repo/scripts/"
for example in examples/stripe-node examples/square-node examples/openai-node \
  examples/modern-treasury-node examples/mollie-node examples/libraries/node ui/tests/browser; do
  mkdir -p "$tmp/repo/$example/node_modules"
  echo '{"lockfileVersion": 3}' >"$tmp/repo/$example/package-lock.json"
  cp "$tmp/repo/$example/package-lock.json" "$tmp/repo/$example/node_modules/.installed-from-lock"
done
setup="$tmp/repo/scripts/setup.sh"

mkdir "$tmp/bin"
cat >"$tmp/bin/dpkg-query" <<'STUB'
#!/bin/sh
[ -n "${STUB_INSTALLED:-}" ] && printf 'install ok installed'
[ -n "${STUB_INSTALLED:-}" ]
STUB
cat >"$tmp/bin/apt-get" <<'STUB'
#!/bin/sh
echo "apt-get $*" >>"$STUB_LOG"
STUB
cat >"$tmp/bin/id" <<'STUB'
#!/bin/sh
if [ "$1" = -u ] && [ -n "${STUB_UID:-}" ]; then echo "$STUB_UID"; else exec /usr/bin/id "$@"; fi
STUB
cat >"$tmp/bin/npm" <<'STUB'
#!/bin/sh
echo "npm ran although the lock file's packages are installed: $*" >&2
exit 1
STUB
cat >"$tmp/bin/sudo" <<'STUB'
#!/bin/sh
echo "sudo $1" >>"$STUB_LOG"
exec "$@"
STUB
chmod +x "$tmp/bin/"*
lock="$tmp/lock-frontend"
touch "$lock"
export PATH="$tmp/bin:$PATH" STUB_LOG="$tmp/calls" RETRYPROOF_PACKAGE_LOCKS="$lock $tmp/absent"

# Waits (up to 10 s) until FILE contains TEXT.
wait_for_text() {
  for _ in $(seq 100); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  fail "waited 10 s for \"$2\" in $1: $(cat "$1" 2>/dev/null)"
}

# Holds $lock (a POSIX record lock, as dpkg takes) until its standard input closes.
hold_lock() {
  coproc HOLDER { exec perl -MFcntl -e '
    open(my $h, "+<", $ARGV[0]) or die "$ARGV[0]: $!";
    fcntl($h, F_SETLKW, pack("s!s!x![q]qqi!", F_WRLCK, SEEK_SET, 0, 0, 0)) or die "lock: $!";
    $| = 1; print "locked\n"; <STDIN>;' "$lock"; }
  read -r -t 10 -u "${HOLDER[0]}" line && [ "$line" = locked ] || fail "the lock holder did not start"
}
release_lock() {
  local pid="$HOLDER_PID"
  eval "exec ${HOLDER[1]}>&-"
  wait "$pid" || true
}

# 1. Nothing missing: nothing to do, at once, and no apt-get.
: >"$STUB_LOG"
STUB_INSTALLED=1 "$setup" >"$tmp/out" 2>&1 || fail "with nothing missing it failed: $(cat "$tmp/out")"
[ ! -s "$STUB_LOG" ] || fail "with nothing missing it ran: $(cat "$STUB_LOG")"
[ ! -s "$tmp/out" ] || fail "with nothing missing it printed: $(cat "$tmp/out")"

# 2. A held lock: one message naming the holder, then update and install once it is free.
: >"$STUB_LOG"
hold_lock
RETRYPROOF_LOCK_WAIT=60 "$setup" >"$tmp/out" 2>"$tmp/err" &
setup_pid=$!
wait_for_text "$tmp/err" "waiting up to 60s for the package lock: process $HOLDER_PID (perl) holds $lock"
[ ! -s "$STUB_LOG" ] || fail "apt-get ran while the lock was held: $(cat "$STUB_LOG")"
release_lock
wait "$setup_pid" || fail "setup failed after the lock was released: $(cat "$tmp/err")"
[ "$(grep -c "waiting" "$tmp/err")" -eq 1 ] || fail "the wait was announced more than once: $(cat "$tmp/err")"
grep -q "^apt-get -o DPkg::Lock::Timeout=[0-9]* update$" "$STUB_LOG" || fail "no update: $(cat "$STUB_LOG")"
grep -q "^apt-get -o DPkg::Lock::Timeout=[0-9]* install -y --no-install-recommends cmake .* curl" \
  "$STUB_LOG" || fail "no install of every package: $(cat "$STUB_LOG")"

# 3. A lock that stays held: a bounded wait, then a failure that says so.
: >"$STUB_LOG"
hold_lock
status=0
RETRYPROOF_LOCK_WAIT=1 "$setup" >"$tmp/out" 2>"$tmp/err" || status=$?
release_lock
[ "$status" -eq 1 ] || fail "a lock held past the wait gave exit $status: $(cat "$tmp/err")"
grep -q "the package lock is still held after 1s" "$tmp/err" || fail "no word of giving up: $(cat "$tmp/err")"
[ ! -s "$STUB_LOG" ] || fail "apt-get ran with the lock held: $(cat "$STUB_LOG")"

# 4. Not root: every apt-get through sudo.
: >"$STUB_LOG"
STUB_UID=1000 "$setup" >"$tmp/out" 2>"$tmp/err" || fail "as a user with sudo it failed: $(cat "$tmp/err")"
[ "$(grep -c "^sudo" "$STUB_LOG")" -ge 2 ] && ! grep -v "^sudo\|^apt-get" "$STUB_LOG" >/dev/null ||
  fail "not every call went through sudo: $(cat "$STUB_LOG")"
echo "setup test: passed"
