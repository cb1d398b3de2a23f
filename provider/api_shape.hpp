// The API the provider speaks: which routes create and look up, where the idempotency key
// travels (or that there is none), which body field names the business operation, how
// bodies are encoded, what a created object looks like, and how errors are written. The seeds'
// `jobs` shape is the default (POST /jobs with a JSON body and an Idempotency-Key header); `stripe`
// speaks Stripe's v1 wire (form-encoded creates on any /v1/<resource>, Stripe's error objects); a
// shape file describes any other. The core routes by the shape, so the journal knows a create from
// a lookup whatever the paths.
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
  // What else a request must carry to take the route, where operations share a method and a
  // path: AWS's JSON protocol sends each as POST / and names it in X-Amz-Target; JSON-RPC and
  // GraphQL name it in a body field ("method", "operationName"). Each header's exact value,
  // and each body field's (a dotted path; a string as it is, another JSON value as its
  // compact text).
  std::vector<std::pair<std::string, std::string>> headers;
  std::vector<std::pair<std::string, std::string>> body_fields;

  // The segments the braces matched, when `path` matches (the method aside).
  std::optional<std::map<std::string, std::string>> match(std::string_view request_path) const;
  bool names_operation() const { return !headers.empty() || !body_fields.empty(); }
  // "POST /v1/{resource}", "POST / with X-Amz-Target: secretsmanager.CreateSecret"
  std::string describe() const;
};

enum class BodyEncoding { json, form };

// Where the idempotency key travels. `none`: the API has no key, so every create is a new
// object and the business field (ApiShape::operation_field) is all that ties two creates
// of one operation together.
struct KeyPlace {
  enum class Where { header, body_field, none } where = Where::header;
  std::string name = "Idempotency-Key";  // the header, or the body field's dotted path

  bool exists() const { return where != Where::none; }
};

struct Lookup {
  Route route;
  // Where the value looked up is: the route's {key} segment, this query parameter, or this
  // field of the request's body (a dotted path: {"SecretId": ...}). It is the idempotency
  // key, or under a keyless API the business field's value.
  std::optional<std::string> query_parameter;
  std::optional<std::string> body_field;
  // Set when the lookup answers a list, as a search endpoint does: {"<list_field>": [...]}
  // with every job the value names, and an empty list (200) when none. Unset: the one job,
  // or a 404.
  std::optional<std::string> list_field;
};

struct CreatedObject {
  std::string id_prefix = "job_";
  std::string id_field = "id";                          // the id's field in the object
  std::optional<std::string> envelope;                  // {"payment": {...}} when "payment"
  std::vector<std::string> echoed = {"orderId"};        // fields copied from the request
  nlohmann::json constants = nlohmann::json::object();  // {"object": "payment_intent"}
};

// How one of the provider's error codes reads under a shape: its status, and the code and
// message clients are sent instead of the provider's own, and the template's values.
struct ErrorOverride {
  std::optional<int> status;
  std::optional<std::string> code;
  std::optional<std::string> message;
  std::map<std::string, std::string, std::less<>> values;  // over ErrorTemplate::values
};

// An API's own error body: any JSON, whose strings name the parts of an error in braces.
// "{status}" alone is the status as a number; "{code}", "{message}" and "{<name>}" of a
// value are replaced wherever they stand: {"errors": [{"category": "{category}", "code":
// "{code}", "detail": "{message}"}]}.
struct ErrorTemplate {
  nlohmann::json body;
  std::map<std::string, std::string, std::less<>> values;  // {"category": "API_ERROR"}

  // The body of one error. `values` of the code's restatement win over the template's.
  nlohmann::json render(int status, std::string_view code, std::string_view message,
                        const std::map<std::string, std::string, std::less<>>& values) const;
};

// Where a request goes under a shape.
struct RouteMatch {
  RequestKind kind = RequestKind::other;  // create, lookup, or other when no route matched
  std::string allowed;             // the matched route's method, when the request used another
  std::string key;                 // a lookup's key, from its path or its query parameter
  const Lookup* lookup = nullptr;  // the lookup route taken, for a lookup
};

struct ApiShape {
  std::string name = "jobs";
  std::vector<Route> creates = {{"POST", "/jobs"}};
  KeyPlace key;
  std::vector<BodyEncoding> encodings = {BodyEncoding::json};
  std::vector<Lookup> lookups = {{{"GET", "/jobs/by-idempotency-key/{key}"}, std::nullopt}};
  CreatedObject created;
  // The payload field that names the business operation, a dotted path ("metadata.orderId"):
  // the journal records its value for every create, and an API without a key is judged by
  // it (creates with one value are one operation's attempts) and looked up by it.
  std::optional<std::string> operation_field;
  std::optional<ErrorFormat> error_format;      // the profile's when empty
  std::optional<ErrorTemplate> error_template;  // an error body of the API's own form
  std::map<std::string, ErrorOverride, std::less<>> error_overrides;  // by the provider's code
  // The Content-Type of its errors ("application/x-amz-json-1.1", "application/hal+json"):
  // an SDK may parse an error only under its API's own media type. Empty: the format's.
  std::optional<std::string> error_content_type;
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
  // Whether a create's fingerprint is taken while its body is parsed, no DOM built (a JSON
  // body whose key travels outside it): then a replay parses its body only once, and builds
  // nothing from it.
  bool fingerprints_while_parsing(const HttpRequest& request) const;
  // fingerprint(canonical_payload(decode_body(request))), from `decoded` when the body was
  // decoded already, else from its text when fingerprints_while_parsing(). Throws as
  // decode_body() does, with the same words.
  std::string fingerprint_of(const HttpRequest& request,
                             const nlohmann::json* decoded = nullptr) const;
  // The body of a create or lookup, decoded by its Content-Type among the shape's
  // encodings. Throws std::invalid_argument saying what is wrong.
  nlohmann::json decode_body(const HttpRequest& request) const;
  // The key of a create whose body is `payload`: from its header or its body field. Empty
  // when absent.
  std::string key_of(const HttpRequest& request, const nlohmann::json& payload) const;
  // The job clients are sent for a new operation: in its envelope, when the shape has one.
  nlohmann::json created_object(std::string id, const nlohmann::json& payload) const;
  // The id of a created object as this API answers it (inside its envelope, in its id
  // field; a number as its digits), or nothing when the body holds none.
  std::optional<std::string> created_id(const nlohmann::json& body) const;
  // The operation field as a JSON Pointer ("/metadata/orderId"), which the journal's
  // operation_value() reads; nothing when the shape names none.
  std::optional<std::string> operation_pointer() const;
  // What a server speaking this shape records as each create's operation: the field it was
  // told (--operation-field), else the shape's own, which a keyless API is judged by.
  std::optional<std::string> recorded_operation_field(
      const std::optional<std::string>& told) const {
    return told ? told : operation_pointer();
  }
};

// The seeds' shape: POST /jobs and GET /jobs/by-idempotency-key/{key}.
const ApiShape& jobs_shape();
// Stripe's v1 wire (see docs/provider.md for the pages it follows).
const ApiShape& stripe_shape();

// A shape by built-in name ("jobs", "stripe", or an official SDK's API such as
// "square-payments": api_shape_names()) or from a JSON file. Throws
// std::invalid_argument naming the file, the JSON path and what was expected.
ApiShape load_api_shape(std::string_view name_or_file);
// A shape document, already parsed; `origin` names it in errors.
ApiShape api_shape_from_json(const nlohmann::json& document, const std::string& origin);

// "jobs, stripe, modern-treasury-payment-orders, ...": every built-in shape.
std::string api_shape_names();

// The value at a dotted path of an object ("metadata.orderId"), or null.
const nlohmann::json* value_at_path(const nlohmann::json& object, std::string_view dotted);

// The journal entry `seq` of a request the server refused before a core saw it (in a storm,
// load like any other): outcome refused, the status sent, its route's kind by `api` when the
// server read the head whole (else `other`), answered on arrival. The provider's and the
// proxy's cores journal them alike.
JournalEntry refused_entry(const ApiShape& api, const RefusedRequest& request, std::uint64_t seq,
                           Millis now);

}  // namespace retryproof::provider
