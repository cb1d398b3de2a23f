# The official SDKs' shapes (examples/<sdk>-node/shape.json) built into the program, so that
# `--api square-payments` works wherever retryproof is installed. The files stay the one
# source: a change to one reconfigures and rebuilds.
file(GLOB RETRYPROOF_SDK_SHAPES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/examples/*-node/shape.json)
list(SORT RETRYPROOF_SDK_SHAPES)
set(RETRYPROOF_SDK_SHAPE_ROWS "")
foreach(shape_file IN LISTS RETRYPROOF_SDK_SHAPES)
  file(READ ${shape_file} shape_text)
  file(RELATIVE_PATH shape_origin ${PROJECT_SOURCE_DIR} ${shape_file})
  string(APPEND RETRYPROOF_SDK_SHAPE_ROWS
         "      {\"${shape_origin}\", R\"shape(${shape_text})shape\"},\n")
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/sdk_shapes.cpp.in
               ${CMAKE_BINARY_DIR}/generated/sdk_shapes.cpp @ONLY)
