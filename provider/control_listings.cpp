// GET /_test/journal and GET /_test/jobs, the provider's and the proxy's: copied a chunk at a
// time under the core's lock, read from the spill file and written as JSON after it.
#include <algorithm>
#include <stdexcept>

#include "common/json_text.hpp"
#include "provider/control_plane.hpp"
#include "provider/control_requests.hpp"
#include "provider/job_record.hpp"

namespace retryproof::provider {
namespace {

// How many seqs (or jobs) one chunk of a listing copies under the lock: small enough that a
// request waiting for the lock waits for one chunk, not the whole listing.
constexpr std::uint64_t kPerChunk = 512;

// Ends a streamed listing early, as no whole one ends: the server then closes the connection
// without the last chunk of the chunked body, so no reader takes what it got for all of it.
struct ListingCut : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What a listing says of the entries it leaves out: "dropped", "lost" and "lostSeqs", each
// only once there is something to say, so that a journal without loss reads as it always did.
std::string loss_fields(const JournalExtent& extent, bool dropped) {
  std::string fields;
  if (dropped && extent.dropped > 0)
    fields += "\"dropped\":" + std::to_string(extent.dropped) + ",";
  if (extent.lost == 0) return fields;
  fields += "\"lost\":" + std::to_string(extent.lost) + ",\"lostSeqs\":[";
  for (std::size_t i = 0; i < extent.lost_seqs.size(); ++i) {
    const SeqRange& range = extent.lost_seqs[i];
    fields +=
        (i == 0 ? "[" : ",[") + std::to_string(range.from) + "," + std::to_string(range.to) + "]";
  }
  return fields + "],";
}

std::string joined(const std::vector<std::string>& texts) {
  std::string items;
  for (const std::string& text : texts) {
    if (!items.empty()) items += ',';
    items += text;
  }
  return items;
}

// What the journal's operations are: the payload field the server records as each create's
// operation, so that a saved journal judged later says by which field (judge refuses
// another). `,"operationField":"orderId"`, or nothing.
std::string operation_field_member(const ControlTarget& target) {
  const std::optional<std::string> field = target.control_context().operation_field;
  return field ? ",\"operationField\":" + nlohmann::json(*field).dump() : "";
}

// A page: the entries of `limit` seqs after `after`, and "next" (the seq to pass as `after`)
// while more follow. Copied in chunks; a reset meanwhile starts it again, on the new journal.
Decision journal_page(const ControlTarget& target, JournalPageQuery query,
                      const ErrorStyle& errors) {
  std::optional<std::uint64_t> resets;
  JournalExtent extent;
  std::vector<JournalSlice> slices;
  std::uint64_t cursor = 0;
  std::uint64_t room = 0;
  do {
    target.inspect([&](const ControlledState& state) {
      if (resets != state.resets) {
        resets = state.resets;
        extent = state.journal.extent();
        slices.clear();
        cursor = std::max(query.after, extent.dropped);
        room = query.limit;
      }
      JournalSlice slice = state.journal.slice(cursor, std::min(room, kPerChunk), extent.last_seq);
      room -= std::min(room, slice.through - cursor);
      cursor = slice.through;
      slices.push_back(std::move(slice));
    });
  } while (room > 0 && cursor < extent.last_seq);

  std::vector<std::string> texts;
  try {
    for (const JournalSlice& slice : slices) {
      std::vector<std::string> part = slice.texts();
      texts.insert(texts.end(), std::make_move_iterator(part.begin()),
                   std::make_move_iterator(part.end()));
    }
  } catch (const SpillUnreadable& problem) {
    return errors.error(500, "internal_error", problem.what());
  }
  // {"count","dropped","entries","lost","lostSeqs","next","operationField"}, as a JSON
  // object's keys sort.
  std::string body = "{\"count\":" + std::to_string(extent.count) + ",";
  if (extent.dropped > 0) body += "\"dropped\":" + std::to_string(extent.dropped) + ",";
  body += "\"entries\":[" + joined(texts) + "]";
  const std::string lost = loss_fields(extent, false);
  if (!lost.empty()) body += "," + lost.substr(0, lost.size() - 1);
  if (cursor < extent.last_seq) body += ",\"next\":" + std::to_string(cursor);
  return Decision{.status = 200, .body = body + operation_field_member(target) + "}"};
}

// The whole journal, streamed: the entries up to the newest when it was asked for, a chunk at
// a time, then `],"complete":true}`. A reset meanwhile, or an entry that cannot be read back
// (a spill file changed by someone else), cuts the stream instead.
Decision journal_stream(const ControlTarget& target) {
  JournalExtent extent;
  std::uint64_t resets = 0;
  target.inspect([&](const ControlledState& state) {
    extent = state.journal.extent();
    resets = state.resets;
  });
  Decision decision;
  decision.body_chunks = [&target, extent, resets, opened = false, cursor = extent.dropped,
                          sent = std::uint64_t{0},
                          closed = false]() mutable -> std::optional<std::string> {
    if (closed) return std::nullopt;
    if (!opened) {
      opened = true;
      return "{\"count\":" + std::to_string(extent.count) + "," + loss_fields(extent, true) +
             "\"entries\":[";
    }
    while (cursor < extent.last_seq) {
      JournalSlice slice;
      bool reset = false;
      target.inspect([&](const ControlledState& state) {
        reset = state.resets != resets;
        if (!reset) slice = state.journal.slice(cursor, kPerChunk, extent.last_seq);
      });
      if (reset) throw ListingCut("the journal was reset while it was read");
      cursor = std::max(slice.through, cursor + 1);
      const std::vector<std::string> texts = slice.texts();  // SpillUnreadable cuts it too
      if (texts.empty()) continue;
      std::string chunk = (sent == 0 ? "" : ",") + joined(texts);
      sent += texts.size();
      return chunk;
    }
    // What was promised, or nothing that could pass for it.
    if (sent != extent.count)
      throw ListingCut("the journal held " + std::to_string(sent) + " of the " +
                       std::to_string(extent.count) + " entries it listed");
    closed = true;
    return "],\"complete\":true" + operation_field_member(target) + "}";
  };
  return decision;
}

}  // namespace

Decision journal_listing(const ControlTarget& target, std::string_view query,
                         const ErrorStyle& errors) {
  JournalPageQuery page;
  try {
    page = read_journal_query(query);
  } catch (const std::invalid_argument& problem) {
    return errors.error(400, "invalid_journal_query", problem.what());
  }
  return page.limit == 0 ? journal_stream(target) : journal_page(target, page, errors);
}

// Every job in creation order, a chunk of jobs at a time under the lock, written after it. A
// job freed for room (--max-keys) before its chunk is read is left out; a reset cuts the
// stream.
Decision jobs_listing(const ControlTarget& target) {
  std::string opening;
  std::uint64_t resets = 0;
  std::uint64_t end = 0;
  std::uint64_t next = 0;
  target.inspect([&](const ControlledState& state) {
    const std::uint64_t freed = state.jobs.freed_jobs();  // the number of the first job held
    resets = state.resets;
    next = freed;
    end = freed + state.jobs.size();
    opening = "{\"count\":" + std::to_string(state.jobs.size()) + ",";
    if (freed > 0) opening += "\"freed\":" + std::to_string(freed) + ",";
    opening += "\"jobs\":[";
  });
  Decision decision;
  decision.body_chunks = [&target, opening = std::move(opening), resets, end, next, opened = false,
                          wrote = false, closed = false]() mutable -> std::optional<std::string> {
    if (closed) return std::nullopt;
    if (!opened) {
      opened = true;
      return std::move(opening);
    }
    std::vector<StoredJob> jobs;
    bool reset = false;
    target.inspect([&](const ControlledState& state) {
      reset = state.resets != resets;
      const std::uint64_t first = state.jobs.freed_jobs();
      next = std::max(next, first);
      const std::uint64_t stop = std::min({end, first + state.jobs.size(), next + kPerChunk});
      for (; !reset && next < stop; ++next)
        jobs.push_back(state.jobs.at(static_cast<std::size_t>(next - first)));
    });
    if (reset) throw ListingCut("the jobs were reset while they were read");
    if (jobs.empty()) {
      closed = true;
      return std::string("]}");
    }
    std::string items;
    for (const StoredJob& job : jobs) {
      if (wrote || !items.empty()) items += ',';
      items +=
          compact_json(nlohmann::json(JobRecord{job.id, job.key, nlohmann::json::parse(job.body)}));
    }
    wrote = true;
    return items;
  };
  return decision;
}

nlohmann::json journal_document(const ControlTarget& target) {
  const Decision page = journal_page(target, {.after = 0, .limit = UINT64_MAX}, {});
  if (page.status != 200) throw SpillUnreadable(page.body);
  nlohmann::json document = nlohmann::json::parse(page.body);
  document.erase("next");
  return document;
}

nlohmann::json jobs_document(const ControlTarget& target) {
  const Decision listing = jobs_listing(target);
  std::string body;
  while (const auto chunk = listing.body_chunks())
    body += *chunk;
  return nlohmann::json::parse(body);
}

}  // namespace retryproof::provider
