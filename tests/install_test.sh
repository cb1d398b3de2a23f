#!/usr/bin/env bash
# `cmake --install` into a temporary prefix gives a retryproof that runs the catalog with no
# help from the source tree: run from a directory outside it, it finds the catalog
# installed beside it, and without that catalog it says where it looked rather than
# reaching back into the tree it was built from.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR VERSION
set -euo pipefail
build="$1"
source="$2"
version="$3"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
tmp="$(cd "$tmp" && pwd -P)"
fail() { echo "install test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" ||
  fail "cmake --install failed: $(cat "$tmp/install.log")"
for file in bin/retryproof share/retryproof/catalog/03-commit-then-drop.json \
            share/retryproof/stripe/03-commit-then-drop.json \
            share/retryproof/sdks/square/01-fail-before-commit.json \
            share/retryproof/embed/node/package.json share/retryproof/embed/python/pyproject.toml \
            share/retryproof/embed/python/retryproof_build.py \
            share/doc/retryproof/README.md share/doc/retryproof/LICENSE \
            share/doc/retryproof/CONTRIBUTING.md share/doc/retryproof/architecture.md \
            share/doc/retryproof/ci.md share/man/man1/retryproof.1; do
  [ -e "$tmp/prefix/$file" ] || fail "$file was not installed"
done
grep -q '^\.TH RETRYPROOF 1 .*retryproof '"$version" "$tmp/prefix/share/man/man1/retryproof.1" ||
  fail "the man page has no title line for $version"
grep -q '^\.SH "RETRYPROOF run"' "$tmp/prefix/share/man/man1/retryproof.1" ||
  fail "the man page has no section for retryproof run"

cd "$tmp"  # outside the source tree
[ "$(prefix/bin/retryproof --version)" = "retryproof $version" ] ||
  fail "--version says \"$(prefix/bin/retryproof --version)\""
prefix/bin/retryproof run --filter commit-then-drop >out 2>err ||
  fail "the installed program failed: $(cat out err)"
grep -qF "PASS  commit-then-drop  ($tmp/prefix/share/retryproof/catalog/03-commit-then-drop.json)" out ||
  fail "the scenario did not come from the installed catalog: $(cat out)"

# Without its catalog, the installed program names the place it looked, and not the source tree.
mv prefix/share/retryproof/catalog prefix/share/retryproof/elsewhere
status=0
prefix/bin/retryproof run --filter commit-then-drop >out 2>err || status=$?
[ "$status" -eq 2 ] || fail "without a catalog: exit $status: $(cat out err)"
grep -qF "looked in $tmp/prefix/share/retryproof/catalog" err || fail "no word of where: $(cat err)"
! grep -qF "$source" err out || fail "the installed program reached for the source tree: $(cat err)"
echo "install test: passed"
