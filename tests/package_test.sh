#!/usr/bin/env bash
# The Debian package built from this build tree (cpack, into a temporary directory): its
# files (dpkg-deb -c), its control fields and runtime dependencies (dpkg-deb -f), and the
# program unpacked from it into a temporary root (dpkg -x) running the catalog from there.
# Nothing is installed on the system.
# Usage: package_test.sh BUILD_DIR VERSION
set -euo pipefail
build="$1"
version="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
tmp="$(cd "$tmp" && pwd -P)"
fail() { echo "package test: $*" >&2; exit 1; }

cpack --config "$build/CPackConfig.cmake" -B "$tmp/package" >"$tmp/cpack.log" 2>&1 ||
  fail "cpack failed: $(cat "$tmp/cpack.log")"
deb="$(ls "$tmp"/package/retryproof_*.deb)"
[ "$(basename "$deb")" = "retryproof_${version}_$(dpkg --print-architecture).deb" ] ||
  fail "unexpected package name $(basename "$deb")"

dpkg-deb -c "$deb" >"$tmp/contents"
for file in ./usr/bin/retryproof ./usr/share/retryproof/catalog/03-commit-then-drop.json \
            ./usr/share/doc/retryproof/README.md ./usr/share/doc/retryproof/LICENSE \
            ./usr/share/man/man1/retryproof.1; do
  grep -q " $file\$" "$tmp/contents" || fail "$file is not in the package: $(cat "$tmp/contents")"
done
[ "$(dpkg-deb -f "$deb" Package)" = retryproof ] || fail "Package: $(dpkg-deb -f "$deb" Package)"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "Version: $(dpkg-deb -f "$deb" Version)"
depends="$(dpkg-deb -f "$deb" Depends)"
# Each dependency's package name, one a line ("libstdc++6 (>= 12)" gives libstdc++6).
names="$(tr ',' '\n' <<<"$depends" | awk '{print $1}')"
for library in libc6 libstdc++6 libssl3 libsqlite3-0 libcpp-httplib0.11; do
  grep -qxF "$library" <<<"$names" || fail "Depends lacks $library: $depends"
done

# --time-scale runs external clients under libfaketime: apt installs it with the package.
[ "$(dpkg-deb -f "$deb" Recommends)" = libfaketime ] ||
  fail "Recommends: $(dpkg-deb -f "$deb" Recommends); expected libfaketime"

dpkg -x "$deb" "$tmp/root"
cd "$tmp"  # outside the source tree
[ "$(root/usr/bin/retryproof --version)" = "retryproof $version" ] || fail "--version is wrong"
root/usr/bin/retryproof run --filter commit-then-drop >out 2>err ||
  fail "the unpacked program failed: $(cat out err)"
grep -qF "PASS  commit-then-drop  ($tmp/root/usr/share/retryproof/catalog/03-commit-then-drop.json)" out ||
  fail "the scenario did not come from the package's catalog: $(cat out)"
echo "package test: passed ($(basename "$deb"), Depends: $depends)"
