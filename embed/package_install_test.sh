#!/usr/bin/env bash
# Installs one embedding helper the way its users install packages, into a place of its own,
# and runs a test of a user's project against a provider through it:
#   python: a new virtual environment, `pip install` of a read-only copy of the package's
#           directory, and pytest with no conftest: the `retryproof_sandbox` fixture comes
#           from the pytest11 entry point; a failing `assert verdicts.ok, verdicts` shows
#           what failed. pip has no package index here, so the install is --no-index
#           --no-build-isolation (setuptools from Debian's python3-setuptools), and pytest is
#           Debian's python3-pytest, seen through --system-site-packages.
#   node:   a new npm project, `npm install` of the package's directory, then of the tarball
#           `npm pack` makes of it, and a node:test file that imports 'retryproof-sandbox'.
# Each also checks that, with no RETRYPROOF_BINARY and no retryproof on PATH, the helper
# says where it looks. Exit 77 (skipped) when the ecosystem's tools are missing.
# Usage: package_install_test.sh python|node RETRYPROOF SOURCE_DIR VERSION
set -euo pipefail
kind="$1"
retryproof="$2"
source="$3"
version="$4"
fail() { echo "package install ($kind): $*" >&2; exit 1; }
skip() { echo "package install ($kind): $*: skipped"; exit 77; }

tmp="$(mktemp -d)"
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
mkdir "$tmp/empty"  # a PATH with no retryproof on it

case "$kind" in
python)
  python=/usr/bin/python3  # Debian's, whose python3-pytest the environment sees
  [ -x "$python" ] || skip "$python not found"
  "$python" -c 'import pytest, setuptools' 2>/dev/null ||
    skip "pytest or setuptools missing (Debian: python3-pytest python3-setuptools)"
  grep -qx "version = \"$version\"" "$source/embed/python/pyproject.toml" ||
    fail "embed/python/pyproject.toml's version is not the project's ($version)"
  "$python" -m venv --system-site-packages "$tmp/venv" || skip "python3 -m venv failed (Debian: python3-venv)"
  # A read-only copy, as a .deb leaves it in /usr/share/retryproof/embed/python: pip builds
  # in the folder it is given, and the package's backend (retryproof_build.py) must only
  # read it. Root writes through any mode; in a user namespace of its own it cannot.
  cp -r "$source/embed/python" "$tmp/package"
  rm -rf "$tmp/package/__pycache__" "$tmp/package/build" "$tmp/package"/*.egg-info
  chmod -R a-w "$tmp/package"
  reader=()
  [ "$(id -u)" != 0 ] || reader=(unshare --user)
  if "${reader[@]}" touch "$tmp/package/written" 2>/dev/null; then
    rm -f "$tmp/package/written"
    reader=()
    echo "package install ($kind): no read-only folder here: installing from a writable one"
  fi
  "${reader[@]}" "$tmp/venv/bin/pip" install --quiet --no-index --no-build-isolation \
    "$tmp/package" || fail "pip install of a read-only embed/python failed"

  mkdir "$tmp/project"
  cat >"$tmp/project/test_orders.py" <<'EOF'
import json
import urllib.request


def create_order(base_url, order_id):  # the user's code
    request = urllib.request.Request(
        base_url + "/jobs", data=json.dumps({"orderId": order_id}).encode(), method="POST",
        headers={"Idempotency-Key": "orders:" + order_id, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.status


def test_one_job_per_order(retryproof_sandbox):  # the fixture comes from the installed plugin
    assert create_order(retryproof_sandbox.url, "order-42") == 201
    assert len(retryproof_sandbox.jobs()) == 1
    verdicts = retryproof_sandbox.verdicts(policy="attempts=3")
    assert verdicts.ok, verdicts
EOF
  (cd "$tmp/project" && RETRYPROOF_BINARY="$retryproof" "$tmp/venv/bin/python" -m pytest -q \
     -p no:cacheprovider test_orders.py) || fail "the project's test failed through the installed package"

  # pytest prints `assert verdicts.ok, verdicts`'s message as repr(), cut to 240 characters.
  cat >"$tmp/project/test_fresh_keys.py" <<'EOF'
import json
import urllib.request


def test_a_fresh_key_per_attempt(retryproof_sandbox):
    for key in ("orders:order-42", "orders:order-42#2"):  # the retry under a key of its own
        request = urllib.request.Request(
            retryproof_sandbox.url + "/jobs", data=json.dumps({"orderId": "order-42"}).encode(),
            method="POST", headers={"Idempotency-Key": key, "Content-Type": "application/json"})
        urllib.request.urlopen(request, timeout=5).close()
    verdicts = retryproof_sandbox.verdicts(policy="min-backoff=0ms")
    assert verdicts.ok, verdicts
EOF
  (cd "$tmp/project" && RETRYPROOF_BINARY="$retryproof" "$tmp/venv/bin/python" -m pytest -q \
     -p no:cacheprovider test_fresh_keys.py >"$tmp/pytest.out" 2>&1) &&
    fail "a test whose code made two jobs of one order passed: $(cat "$tmp/pytest.out")"
  grep -q "AssertionError: <Verdicts not ok: .*no-duplicate-effect fail" "$tmp/pytest.out" ||
    fail "pytest did not name the failed verdict: $(cat "$tmp/pytest.out")"

  message="$(cd "$tmp/project" && env -u RETRYPROOF_BINARY PATH="$tmp/empty" \
    "$tmp/venv/bin/python" -c 'from retryproof_sandbox import Sandbox; Sandbox().start()' 2>&1)" &&
    fail "it started with no retryproof to be found"
  grep -q "retryproof not found: pass binary=PATH, set RETRYPROOF_BINARY, or put retryproof on PATH" \
    <<<"$message" || fail "no retryproof found, it said: $message"
  ;;
node)
  command -v node >/dev/null && command -v npm >/dev/null || skip "node or npm not found"
  node=$(command -v node)
  [ "$(node -p "require('$source/embed/node/package.json').version")" = "$version" ] ||
    fail "embed/node/package.json's version is not the project's ($version)"
  npm_quiet=(--no-audit --no-fund --offline --loglevel=error)
  cat >"$tmp/test.mjs" <<'EOF'
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startSandbox } from 'retryproof-sandbox';

async function createOrder(baseUrl, orderId) { // the user's code
  const response = await fetch(`${baseUrl}/jobs`, {
    method: 'POST',
    headers: { 'idempotency-key': `orders:${orderId}`, 'content-type': 'application/json' },
    body: JSON.stringify({ orderId }),
  });
  return response.status;
}

test('one job per order', async () => {
  const sandbox = await startSandbox();
  try {
    assert.equal(await createOrder(sandbox.url, 'order-42'), 201);
    assert.equal((await sandbox.jobs()).length, 1);
    const verdicts = await sandbox.verdicts({ policy: 'attempts=3' });
    assert.ok(verdicts.ok, verdicts.toString());
  } finally {
    await sandbox.stop();
  }
});
EOF
  npm pack --silent --pack-destination "$tmp" "$source/embed/node" >/dev/null ||
    fail "npm pack of embed/node failed"
  tarball="$tmp/retryproof-sandbox-$version.tgz"
  [ -f "$tarball" ] || fail "npm pack made no $(basename "$tarball"): $(ls "$tmp")"
  for from in "$source/embed/node" "$tarball"; do
    project="$tmp/project-$([ "$from" = "$tarball" ] && echo tarball || echo path)"
    mkdir "$project"
    (cd "$project" && npm init -y >/dev/null && npm install "${npm_quiet[@]}" "$from") ||
      fail "npm install $from failed"
    for file in package.json retryproof-sandbox.mjs retryproof-sandbox.d.ts retryproof-session.mjs \
                retryproof-session.d.ts; do
      [ -f "$project/node_modules/retryproof-sandbox/$file" ] || fail "$file not installed from $from"
    done
    cp "$tmp/test.mjs" "$project/test.mjs"
    (cd "$project" && RETRYPROOF_BINARY="$retryproof" node --test test.mjs) ||
      fail "the project's test failed through the package installed from $from"
  done

  message="$(cd "$project" && env -u RETRYPROOF_BINARY PATH="$tmp/empty" "$node" --input-type=module \
    -e "import { startSandbox } from 'retryproof-sandbox'; await startSandbox();" 2>&1)" &&
    fail "it started with no retryproof to be found"
  grep -q "retryproof not found: pass { binary }, set RETRYPROOF_BINARY, or put retryproof on PATH" \
    <<<"$message" || fail "no retryproof found, it said: $message"
  ;;
*)
  fail "unknown kind $kind: python or node"
  ;;
esac
echo "package install ($kind): installed as a user would, and a project's test passed through it"
