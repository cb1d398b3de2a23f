#!/usr/bin/env bash
# Builds the Debian package from the release preset and prints its path:
# build/release/retryproof_<version>_<arch>.deb, with its runtime dependencies declared
# (dpkg-shlibdeps). The first release build compiles everything (minutes, like the first
# scripts/run.sh); later ones rebuild only what changed.
#   scripts/package.sh && sudo apt-get install ./build/release/retryproof_*.deb
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh" release
cd "$root/build/release"
cpack -G DEB
ls "$root"/build/release/retryproof_*.deb
