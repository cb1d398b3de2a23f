// The shapes of the official SDKs' APIs that examples/ judges (examples/<sdk>-node/
// shape.json), built into the program by cmake/sdk_shapes.cmake: each by its "name".
#pragma once

#include <string_view>
#include <vector>

namespace retryproof::provider {

struct ShapeDocument {
  std::string_view origin;  // "examples/square-node/shape.json", for errors
  std::string_view text;    // the shape document
};

const std::vector<ShapeDocument>& sdk_shape_documents();

}  // namespace retryproof::provider
