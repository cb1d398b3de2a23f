# The Debian package (scripts/package.sh builds it from the release preset): what
# `cmake --install` installs, under /usr, with its runtime dependencies found by
# dpkg-shlibdeps from the libraries the program links (OpenSSL, SQLite, cpp-httplib, the
# C++ runtime).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME retryproof)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "the retryproof authors")
set(CPACK_PACKAGE_CONTACT "the retryproof authors")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "test harness proving that API clients retry without duplicating side effects")
set(CPACK_PACKAGE_DESCRIPTION
    "retryproof runs a client against an HTTP provider that enforces idempotency keys and \
fails on command (before the commit, after it with an error, or by dropping the \
connection), and judges from the provider's own journal whether the client created one \
job or two, looked the key up after an outcome it could not see, and retried with \
bounded backoff. Reports as text, JSON, JUnit XML and Markdown.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # retryproof_0.2.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The build environment only: /bin/sh (essential) runs cmd: clients; nothing else is needed.
# `run --time-scale` and `explore --time-scale` run an external client under libfaketime
# (LD_PRELOAD): recommended, so that apt installs it by default, but not needed otherwise.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS libfaketime)
include(CPack)
