// Shape documents: the built-in shapes and shape files, read strictly. Every field is
// validated at start, and a mistake names the file, the JSON path and what was expected.
#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <stdexcept>
#include <string_view>

#include "common/json_file.hpp"
#include "common/json_node.hpp"
#include "provider/api_shape.hpp"
#include "provider/error_codes.hpp"
#include "provider/sdk_shapes.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;

// {"X-Amz-Target": "secretsmanager.CreateSecret"}: names, each with the one value it must have.
std::vector<std::pair<std::string, std::string>> read_conditions(const JsonNode& node,
                                                                 bool header_names) {
  node.any_object();
  if (node.value.empty()) node.fail("expected at least one name and the value it must have");
  std::vector<std::pair<std::string, std::string>> conditions;
  for (const auto& [name, unused] : node.value.items()) {
    const JsonNode value = node.field(name);
    const bool token = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
             std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
    });
    if (header_names && !token)
      value.fail("not a header name (letters, digits and -_.!#$%&'*+^`|~)");
    if (!header_names && name.empty()) value.fail("a body field is a dotted path, not empty");
    conditions.emplace_back(name, value.non_empty_string());
  }
  return conditions;
}

// A shape file's route: {"method": "POST", "path": "/v1/{resource}"}, with the "headers" and
// "bodyFields" that tell operations on one path apart; a lookup's may also name its
// "queryParameter", "bodyField" and "list".
Route read_route(const JsonNode& node, bool lookup = false) {
  if (lookup) {
    node.object({"method", "path", "headers", "bodyFields", "queryParameter", "bodyField", "list"});
  } else {
    node.object({"method", "path", "headers", "bodyFields"});
  }
  if (!node.has("method") || !node.has("path"))
    node.fail("a route names its \"method\" and \"path\"");
  Route route{node.field("method").non_empty_string(), node.field("path").non_empty_string()};
  if (!route.path.starts_with('/')) node.field("path").fail("a path begins with /");
  if (node.has("headers")) route.headers = read_conditions(node.field("headers"), true);
  if (node.has("bodyFields")) route.body_fields = read_conditions(node.field("bodyFields"), false);
  return route;
}

// Routes that share a method and a path tell their operations apart by what the request
// carries: one that names nothing would take every other operation there for itself.
void check_shared_paths(const ApiShape& shape) {
  std::vector<std::pair<const Route*, std::string>> routes;
  for (std::size_t i = 0; i < shape.lookups.size(); ++i)
    routes.emplace_back(&shape.lookups[i].route, "$.lookups[" + std::to_string(i) + "]");
  for (std::size_t i = 0; i < shape.creates.size(); ++i)
    routes.emplace_back(&shape.creates[i], "$.creates[" + std::to_string(i) + "]");
  for (const auto& [route, path] : routes) {
    if (route->names_operation()) continue;
    for (const auto& [other, other_path] : routes) {
      if (other == route || !other->names_operation() || other->method != route->method ||
          other->path != route->path)
        continue;
      throw FormatError(path + ": " + route->describe() + " is shared with " + other_path + " (" +
                        other->describe() +
                        "): each route on a shared path names its operation in \"headers\" or "
                        "\"bodyFields\", so that an unknown operation is never taken for it");
    }
  }
}

const std::vector<std::pair<std::string_view, BodyEncoding>> kEncodings = {
    {"json", BodyEncoding::json}, {"form", BodyEncoding::form}};

const std::vector<std::pair<std::string_view, ErrorFormat>> kErrorFormats = {
    {"plain", ErrorFormat::plain_json},
    {"problem", ErrorFormat::problem_json},
    {"stripe", ErrorFormat::stripe_object}};

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

// The names a template's strings put in braces, each with its JSON path.
void placeholders_in(const JsonNode& node,
                     std::vector<std::pair<std::string, std::string>>& found) {
  if (node.value.is_string()) {
    const std::string text = node.value.get<std::string>();
    for (std::size_t open = text.find('{'); open != std::string::npos;
         open = text.find('{', open + 1)) {
      const std::size_t close = text.find('}', open);
      if (close == std::string::npos) break;
      found.emplace_back(text.substr(open + 1, close - open - 1), node.path);
    }
  } else if (node.value.is_array()) {
    for (std::size_t i = 0; i < node.value.size(); ++i)
      placeholders_in(node.item(i), found);
  } else if (node.value.is_object()) {
    for (const auto& [name, unused] : node.value.items())
      placeholders_in(node.field(name), found);
  }
}

std::map<std::string, std::string, std::less<>> read_values(const JsonNode& node) {
  std::map<std::string, std::string, std::less<>> values;
  node.any_object();
  for (const auto& [name, unused] : node.value.items()) {
    if (name == "status" || name == "code" || name == "message")
      node.field(name).fail("\"" + name + "\" is filled in by the provider; name another value");
    values[name] = node.field(name).string();
  }
  return values;
}

// {"template": {...}, "values": {...}}: every name in braces is a part of the error the
// provider fills in, or a value the shape gives; a misspelt one is refused, not sent.
void read_error_template(const JsonNode& errors, ApiShape& shape) {
  if (errors.has("format"))
    errors.fail("an error body has a \"format\" or a \"template\", not both");
  ErrorTemplate form{errors.field("template").value, {}};
  if (!form.body.is_object() && !form.body.is_array())
    errors.field("template").fail("expected a JSON object or array: the error body");
  if (errors.has("values")) form.values = read_values(errors.field("values"));
  std::vector<std::pair<std::string, std::string>> used;
  placeholders_in(errors.field("template"), used);
  for (const auto& [name, path] : used) {
    if (name == "status" || name == "code" || name == "message" || form.values.contains(name))
      continue;
    throw FormatError(path + ": {" + name +
                      "} is not a part of an error: expected {status}, {code}, {message} or "
                      "the name of one of $.errors.values");
  }
  shape.error_template = std::move(form);
}

// A media type as a Content-Type header carries it: type "/" subtype, both tokens (RFC 9110
// 8.3.1), then any parameters; nothing that could end the header.
std::string read_media_type(const JsonNode& node) {
  const std::string text = node.non_empty_string();
  const auto token = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  };
  const std::size_t slash = text.find('/');
  const std::size_t end = std::min(text.find(';'), text.size());
  const bool type_ok =
      slash != std::string::npos && slash > 0 && slash + 1 < end &&
      std::all_of(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(slash), token) &&
      std::all_of(text.begin() + static_cast<std::ptrdiff_t>(slash) + 1,
                  text.begin() + static_cast<std::ptrdiff_t>(end), token);
  const bool printable = std::all_of(text.begin(), text.end(), [](char c) {
    return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f;
  });
  if (!type_ok || !printable) {
    node.fail(
        "expected a media type, type/subtype with optional ;parameters, such as "
        "\"application/x-amz-json-1.1\" or \"application/hal+json\"");
  }
  return text;
}

// "errors": {"format": "stripe", "codes": {"idempotency_key_in_flight": {"status": 409,
// "code": "idempotency_key_in_use", "message": "..."}}}, or a "template" of the API's own;
// "contentType" for the media type they are sent as.
void read_errors(const JsonNode& errors, ApiShape& shape) {
  errors.object({"format", "template", "values", "codes", "contentType"});
  if (errors.has("contentType"))
    shape.error_content_type = read_media_type(errors.field("contentType"));
  if (errors.has("format")) shape.error_format = one_of(errors.field("format"), kErrorFormats);
  if (errors.has("template")) {
    read_error_template(errors, shape);
  } else if (errors.has("values")) {
    errors.field("values").fail("values fill a \"template\"; this shape has none");
  }
  if (!errors.has("codes")) return;
  const JsonNode codes = errors.field("codes");
  codes.any_object();
  for (const auto& [code, unused] : codes.value.items()) {
    const JsonNode row = codes.field(code);
    const ErrorCodeRow* known = error_code_row(code);
    if (known == nullptr || !known->restatable) {
      row.fail("not an error code of the provider; expected one of " +
               std::string(restatable_codes_text()));
    }
    row.object({"status", "code", "message", "values"});
    ErrorOverride& override = shape.error_overrides[code];
    if (row.has("status")) override.status = row.field("status").integer(400, 599);
    if (row.has("code")) override.code = row.field("code").non_empty_string();
    if (row.has("message")) override.message = row.field("message").non_empty_string();
    if (row.has("values")) {
      if (!shape.error_template)
        row.field("values").fail("values fill a \"template\"; this shape has none");
      override.values = read_values(row.field("values"));
    }
  }
}

// "key": {"header": NAME}, {"bodyField": "a.b"}, or "none".
KeyPlace read_key(const JsonNode& key) {
  constexpr const char* kExpected =
      "the key is in a \"header\" (its name) or a \"bodyField\" (its dotted path), or "
      "\"none\" for an API without idempotency keys";
  if (key.value.is_string()) {
    if (key.value != "none") key.fail(kExpected);
    return {KeyPlace::Where::none, ""};
  }
  key.object({"header", "bodyField"});
  if (key.has("header") == key.has("bodyField")) key.fail(kExpected);
  return key.has("header")
             ? KeyPlace{KeyPlace::Where::header, key.field("header").non_empty_string()}
             : KeyPlace{KeyPlace::Where::body_field, key.field("bodyField").non_empty_string()};
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

const ApiShape& jobs_shape() {
  static const ApiShape shape = api_shape_from_json(json::parse(kJobs), "(built-in jobs)");
  return shape;
}

const ApiShape& stripe_shape() {
  static const ApiShape shape = api_shape_from_json(json::parse(kStripe), "(built-in stripe)");
  return shape;
}

namespace {

// Every built-in shape: the seeds', Stripe's, and the official SDKs' (sdk_shapes.hpp).
const std::vector<ApiShape>& built_in_shapes() {
  static const std::vector<ApiShape> shapes = [] {
    std::vector<ApiShape> all = {jobs_shape(), stripe_shape()};
    for (const ShapeDocument& document : sdk_shape_documents())
      all.push_back(api_shape_from_json(json::parse(document.text), std::string(document.origin)));
    return all;
  }();
  return shapes;
}

}  // namespace

std::string api_shape_names() {
  std::string names;
  for (const ApiShape& shape : built_in_shapes())
    names += (names.empty() ? "" : ", ") + shape.name;
  return names;
}

namespace {

std::vector<BodyEncoding> read_encodings(const JsonNode& encodings) {
  if (encodings.array().empty()) encodings.fail("expected \"json\", \"form\" or both");
  std::vector<BodyEncoding> read;
  for (std::size_t i = 0; i < encodings.value.size(); ++i) {
    const std::string name = encodings.item(i).string();
    const auto known = std::find_if(kEncodings.begin(), kEncodings.end(),
                                    [&](const auto& entry) { return entry.first == name; });
    if (known == kEncodings.end()) encodings.item(i).fail("expected \"json\" or \"form\"");
    read.push_back(known->second);
  }
  return read;
}

std::vector<Lookup> read_lookups(const JsonNode& lookups) {
  lookups.array();
  std::vector<Lookup> read;
  for (std::size_t i = 0; i < lookups.value.size(); ++i) {
    const JsonNode item = lookups.item(i);
    Lookup lookup{read_route(item, true), std::nullopt, std::nullopt, std::nullopt};
    if (item.has("list")) lookup.list_field = item.field("list").non_empty_string();
    if (item.has("queryParameter") && item.has("bodyField"))
      item.fail("a lookup reads its value from a \"queryParameter\" or a \"bodyField\", not both");
    if (item.has("queryParameter")) {
      lookup.query_parameter = item.field("queryParameter").non_empty_string();
    } else if (item.has("bodyField")) {
      lookup.body_field = item.field("bodyField").non_empty_string();
    } else if (lookup.route.path != "/{key}" && !lookup.route.path.ends_with("/{key}") &&
               lookup.route.path.find("/{key}/") == std::string::npos) {
      item.fail(
          "a lookup finds the key (or, without one, the operation field's value) in a "
          "path segment that is exactly {key}, in a \"queryParameter\" or in a \"bodyField\"");
    }
    read.push_back(std::move(lookup));
  }
  return read;
}

// The shape's "created" object, over the defaults already in `into`.
void read_created(const JsonNode& created, CreatedObject& into) {
  created.object({"idPrefix", "idField", "envelope", "echo", "constants"});
  if (created.has("idPrefix")) into.id_prefix = created.field("idPrefix").string();
  // One field name each: a dot would be read as a path but written as a name.
  const auto field_name = [&](const char* name) {
    std::string text = created.field(name).non_empty_string();
    if (text.find('.') != std::string::npos) created.field(name).fail("a field name, without dots");
    return text;
  };
  if (created.has("idField")) into.id_field = field_name("idField");
  if (created.has("envelope")) into.envelope = field_name("envelope");
  if (created.has("echo")) {
    const JsonNode echo = created.field("echo");
    into.echoed.clear();
    for (std::size_t i = 0; i < echo.array().size(); ++i)
      into.echoed.push_back(echo.item(i).non_empty_string());
  }
  if (created.has("constants")) {
    const JsonNode constants = created.field("constants");
    constants.any_object();
    into.constants = constants.value;
  }
}
}  // namespace

ApiShape api_shape_from_json(const json& document, const std::string& origin) {
  try {
    const JsonNode root{document, "$"};
    root.object({"name", "creates", "key", "operationField", "encodings", "lookups", "created",
                 "errors", "replayHeader", "profile"});
    ApiShape shape;
    if (root.has("name")) shape.name = root.field("name").non_empty_string();
    if (root.has("creates")) {
      const JsonNode creates = root.field("creates");
      if (creates.array().empty()) creates.fail("a shape has at least one create route");
      shape.creates.clear();
      for (std::size_t i = 0; i < creates.value.size(); ++i)
        shape.creates.push_back(read_route(creates.item(i)));
    }
    if (root.has("key")) shape.key = read_key(root.field("key"));
    if (root.has("operationField"))
      shape.operation_field = root.field("operationField").non_empty_string();
    if (!shape.key.exists() && !shape.operation_field) {
      root.fail(
          "an API without a key (\"key\": \"none\") names the body field that identifies the "
          "business operation in \"operationField\" (a dotted path, such as "
          "\"metadata.orderId\"): creates are grouped into operations by it");
    }
    if (root.has("encodings")) shape.encodings = read_encodings(root.field("encodings"));
    if (root.has("lookups")) shape.lookups = read_lookups(root.field("lookups"));
    if (root.has("created")) read_created(root.field("created"), shape.created);
    check_shared_paths(shape);
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
  for (const ApiShape& shape : built_in_shapes()) {
    if (shape.name == name_or_file) return shape;
  }
  const std::string file(name_or_file);
  if (!std::ifstream(file)) {
    throw std::invalid_argument("\"" + file + "\" is neither a built-in shape (" +
                                api_shape_names() + ") nor a readable shape file");
  }
  return api_shape_from_json(read_json_file(file), file);
}

}  // namespace retryproof::provider
