# What `cmake --install` puts under its prefix (and the package under /usr): the program,
# the scenario catalog where the program looks for it, the docs and a man page.
install(TARGETS retryproof RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/catalog/
        DESTINATION ${RETRYPROOF_INSTALL_CATALOG_DIR})
# The scenarios on Stripe's wire, beside it: `retryproof run PREFIX/share/retryproof/stripe`,
# and the official SDKs' sets, on their built-in shapes: PREFIX/share/retryproof/sdks/square.
# The storm set, which `run` finds beside the catalog and runs with it.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/storm/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/retryproof/storm)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/stripe/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/retryproof/stripe)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/sdks/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/retryproof/sdks)
# The test-suite helpers as their ecosystems install them, from where the package puts them:
# `npm install PREFIX/share/retryproof/embed/node`, `pip install .../embed/python`.
install(FILES ${PROJECT_SOURCE_DIR}/embed/node/package.json
              ${PROJECT_SOURCE_DIR}/embed/node/retryproof-sandbox.mjs
              ${PROJECT_SOURCE_DIR}/embed/node/retryproof-sandbox.d.ts
              ${PROJECT_SOURCE_DIR}/embed/node/retryproof-session.mjs
              ${PROJECT_SOURCE_DIR}/embed/node/retryproof-session.d.ts
        DESTINATION ${CMAKE_INSTALL_DATADIR}/retryproof/embed/node)
install(FILES ${PROJECT_SOURCE_DIR}/embed/python/pyproject.toml
              ${PROJECT_SOURCE_DIR}/embed/python/retryproof_build.py
              ${PROJECT_SOURCE_DIR}/embed/python/retryproof_sandbox.py
              ${PROJECT_SOURCE_DIR}/embed/python/retryproof_sandbox_pytest.py
              ${PROJECT_SOURCE_DIR}/embed/python/retryproof_session.py
        DESTINATION ${CMAKE_INSTALL_DATADIR}/retryproof/embed/python)

file(GLOB RETRYPROOF_DOCS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/CONTRIBUTING.md
              ${PROJECT_SOURCE_DIR}/LICENSE ${RETRYPROOF_DOCS}
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The man page is the program's own --help and each command's, so it cannot drift from it.
set(RETRYPROOF_MAN_PAGE ${PROJECT_BINARY_DIR}/man/retryproof.1)
add_custom_command(
  OUTPUT ${RETRYPROOF_MAN_PAGE}
  COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:retryproof> -DVERSION=${PROJECT_VERSION}
          -DOUTPUT=${RETRYPROOF_MAN_PAGE} -P ${PROJECT_SOURCE_DIR}/cmake/man_page.cmake
  DEPENDS retryproof ${PROJECT_SOURCE_DIR}/cmake/man_page.cmake
  COMMENT "Writing the man page from retryproof --help"
  VERBATIM)
add_custom_target(retryproof_man_page ALL DEPENDS ${RETRYPROOF_MAN_PAGE})
install(FILES ${RETRYPROOF_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
