#include "provider/api_shape.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "common/fingerprint.hpp"
#include "common/form_body.hpp"
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

// A dotted path as a JSON Pointer: "metadata.orderId" is "/metadata/orderId".
std::string pointer_of(std::string_view dotted) {
  std::string pointer;
  std::size_t start = 0;
  while (start <= dotted.size()) {
    const std::size_t dot = std::min(dotted.find('.', start), dotted.size());
    pointer += '/';
    for (const char c : dotted.substr(start, dot - start))  // RFC 6901's escapes
      pointer += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    start = dot + 1;
  }
  return pointer;
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
  std::string text = method + " " + path;
  std::string_view joint = " with ";
  for (const auto& [name, value] : headers) {
    text += std::string(joint) + name + ": " + value;
    joint = ", ";
  }
  for (const auto& [field, value] : body_fields) {
    text += std::string(joint) + "body " + field + " = " + value;
    joint = ", ";
  }
  return text;
}

namespace {

// A body field's value as routes and lookups compare it: a string as it is, another JSON
// value as its compact text; nothing when the body lacks it.
std::optional<std::string> field_text(const json& body, std::string_view dotted) {
  const json* value = value_at_path(body, dotted);
  if (value == nullptr || value->is_null()) return std::nullopt;
  return value->is_string() ? value->get<std::string>() : compact_json(*value);
}

// The request's body, decoded once for the routes that read it; null when it is not one.
class BodyOnce {
 public:
  BodyOnce(const ApiShape& shape, const HttpRequest& request) : shape_(shape), request_(request) {}
  const json& get() {
    if (!decoded_) {
      try {
        decoded_ = shape_.decode_body(request_);
      } catch (const std::invalid_argument&) {
        decoded_ = json();
      }
    }
    return *decoded_;
  }

 private:
  const ApiShape& shape_;
  const HttpRequest& request_;
  std::optional<json> decoded_;
};

bool carries(const Route& route, const HttpRequest& request, BodyOnce& body) {
  for (const auto& [name, value] : route.headers) {
    const auto [first, last] = request.headers.equal_range(name);
    if (std::none_of(first, last, [&](const auto& header) { return header.second == value; }))
      return false;
  }
  for (const auto& [field, value] : route.body_fields) {
    if (field_text(body.get(), field) != value) return false;
  }
  return true;
}

}  // namespace

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
  BodyOnce body(*this, request);
  for (const auto& lookup : lookups) {
    const auto captures = lookup.route.match(request.path);
    if (!captures) continue;
    if (!method_fits(lookup.route)) {
      path_allows(lookup.route);
      continue;
    }
    if (!carries(lookup.route, request, body)) continue;  // another operation on the path
    // No parameter, or an empty one: a lookup of no key, which finds nothing.
    std::string looked_up =
        lookup.query_parameter ? form_field(request.query, *lookup.query_parameter).value_or("")
        : lookup.body_field    ? field_text(body.get(), *lookup.body_field).value_or("")
                               : captures->at("key");
    return {RequestKind::lookup, {}, std::move(looked_up), &lookup};
  }
  for (const auto& create : creates) {
    if (!create.match(request.path)) continue;
    if (!method_fits(create)) {
      path_allows(create);
    } else if (carries(create, request, body)) {
      return {RequestKind::create, {}, {}};
    }
  }
  // An operation no route names, on a path that routes share by what the request carries,
  // is `other`: never taken for a create.
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

bool ApiShape::fingerprints_while_parsing(const HttpRequest& request) const {
  return key.where != KeyPlace::Where::body_field && encoding_of(request) == BodyEncoding::json;
}

std::string ApiShape::fingerprint_of(const HttpRequest& request, const json* decoded) const {
  if (decoded == nullptr && fingerprints_while_parsing(request))
    return sha256_hex(canonical_object_body(request.body, accepts(BodyEncoding::form)));
  const json payload = decoded == nullptr ? decode_body(request) : json();
  const json& body = decoded == nullptr ? payload : *decoded;
  // canonical_payload() copies the payload to change it; most shapes change nothing.
  if (key.where != KeyPlace::Where::body_field && !accepts(BodyEncoding::form))
    return fingerprint(body);
  return fingerprint(canonical_payload(body));
}

json ApiShape::decode_body(const HttpRequest& request) const {
  // With one encoding the body is read as that whatever its Content-Type says: the
  // original's curl lines post JSON under curl's form content type.
  return encoding_of(request) == BodyEncoding::form ? parse_form_body(request.body)
                                                    : parse_object_body(request.body);
}

std::string ApiShape::key_of(const HttpRequest& request, const json& payload) const {
  if (key.where == KeyPlace::Where::none) return {};
  if (key.where == KeyPlace::Where::header) {
    const auto found = request.headers.find(key.name);
    return found == request.headers.end() ? std::string() : found->second;
  }
  const json* value = value_at_path(payload, key.name);
  if (value == nullptr || value->is_null()) return {};
  return value->is_string() ? value->get<std::string>() : compact_json(*value);
}

json ApiShape::created_object(std::string id, const json& payload) const {
  json object = created.constants;
  object[created.id_field] = std::move(id);
  for (const auto& field : created.echoed) {
    // A dotted path is echoed where it stood: "metadata.orderId" as {"metadata": {...}}.
    const json* value = value_at_path(payload, field);
    if (value == nullptr) continue;
    if (field.find('.') == std::string::npos) {  // every create of the jobs shape: no parse
      object[field] = *value;
      continue;
    }
    try {
      object[json::json_pointer(pointer_of(field))] = *value;
    } catch (const json::exception&) {
      // A constant that is not an object stands on the path: the constant stays.
    }
  }
  if (!created.envelope) return object;
  return json{{*created.envelope, std::move(object)}};
}

std::optional<std::string> ApiShape::created_id(const json& body) const {
  const json* object = created.envelope ? value_at_path(body, *created.envelope) : &body;
  const json* id = object == nullptr ? nullptr : value_at_path(*object, created.id_field);
  if (id == nullptr) return std::nullopt;
  if (id->is_string()) return id->get<std::string>();
  if (id->is_number_integer()) return compact_json(*id);
  return std::nullopt;
}

std::optional<std::string> ApiShape::operation_pointer() const {
  if (!operation_field) return std::nullopt;
  return pointer_of(*operation_field);
}

namespace {

// A template's string with its placeholders filled in; "{status}" alone becomes a number.
json fill(const std::string& text, int status,
          const std::map<std::string_view, std::string_view>& parts) {
  if (text == "{status}") return status;
  std::string filled;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t open = text.find('{', at);
    const std::size_t close = open == std::string::npos ? open : text.find('}', open);
    if (close == std::string::npos) break;
    filled.append(text, at, open - at);
    const std::string_view name = std::string_view(text).substr(open + 1, close - open - 1);
    if (name == "status") {
      filled += std::to_string(status);
    } else if (const auto part = parts.find(name); part != parts.end()) {
      filled += part->second;
    } else {
      filled.append(text, open, close - open + 1);  // not a placeholder: braces in the text
    }
    at = close + 1;
  }
  filled.append(text, std::min(at, text.size()));
  return filled;
}

json fill_all(const json& value, int status,
              const std::map<std::string_view, std::string_view>& parts) {
  if (value.is_string()) return fill(value.get<std::string>(), status, parts);
  if (!value.is_structured()) return value;
  json filled = value;
  for (auto& [unused, item] : filled.items())
    item = fill_all(item, status, parts);
  return filled;
}

}  // namespace

json ErrorTemplate::render(int status, std::string_view code, std::string_view message,
                           const std::map<std::string, std::string, std::less<>>& restated) const {
  std::map<std::string_view, std::string_view> parts = {{"code", code}, {"message", message}};
  for (const auto* source : {&restated, &values}) {
    for (const auto& [name, value] : *source)
      parts.emplace(name, value);  // the restatement's, emplaced first, wins
  }
  return fill_all(body, status, parts);
}

const json* value_at_path(const json& object, std::string_view dotted) {
  const json* at = &object;
  std::size_t start = 0;
  while (start <= dotted.size()) {
    const std::size_t dot = std::min(dotted.find('.', start), dotted.size());
    if (!at->is_object()) return nullptr;
    const auto found = at->find(std::string(dotted.substr(start, dot - start)));
    if (found == at->end()) return nullptr;
    at = &*found;
    start = dot + 1;
  }
  return at;
}

namespace {

// The code of each status the server refuses a request with itself (HttpConnection::refuse,
// and the connection cap's 503): one code a status.
std::optional<std::string> refusal_code(int status) {
  static constexpr std::array<std::pair<int, std::string_view>, 5> kRefusals{{
      {400, "bad_request"},
      {408, "request_timeout"},
      {413, "payload_too_large"},
      {431, "request_header_fields_too_large"},
      {503, "capacity_exhausted"},
  }};
  for (const auto& [known, code] : kRefusals) {
    if (known == status) return std::string(code);
  }
  return std::nullopt;
}

}  // namespace

JournalEntry refused_entry(const ApiShape& api, const RefusedRequest& request, std::uint64_t seq,
                           Millis now) {
  JournalEntry entry{.seq = seq,
                     .at = now,
                     .method = request.method,
                     .path = request.path,
                     .kind = request.method.empty()
                                 ? RequestKind::other
                                 : api.match(HttpRequest{request.method, request.path}).kind,
                     .outcome = Outcome::refused,
                     .answered_at = now,
                     .status = request.status};
  if (request.listener != 0) entry.port = request.listener;
  entry.code = refusal_code(request.status);
  return entry;
}

}  // namespace retryproof::provider
