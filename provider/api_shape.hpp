// The API the provider speaks: which routes create and look up, where the idempotency key
// travels, how bodies are encoded, what a created object looks like, and how errors are
// written. The seeds' `jobs` shape is the default (POST /jobs with a JSON body and an
// Idempotency-Key header); `stripe` speaks Stripe's v1 wire (form-encoded creates on any
// /v1/<resource>, Stripe's error objects); a shape file describes any other. The core
// routes by the shape, so the journal knows a create from a lookup whatever the paths.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "provider/http_types.hpp"
#include "provider/journal.hpp"
#include "provider/profile.hpp"

namespace retryproof::provider {

// A method and a path; a path segment in braces (`{resource}`) matches any one non-empty
// segment. `{key}` is the idempotency key, and as the last segment it takes the rest of the
// path, slashes included: keys such as "order/42" are common.
struct Route {
  std::string method;
  std::string path;

  // The segments the braces matched, when `path` matches (the method aside).
  std::optional<std::map<std::string, std::string>> match(std::string_view request_path) const;
  std::string describe() const;  // "POST /v1/{resource}"
};

enum class BodyEncoding { json, form };

struct KeyPlace {
  enum class Where { header, body_field } where = Where::header;
  std::string name = "Idempotency-Key";  // the header, or the body field's dotted path
};

struct Lookup {
  Route route;
  // Where the key is: the route's {key} segment, or this query parameter.
  std::optional<std::string> query_parameter;
};

struct CreatedObject {
  std::string id_prefix = "job_";
  std::vector<std::string> echoed = {"orderId"};        // fields copied from the request
  nlohmann::json constants = nlohmann::json::object();  // {"object": "payment_intent"}
};

// How one of the provider's error codes reads under a shape: its status, and the code and
// message clients are sent instead of the provider's own.
struct ErrorOverride {
  std::optional<int> status;
  std::optional<std::string> code;
  std::optional<std::string> message;
};

// Where a request goes under a shape.
struct RouteMatch {
  RequestKind kind = RequestKind::other;  // create, lookup, or other when no route matched
  std::string allowed;  // the matched route's method, when the request used another
  std::string key;      // a lookup's key, from its path or its query parameter
};

struct ApiShape {
  std::string name = "jobs";
  std::vector<Route> creates = {{"POST", "/jobs"}};
  KeyPlace key;
  std::vector<BodyEncoding> encodings = {BodyEncoding::json};
  std::vector<Lookup> lookups = {{{"GET", "/jobs/by-idempotency-key/{key}"}, std::nullopt}};
  CreatedObject created;
  std::optional<ErrorFormat> error_format;                            // the profile's when empty
  std::map<std::string, ErrorOverride, std::less<>> error_overrides;  // by the provider's code
  std::string replay_header = "Idempotent-Replayed";
  std::optional<Profile> profile;  // the semantics the shape implies (stripe's replays)

  // The route a request takes: a create, a lookup (and its key), or neither.
  RouteMatch match(const HttpRequest& request) const;
  bool accepts(BodyEncoding encoding) const;
  // The encoding a create's body is read in: the shape's one, or, when it accepts both,
  // the one its Content-Type names (JSON unless it says form).
  BodyEncoding encoding_of(const HttpRequest& request) const;
  // The payload in the one form its fingerprint is taken in: without the key (when the key
  // travels in the body), and with string leaves when the shape accepts forms, so that key
  // order and encoding never change it.
  nlohmann::json canonical_payload(const nlohmann::json& payload) const;
  // The body of a create or lookup, decoded by its Content-Type among the shape's
  // encodings. Throws std::invalid_argument saying what is wrong.
  nlohmann::json decode_body(const HttpRequest& request) const;
  // The key of a create whose body is `payload`: from its header or its body field. Empty
  // when absent.
  std::string key_of(const HttpRequest& request, const nlohmann::json& payload) const;
  // The job clients are sent for a new operation.
  nlohmann::json created_object(std::string id, const nlohmann::json& payload) const;
};

// The seeds' shape: POST /jobs and GET /jobs/by-idempotency-key/{key}.
const ApiShape& jobs_shape();
// Stripe's v1 wire (see docs/provider.md for the pages it follows).
const ApiShape& stripe_shape();

// A shape by built-in name ("jobs", "stripe") or from a JSON file. Throws
// std::invalid_argument naming the file, the JSON path and what was expected.
ApiShape load_api_shape(std::string_view name_or_file);
// A shape document, already parsed; `origin` names it in errors.
ApiShape api_shape_from_json(const nlohmann::json& document, const std::string& origin);

// "jobs, stripe"
std::string api_shape_names();

}  // namespace retryproof::provider
