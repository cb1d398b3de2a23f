// Every data-plane request the provider saw, in arrival order: the evidence verdicts are
// built from. An entry records facts about what the client was sent — whether a status
// line went out, whether the response was whole, when it ended — so that a checker never
// has to know which fault produced them. JSON exists only at the edges (the control plane,
// reports, a saved journal); to_json and from_json are exact inverses.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/millis.hpp"
#include "provider/fault.hpp"
#include "provider/http_types.hpp"

namespace retryproof::provider {

// What a request is, by its route.
enum class RequestKind {
  create,   // a request to the create route (POST /jobs), valid or not
  lookup,   // a reconciliation lookup by key
  control,  // /_test/ (never journaled: the journal is the evidence of what clients did)
  other,    // anything else: an unknown path, a known path with the wrong method
};

enum class Outcome {
  new_operation,       // a new key: a fault was taken and applied
  replay,              // a known key with the same payload
  rejected,            // a known key with a different payload (422)
  conflict,            // the key's first request is still in flight (409)
  missing_key,         // a create without an Idempotency-Key
  invalid,             // malformed key or body, wrong method, unknown path
  lookup_hit,          // reconciliation found the job
  lookup_miss,         // reconciliation found nothing
  lookup_failed,       // reconciliation was made to fail
  capacity_exhausted,  // a new operation refused at --max-keys (507)
  outage,              // answered by an outage (its fault), before the store was read
  shed,                // refused by a provider past its capacity (503 overloaded), at once
  refused,             // answered by the server before the core read it: the connection cap's
                       // 503, a deadline's 408, a limit's 413 or 431, a request that is not HTTP
};

std::string to_string(RequestKind kind);
std::string to_string(Outcome outcome);
// The outcome a journal names so ("conflict"), or nothing; and every name, in order.
std::optional<Outcome> outcome_named(std::string_view name);
std::vector<std::string> outcome_names();

struct JournalEntry {
  std::uint64_t seq = 0;  // from 1, in arrival order
  Millis at{0};           // arrival, on the provider's clock
  std::string method;
  std::string path;
  RequestKind kind = RequestKind::other;
  std::optional<std::string> key;
  std::optional<std::string> fingerprint;  // of the payload, once it was read
  // The value of the payload's operation field (ProviderConfig::operation_field), once the
  // payload was read: the business identity traffic is judged by. A string as it is, any
  // other JSON value as its compact text. The payload itself is never recorded.
  std::optional<std::string> operation;
  Outcome outcome = Outcome::invalid;
  std::optional<Fault> fault;  // taken by a new operation, by a failed lookup, or in an outage
  // The plan's source that answered it, when one did ("faults[0]", "chaos", "outages[1]"):
  // which planned fault fired on which request (FaultPlan::uses counts them).
  std::optional<std::string> planned;
  // What reached the client. Empty while a request is held in flight.
  std::optional<Millis> answered_at;  // when the response was complete or the connection ended
  // When the client closed its connection before the answer (it stopped waiting), if the
  // interpreter of the decision could see it.
  std::optional<Millis> abandoned_at;
  Delivery delivery = Delivery::respond;
  std::optional<int> status;  // empty when no status line was sent
  // The provider's code of an error answer (error_codes.hpp: "rate_limited"), whatever status
  // and code its API shape sent it as: what the verdicts read the answer's meaning from. Empty
  // for a success, an answer sent without a status line, a replay, and an upstream's answer
  // no shape maps (those are read by their status, as a journal saved before codes is). Its
  // JSON "code" is there only when the entry has one.
  std::optional<std::string> code;
  std::optional<int> retry_after_seconds;  // the Retry-After the response carried
  std::optional<std::string> job_id;
  // The extra listener it arrived on (ProviderServer::add_listener): in a fleet each client
  // has a port of its own, so its requests are its whatever keys it sends. Empty on the
  // main port.
  std::optional<int> port;
  // The connection it came on: the client's source port (in the simulation, a number per
  // simulated client), and whether it was the first request the provider read on that
  // connection. The driver charges every request on a connection to the invocation whose
  // window held the connection's first one (scenarios/driver/attribution.hpp), so that a
  // killed client's bytes read late are never charged to the next client. Empty where the
  // journal does not know it (a proxy's entries, a journal saved before it existed).
  std::optional<int> client_port;
  bool new_connection = false;
  // What the plan's capacity made of it (provider/capacity.hpp): the requests ahead of it
  // when it arrived, and how long it waited for its service to begin. Empty without one.
  struct Queue {
    std::size_t depth = 0;
    Millis wait{0};
    friend bool operator==(const Queue&, const Queue&) = default;
  };
  std::optional<Queue> queue;
  // Over HTTPS, whether the server ended the TLS stream with a close_notify alert right
  // after this answer (a drop, a truncation, a response that closed the connection): the
  // stream then ended where the server meant it to, and only the HTTP message is short. False
  // for a reset, a response on a connection that stayed open, or one ended by a deadline or
  // a stop. Empty over plain HTTP.
  std::optional<bool> close_notify;

  bool answered() const { return answered_at.has_value(); }
  // A complete response was sent: a status line, headers and the whole body.
  bool delivered() const { return answered() && delivery == Delivery::respond; }

  friend bool operator==(const JournalEntry&, const JournalEntry&) = default;
};

// Records in `entry` what reached the client: the decision as its interpreter (the HTTP
// server, the simulation, the proxy) carries it out, so the answer ends at `now` plus the
// decision's delay. A Retry-After that is not a number of seconds is not recorded.
void record_answer(JournalEntry& entry, const Decision& decision, Millis now);

// The value of `field` in a create's payload, as an entry's `operation` records it (the
// provider's --operation-field; a proxy may record the same): a top-level name ("orderId")
// or a JSON Pointer ("/metadata/orderId"); a string as it is, any other JSON value as its
// compact text; nothing when the payload does not carry it.
std::optional<std::string> operation_value(const nlohmann::json& payload, const std::string& field);

// {"seq","atMs","method","path","kind","key","fingerprint","operation","outcome","fault",
//  "answeredAtMs","abandonedAtMs","delivery","status","delivered","retryAfter","jobId",
//  "closeNotify"}; absent values are null. "port", "planned", and "clientPort" with
//  "newConnection", are there only when the entry has them.
void to_json(nlohmann::json& json, const JournalEntry& entry);
// The inverse. Throws std::invalid_argument naming the field that is missing or wrong.
// "operation" and "closeNotify" may be absent (journals saved before they existed).
void from_json(const nlohmann::json& json, JournalEntry& entry);

// A journal as GET /_test/journal serves it ({"count", "entries"}), or a bare array of
// entries. Throws std::invalid_argument naming the entry and field that is wrong.
std::vector<JournalEntry> journal_from_json(const nlohmann::json& document);

// Seqs a journal does not hold, from..to inclusive, and why: so that a reader never takes
// part of a journal for the whole of it.
struct MissingEntries {
  std::uint64_t from = 0;
  std::uint64_t to = 0;  // kUnknownEnd: the journal was cut, and how much was lost is unknown
  std::string why;

  static constexpr std::uint64_t kUnknownEnd = UINT64_MAX;
  bool covers(std::uint64_t seq) const { return seq >= from && seq <= to; }
  // "seq 3", "seqs 1-500", "seqs from 6 on"
  std::string seqs_text() const;
};

// A journal document with what it says of itself: {"count", "entries", "dropped", "lost",
// "lostSeqs", "complete"} (docs/provider.md, *The journal*). `missing` lists, in seq order,
// the entries it lacks: those dropped (a --journal-limit without a file), those lost (a
// failed write to the --journal-file), gaps between its seqs, and an end cut short (fewer
// entries than its count, or "complete": false). A bare array says nothing of itself: only
// its gaps are known. Throws std::invalid_argument as journal_from_json does.
struct JournalDocument {
  std::vector<JournalEntry> entries;  // by seq
  std::vector<MissingEntries> missing;
  // The payload field its server recorded as each create's operation ("operationField", as
  // GET /_test/journal says it), when it names one.
  std::optional<std::string> operation_field = std::nullopt;
};
JournalDocument journal_document_from_json(const nlohmann::json& document);

// The gaps between the seqs of entries held from `first` on (by seq), each saying why.
std::vector<MissingEntries> gaps_in(const std::vector<JournalEntry>& entries, std::uint64_t first,
                                    const std::string& why);

}  // namespace retryproof::provider
