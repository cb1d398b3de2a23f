#include "provider/api_shape.hpp"

#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/form_body.hpp"
#include "common/json_file.hpp"
#include "common/json_node.hpp"
#include "common/json_text.hpp"
#include "provider/json_body.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;

// A path's segments one by one, without a leading slash: "/a/b" is "a", "b"; "/a/" is
// "a", "". Read in place: matching a route allocates nothing, on every request.
class Segments {
 public:
  explicit Segments(std::string_view path) : path_(path), start_(path.starts_with('/') ? 1 : 0) {}
  bool done() const { return start_ > path_.size(); }
  std::string_view next() {
    const std::size_t slash = std::min(path_.find('/', start_), path_.size());
    const std::string_view segment = path_.substr(start_, slash - start_);
    start_ = slash + 1;
    return segment;
  }
  std::string_view rest() {  // the next segment and all after it, slashes included
    const std::string_view rest = path_.substr(start_);
    start_ = path_.size() + 1;
    return rest;
  }

 private:
  std::string_view path_;
  std::size_t start_;
};

bool is_capture(std::string_view segment) {
  return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

// The value at a dotted path of an object ("metadata.key"), or null.
const json* at_path(const json& object, const std::string& dotted) {
  const json* at = &object;
  std::size_t start = 0;
  while (start <= dotted.size()) {
    const std::size_t dot = std::min(dotted.find('.', start), dotted.size());
    if (!at->is_object()) return nullptr;
    const auto found = at->find(dotted.substr(start, dot - start));
    if (found == at->end()) return nullptr;
    at = &*found;
    start = dot + 1;
  }
  return at;
}

void erase_path(json& object, std::string_view dotted) {
  if (!object.is_object()) return;
  const auto dot = dotted.find('.');
  if (dot == std::string_view::npos) {
    object.erase(std::string(dotted));
    return;
  }
  const auto found = object.find(std::string(dotted.substr(0, dot)));
  if (found != object.end()) erase_path(*found, dotted.substr(dot + 1));
}

// A shape file's route: {"method": "POST", "path": "/v1/{resource}"}.
Route read_route(const JsonNode& node) {
  node.object({"method", "path", "queryParameter"});
  if (!node.has("method") || !node.has("path"))
    node.fail("a route names its \"method\" and \"path\"");
  Route route{node.field("method").non_empty_string(), node.field("path").non_empty_string()};
  if (!route.path.starts_with('/')) node.field("path").fail("a path begins with /");
  return route;
}

const std::vector<std::pair<std::string_view, BodyEncoding>> kEncodings = {
    {"json", BodyEncoding::json}, {"form", BodyEncoding::form}};

const std::vector<std::pair<std::string_view, ErrorFormat>> kErrorFormats = {
    {"plain", ErrorFormat::plain_json},
    {"problem", ErrorFormat::problem_json},
    {"stripe", ErrorFormat::stripe_object}};

// The provider's error codes a shape may restate.
constexpr std::array<std::string_view, 10> kErrorCodes = {
    "idempotency_key_required",
    "idempotency_key_invalid",
    "idempotency_key_in_flight",
    "idempotency_key_reused_with_different_payload",
    "invalid_json",
    "invalid_form_body",
    "payload_too_large",
    "not_found",
    "rate_limited",
    "temporarily_unavailable"};

template <typename Value>
Value one_of(const JsonNode& node, const std::vector<std::pair<std::string_view, Value>>& known) {
  const std::string name = node.string();
  for (const auto& [candidate, value] : known) {
    if (candidate == name) return value;
  }
  std::string expected;
  for (const auto& [candidate, value] : known)
    expected += (expected.empty() ? "\"" : ", \"") + std::string(candidate) + "\"";
  node.fail("expected one of " + expected);
}

// "errors": {"format": "stripe", "codes": {"idempotency_key_in_flight": {"status": 409,
// "code": "idempotency_key_in_use", "message": "..."}}}
void read_errors(const JsonNode& errors, ApiShape& shape) {
  errors.object({"format", "codes"});
  if (errors.has("format")) shape.error_format = one_of(errors.field("format"), kErrorFormats);
  if (!errors.has("codes")) return;
  const JsonNode codes = errors.field("codes");
  codes.any_object();
  for (const auto& [code, unused] : codes.value.items()) {
    const JsonNode row = codes.field(code);
    if (std::find(kErrorCodes.begin(), kErrorCodes.end(), code) == kErrorCodes.end()) {
      std::string known;
      for (const auto name : kErrorCodes)
        known += (known.empty() ? "" : ", ") + std::string(name);
      row.fail("not an error code of the provider; expected one of " + known);
    }
    row.object({"status", "code", "message"});
    ErrorOverride& override = shape.error_overrides[code];
    if (row.has("status")) override.status = row.field("status").integer(400, 599);
    if (row.has("code")) override.code = row.field("code").non_empty_string();
    if (row.has("message")) override.message = row.field("message").non_empty_string();
  }
}

// Built-in shapes are shape documents too: one format, one loader.
constexpr std::string_view kJobs = R"({"name": "jobs"})";

// Stripe API v1, from its documentation: form-encoded parameters with bracket notation
// (https://docs.stripe.com/api), the Idempotency-Key header and keys of up to 255
// characters, the first response replayed, 5xx included
// (https://docs.stripe.com/api/idempotent_requests), error objects of type and code, a
// changed request under the same key an idempotency_error
// (https://docs.stripe.com/error-low-level), a concurrent request with the key in use a 409
// idempotency_key_in_use (https://docs.stripe.com/error-codes), and no lookup by key: a
// Stripe client reconciles by sending the same request with the same key again.
constexpr std::string_view kStripe = R"({
  "name": "stripe",
  "creates": [{"method": "POST", "path": "/v1/{resource}"}],
  "key": {"header": "Idempotency-Key"},
  "encodings": ["form"],
  "lookups": [],
  "created": {"idPrefix": "pi_", "echo": ["amount", "currency", "description", "metadata"],
              "constants": {"object": "payment_intent", "livemode": false}},
  "errors": {"format": "stripe", "codes": {
    "idempotency_key_reused_with_different_payload": {"status": 400, "message":
      "Keys for idempotent requests can only be used with the same parameters they were first used with."},
    "idempotency_key_in_flight": {"status": 409, "code": "idempotency_key_in_use", "message":
      "There is currently another in-progress request using this Idempotent Key. Please retry your request later."},
    "invalid_form_body": {"code": "parameter_invalid_string"},
    "not_found": {"code": "resource_missing", "message": "Unrecognized request URL."},
    "rate_limited": {"code": "rate_limit"}}},
  "replayHeader": "Idempotent-Replayed",
  "profile": "stripe"
})";

}  // namespace

std::optional<std::map<std::string, std::string>> Route::match(
    std::string_view request_path) const {
  Segments pattern(path);
  Segments actual(request_path);
  std::map<std::string, std::string> captures;
  while (!pattern.done()) {
    if (actual.done()) return std::nullopt;
    const std::string_view wanted = pattern.next();
    // A trailing {key} takes the rest of the path: "/jobs/by-idempotency-key/order/42".
    const std::string_view given =
        wanted == "{key}" && pattern.done() ? actual.rest() : actual.next();
    if (is_capture(wanted)) {
      if (given.empty()) return std::nullopt;
      captures[std::string(wanted.substr(1, wanted.size() - 2))] = std::string(given);
    } else if (wanted != given) {
      return std::nullopt;
    }
  }
  if (!actual.done()) return std::nullopt;
  return captures;
}

std::string Route::describe() const {
  return method + " " + path;
}

RouteMatch ApiShape::match(const HttpRequest& request) const {
  // A GET route serves HEAD too, as every HTTP server's does.
  const auto method_fits = [&](const Route& route) {
    return request.method == route.method || (route.method == "GET" && request.method == "HEAD");
  };
  // One path may serve a create and a lookup by its methods (POST /orders, GET /orders?t=).
  std::string allowed;
  const auto path_allows = [&](const Route& route) {
    if (allowed.find(route.method) == std::string::npos)
      allowed += (allowed.empty() ? "" : ", ") + route.method;
  };
  for (const auto& lookup : lookups) {
    const auto captures = lookup.route.match(request.path);
    if (!captures) continue;
    if (!method_fits(lookup.route)) {
      path_allows(lookup.route);
      continue;
    }
    // No parameter, or an empty one: a lookup of no key, which finds nothing.
    return {RequestKind::lookup,
            {},
            lookup.query_parameter ? form_field(request.query, *lookup.query_parameter).value_or("")
                                   : captures->at("key")};
  }
  for (const auto& create : creates) {
    if (!create.match(request.path)) continue;
    if (method_fits(create)) return {RequestKind::create, {}, {}};
    path_allows(create);
  }
  return {RequestKind::other, allowed, {}};
}

BodyEncoding ApiShape::encoding_of(const HttpRequest& request) const {
  if (encodings.size() == 1) return encodings.front();
  const auto content_type = request.headers.find("Content-Type");
  const bool says_form = content_type != request.headers.end() &&
                         content_type->second.starts_with("application/x-www-form-urlencoded");
  return says_form ? BodyEncoding::form : BodyEncoding::json;
}

bool ApiShape::accepts(BodyEncoding encoding) const {
  return std::find(encodings.begin(), encodings.end(), encoding) != encodings.end();
}

json ApiShape::canonical_payload(const json& payload) const {
  json canonical = payload;
  if (key.where == KeyPlace::Where::body_field) erase_path(canonical, key.name);
  return accepts(BodyEncoding::form) ? with_string_leaves(canonical) : canonical;
}

json ApiShape::decode_body(const HttpRequest& request) const {
  // With one encoding the body is read as that whatever its Content-Type says: the
  // original's curl lines post JSON under curl's form content type.
  return encoding_of(request) == BodyEncoding::form ? parse_form_body(request.body)
                                                    : parse_object_body(request.body);
}

std::string ApiShape::key_of(const HttpRequest& request, const json& payload) const {
  if (key.where == KeyPlace::Where::header) {
    const auto found = request.headers.find(key.name);
    return found == request.headers.end() ? std::string() : found->second;
  }
  const json* value = at_path(payload, key.name);
  if (value == nullptr || value->is_null()) return {};
  return value->is_string() ? value->get<std::string>() : compact_json(*value);
}

json ApiShape::created_object(std::string id, const json& payload) const {
  json object = created.constants;
  object["id"] = std::move(id);
  for (const auto& field : created.echoed) {
    if (const json* value = at_path(payload, field)) object[field] = *value;
  }
  return object;
}

const ApiShape& jobs_shape() {
  static const ApiShape shape = api_shape_from_json(json::parse(kJobs), "(built-in jobs)");
  return shape;
}

const ApiShape& stripe_shape() {
  static const ApiShape shape = api_shape_from_json(json::parse(kStripe), "(built-in stripe)");
  return shape;
}

std::string api_shape_names() {
  return "jobs, stripe";
}

ApiShape api_shape_from_json(const json& document, const std::string& origin) {
  try {
    const JsonNode root{document, "$"};
    root.object({"name", "creates", "key", "encodings", "lookups", "created", "errors",
                 "replayHeader", "profile"});
    ApiShape shape;
    if (root.has("name")) shape.name = root.field("name").non_empty_string();
    if (root.has("creates")) {
      const JsonNode creates = root.field("creates");
      if (creates.array().empty()) creates.fail("a shape has at least one create route");
      shape.creates.clear();
      for (std::size_t i = 0; i < creates.value.size(); ++i)
        shape.creates.push_back(read_route(creates.item(i)));
    }
    if (root.has("key")) {
      const JsonNode key = root.field("key");
      key.object({"header", "bodyField"});
      if (key.has("header") == key.has("bodyField")) {
        key.fail("the key is in a \"header\" (its name) or a \"bodyField\" (its dotted path)");
      }
      shape.key =
          key.has("header")
              ? KeyPlace{KeyPlace::Where::header, key.field("header").non_empty_string()}
              : KeyPlace{KeyPlace::Where::body_field, key.field("bodyField").non_empty_string()};
    }
    if (root.has("encodings")) {
      const JsonNode encodings = root.field("encodings");
      if (encodings.array().empty()) encodings.fail("expected \"json\", \"form\" or both");
      shape.encodings.clear();
      for (std::size_t i = 0; i < encodings.value.size(); ++i) {
        const std::string name = encodings.item(i).string();
        const auto known = std::find_if(kEncodings.begin(), kEncodings.end(),
                                        [&](const auto& entry) { return entry.first == name; });
        if (known == kEncodings.end()) encodings.item(i).fail("expected \"json\" or \"form\"");
        shape.encodings.push_back(known->second);
      }
    }
    if (root.has("lookups")) {
      const JsonNode lookups = root.field("lookups");
      lookups.array();
      shape.lookups.clear();
      for (std::size_t i = 0; i < lookups.value.size(); ++i) {
        const JsonNode item = lookups.item(i);
        Lookup lookup{read_route(item), std::nullopt};
        if (item.has("queryParameter")) {
          lookup.query_parameter = item.field("queryParameter").non_empty_string();
        } else if (lookup.route.path.find("{key}") == std::string::npos) {
          item.fail("a lookup finds the key in its path ({key}) or in a \"queryParameter\"");
        }
        shape.lookups.push_back(std::move(lookup));
      }
    }
    if (root.has("created")) {
      const JsonNode created = root.field("created");
      created.object({"idPrefix", "echo", "constants"});
      if (created.has("idPrefix")) shape.created.id_prefix = created.field("idPrefix").string();
      if (created.has("echo")) {
        const JsonNode echo = created.field("echo");
        shape.created.echoed.clear();
        for (std::size_t i = 0; i < echo.array().size(); ++i)
          shape.created.echoed.push_back(echo.item(i).non_empty_string());
      }
      if (created.has("constants")) {
        const JsonNode constants = created.field("constants");
        constants.any_object();
        shape.created.constants = constants.value;
      }
    }
    if (root.has("errors")) read_errors(root.field("errors"), shape);
    if (root.has("replayHeader"))
      shape.replay_header = root.field("replayHeader").non_empty_string();
    if (root.has("profile")) {
      try {
        shape.profile = parse_profile(root.field("profile").string());
      } catch (const std::invalid_argument& error) {
        root.field("profile").fail(error.what());
      }
    }
    return shape;
  } catch (const FormatError& error) {
    throw std::invalid_argument(origin + ": " + error.what());
  }
}

ApiShape load_api_shape(std::string_view name_or_file) {
  if (name_or_file == "jobs") return jobs_shape();
  if (name_or_file == "stripe") return stripe_shape();
  const std::string file(name_or_file);
  if (!std::ifstream(file)) {
    throw std::invalid_argument("\"" + file + "\" is neither a built-in shape (" +
                                api_shape_names() + ") nor a readable shape file");
  }
  return api_shape_from_json(read_json_file(file), file);
}

}  // namespace retryproof::provider
