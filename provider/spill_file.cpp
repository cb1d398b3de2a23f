#include "provider/spill_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "common/json_text.hpp"

namespace retryproof::provider {
namespace {

constexpr std::uint64_t kBlock = 1024;  // lines per recorded offset

bool pwrite_all(int fd, std::string_view bytes, std::uint64_t offset) {
  while (!bytes.empty()) {
    const ssize_t wrote = ::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(wrote));
    offset += static_cast<std::uint64_t>(wrote);
  }
  return true;
}

// Up to `size` bytes at `offset` (fewer at the end of the file).
std::string pread_some(int fd, std::uint64_t offset, std::uint64_t size) {
  std::string bytes(size, '\0');
  std::size_t got = 0;
  while (got < size) {
    const ssize_t read =
        ::pread(fd, bytes.data() + got, size - got, static_cast<off_t>(offset + got));
    if (read < 0 && errno == EINTR) continue;
    if (read <= 0) break;
    got += static_cast<std::size_t>(read);
  }
  bytes.resize(got);
  return bytes;
}

bool is_regular_file(int fd) {
  struct stat status {};
  return fd >= 0 && ::fstat(fd, &status) == 0 && S_ISREG(status.st_mode);
}

}  // namespace

std::string entry_text(const CopiedEntry& copied) {
  nlohmann::json json(copied.entry);
  if (copied.extra.is_object()) {
    for (const auto& [name, value] : copied.extra.items())
      json[name] = value;
  }
  return compact_json(json);
}

struct SpillFile::Generation {
  int fd = -1;  // -1 when the file could not be made again: every write is then loss
  bool regular = false;
  std::uint64_t end = 0;  // where the next batch is written (the writer's, under mutex_)

  explicit Generation(int descriptor) : fd(descriptor), regular(is_regular_file(descriptor)) {}
  ~Generation() {
    if (fd >= 0) ::close(fd);
  }
  Generation(const Generation&) = delete;
  Generation& operator=(const Generation&) = delete;
};

std::shared_ptr<SpillFile::Generation> SpillFile::open_generation() const {
  return std::make_shared<Generation>(
      ::open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666));
}

SpillFile::SpillFile(std::string path, Writer writer)
    : path_(std::move(path)), writer_(writer ? std::move(writer) : Writer(pwrite_all)) {
  generation_ = open_generation();
  if (generation_->fd < 0)
    throw std::runtime_error("--journal-file " + path_ + ": cannot be written");
  writer_thread_ = std::thread([this] { write_batches(); });
}

SpillFile::~SpillFile() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  writer_thread_.join();
}

void SpillFile::append(std::uint64_t first_seq, std::vector<CopiedEntry> entries) {
  if (entries.empty()) return;
  auto batch = std::make_shared<const Batch>(Batch{first_seq, std::move(entries)});
  {
    std::lock_guard lock(mutex_);
    queued_.push_back(std::move(batch));
  }
  changed_.notify_all();
}

void SpillFile::write_batches() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || !queued_.empty(); });
    if (queued_.empty()) return;  // stopping, and everything is written
    const std::shared_ptr<const Batch> batch = queued_.front();
    const std::shared_ptr<Generation> generation = generation_;
    const std::uint64_t offset = generation->end;
    lock.unlock();

    // Rendered and written without the lock: readers and the owner's queueing go on meanwhile.
    std::string bytes;
    std::vector<std::uint64_t> line_offsets;
    line_offsets.reserve(batch->entries.size());
    for (const CopiedEntry& copied : batch->entries) {
      line_offsets.push_back(offset + bytes.size());
      bytes += entry_text(copied);
      bytes += '\n';
    }
    const bool written = generation->fd >= 0 && writer_(generation->fd, bytes, offset);
    // A failed write may have left part of a line: the file is cut back to its last whole one.
    if (!written && generation->regular)
      (void)::ftruncate(generation->fd, static_cast<off_t>(offset));

    lock.lock();
    if (generation != generation_) continue;  // a reset: the batch went with its file
    settle(batch, written, offset, line_offsets, offset + bytes.size());
    changed_.notify_all();
  }
}

void SpillFile::settle(const std::shared_ptr<const Batch>& batch, bool written,
                       std::uint64_t offset, const std::vector<std::uint64_t>& line_offsets,
                       std::uint64_t end) {
  queued_.pop_front();
  const std::uint64_t count = batch->entries.size();
  const std::uint64_t last_seq = batch->first_seq + count - 1;
  if (!written) {
    lost_ += count;
    if (!lost_seqs_.empty() && lost_seqs_.back().to + 1 == batch->first_seq)
      lost_seqs_.back().to = last_seq;
    else
      lost_seqs_.push_back({batch->first_seq, last_seq});
    return;
  }
  generation_->end = end;
  const bool continues = !runs_.empty() &&
                         runs_.back().first_seq + runs_.back().count == batch->first_seq &&
                         runs_.back().end == offset;
  if (!continues) runs_.push_back(Run{.first_seq = batch->first_seq});
  Run& run = runs_.back();
  for (std::uint64_t i = 0; i < count; ++i) {
    if ((run.count + i) % kBlock == 0) run.block_offsets.push_back(line_offsets[i]);
  }
  run.count += count;
  run.end = end;
}

std::vector<std::string> SpillFile::read(std::uint64_t after, std::uint64_t through) const {
  // What the range needs, taken under the lock: the runs' offsets and the queued batches.
  struct RunPart {
    std::uint64_t skip;   // lines of the block before the first wanted
    std::uint64_t count;  // lines wanted
    std::uint64_t from;   // the offset of the block holding the first
    std::uint64_t end;    // the run's end
  };
  std::vector<RunPart> parts;
  std::vector<std::shared_ptr<const Batch>> batches;
  std::shared_ptr<Generation> generation;
  {
    std::lock_guard lock(mutex_);
    generation = generation_;
    for (const Run& run : runs_) {
      const std::uint64_t first = std::max(after + 1, run.first_seq);
      const std::uint64_t last = std::min(through, run.first_seq + run.count - 1);
      if (first > last) continue;
      const std::uint64_t line = first - run.first_seq;
      parts.push_back({line % kBlock, last - first + 1, run.block_offsets[line / kBlock], run.end});
    }
    for (const auto& batch : queued_) {
      if (batch->first_seq <= through && batch->first_seq + batch->entries.size() > after + 1)
        batches.push_back(batch);
    }
  }

  std::vector<std::string> lines;
  for (const RunPart& part : parts) {
    const std::string bytes = pread_some(generation->fd, part.from, part.end - part.from);
    std::size_t at = 0;
    for (std::uint64_t i = 0; i < part.skip + part.count; ++i) {
      const std::size_t newline = bytes.find('\n', at);
      if (newline == std::string::npos)
        throw SpillUnreadable("the journal file " + path_ + " was cut short");
      if (i >= part.skip) lines.push_back(bytes.substr(at, newline - at));
      at = newline + 1;
    }
  }
  for (const auto& batch : batches) {
    for (std::uint64_t i = 0; i < batch->entries.size(); ++i) {
      const std::uint64_t seq = batch->first_seq + i;
      if (seq > after && seq <= through) lines.push_back(entry_text(batch->entries[i]));
    }
  }
  std::lock_guard lock(mutex_);
  if (generation != generation_) throw SpillUnreadable("the journal was reset while it was read");
  return lines;
}

std::uint64_t SpillFile::lost() const {
  std::lock_guard lock(mutex_);
  return lost_;
}

std::vector<SeqRange> SpillFile::lost_seqs() const {
  std::lock_guard lock(mutex_);
  return lost_seqs_;
}

void SpillFile::restart() {
  std::shared_ptr<Generation> replaced;
  {
    std::lock_guard lock(mutex_);
    // A new file rather than the old one cut: a write of the old journal still under way goes
    // to the old one, which nothing reads any more. A device (/dev/null) is opened again.
    if (generation_->regular) ::unlink(path_.c_str());
    replaced = std::exchange(generation_, open_generation());
    queued_.clear();
    runs_.clear();
    lost_seqs_.clear();
    lost_ = 0;
  }
  changed_.notify_all();
}

void SpillFile::wait_written() const {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return queued_.empty(); });
}

}  // namespace retryproof::provider
