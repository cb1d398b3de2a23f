// Values held once however many holders refer to them: a slot per distinct value, a 32-bit
// reference to it, and a count of its holders. The last release frees the value and its
// slot for reuse, so a provider bounded by --max-keys and --journal-limit holds only what
// its jobs and journal entries still refer to (an append-only arena would grow forever).
// The index from value to slot is open-addressed: 4 bytes a bucket, at most half full,
// where a node-based set spends about 40 bytes a value. Not thread-safe.
#pragma once

#include <cassert>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "common/invariant.hpp"
#include "provider/compact_bytes.hpp"
#include "provider/digest.hpp"

namespace retryproof::provider {

// How a value is looked up (View), made from its view, and hashed.
template <typename Value>
struct InternTraits;

template <>
struct InternTraits<CompactBytes> {
  using View = std::string_view;
  static View view(const CompactBytes& value) { return value.view(); }
  static CompactBytes make(View view) { return CompactBytes(view); }
  static std::size_t hash(View view) { return std::hash<std::string_view>{}(view); }
};

template <>
struct InternTraits<Digest> {
  using View = Digest;
  static View view(const Digest& value) { return value; }
  static Digest make(const View& view) { return view; }
  static std::size_t hash(const View& view) {  // SHA-256 output is already uniform
    std::size_t hash = 0;
    std::memcpy(&hash, view.bytes.data(), sizeof hash);
    return hash;
  }
};

template <typename Value>
class InternTable {
 public:
  using Traits = InternTraits<Value>;
  using View = typename Traits::View;
  static constexpr std::uint32_t kNone = UINT32_MAX;  // no reference: what holders store

  // The value's reference, its holders counted one more; the value is added when new.
  std::uint32_t acquire(const View& view) {
    if (const auto held = find(view)) {
      ++slots_[*held].holders;
      return *held;
    }
    std::uint32_t ref = 0;
    if (!free_.empty()) {
      ref = free_.back();
      free_.pop_back();
      slots_[ref] = Slot{Traits::make(view), 1};
    } else {
      if (slots_.size() >= kNone) throw std::length_error("an intern table holds 2^32-1 values");
      ref = static_cast<std::uint32_t>(slots_.size());
      slots_.push_back(Slot{Traits::make(view), 1});
    }
    if ((size_ + 1) * 2 > buckets_.size()) grow();
    place(ref);
    ++size_;
    return ref;
  }

  void retain(std::uint32_t ref) {
    if (ref != kNone) ++slots_[ref].holders;
  }

  // One holder fewer; the last one frees the value. kNone is no reference and is ignored.
  void release(std::uint32_t ref) {
    if (ref == kNone) return;
    check_invariant(slots_[ref].holders > 0,
                    "an interned value is released no more often than "
                    "it was acquired");
    if (--slots_[ref].holders > 0) return;
    unplace(ref);
    slots_[ref] = Slot{};
    free_.push_back(ref);
    --size_;
  }

  View view(std::uint32_t ref) const { return Traits::view(slots_[ref].value); }
  std::uint32_t holders(std::uint32_t ref) const { return slots_[ref].holders; }

  std::optional<std::uint32_t> find(const View& view) const {
    if (buckets_.empty()) return std::nullopt;
    const std::size_t mask = buckets_.size() - 1;
    for (std::size_t bucket = Traits::hash(view) & mask;; bucket = (bucket + 1) & mask) {
      if (buckets_[bucket] == 0) return std::nullopt;
      const std::uint32_t ref = buckets_[bucket] - 1;
      if (Traits::view(slots_[ref].value) == view) return ref;
    }
  }

  std::size_t size() const { return size_; }  // distinct values held
  // Slots in use or free for reuse: what the table's memory grows with.
  std::size_t capacity() const { return slots_.size(); }

 private:
  struct Slot {
    Value value{};
    std::uint32_t holders = 0;
  };

  std::size_t home(std::uint32_t ref) const {
    return Traits::hash(Traits::view(slots_[ref].value)) & (buckets_.size() - 1);
  }

  void place(std::uint32_t ref) {  // linear probing from the value's home bucket
    const std::size_t mask = buckets_.size() - 1;
    std::size_t bucket = home(ref);
    while (buckets_[bucket] != 0)
      bucket = (bucket + 1) & mask;
    buckets_[bucket] = ref + 1;
  }

  // Backward-shift deletion: the values after the hole that may move into it do, so that
  // no tombstones lengthen later probes.
  void unplace(std::uint32_t ref) {
    const std::size_t mask = buckets_.size() - 1;
    std::size_t hole = home(ref);
    while (buckets_[hole] != ref + 1)
      hole = (hole + 1) & mask;
    for (std::size_t next = (hole + 1) & mask; buckets_[next] != 0; next = (next + 1) & mask) {
      const std::size_t wanted = home(buckets_[next] - 1);
      // The value at `next` probed from `wanted`; the hole is on that path when it lies
      // closer to `wanted` than `next` does.
      if (((hole - wanted) & mask) < ((next - wanted) & mask)) {
        buckets_[hole] = buckets_[next];
        hole = next;
      }
    }
    buckets_[hole] = 0;
  }

  void grow() {
    std::vector<std::uint32_t> old(buckets_.empty() ? 16 : buckets_.size() * 2, 0);
    old.swap(buckets_);
    for (const std::uint32_t stored : old) {
      if (stored != 0) place(stored - 1);
    }
  }

  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_;     // released slots, reused first
  std::vector<std::uint32_t> buckets_;  // a slot's reference + 1; 0 is empty
  std::size_t size_ = 0;
};

// What the idempotency store and the journal share, so that a key (and the fingerprint of
// its payload) is held once however many jobs and entries name it.
struct KeyTables {
  InternTable<CompactBytes> keys;
  InternTable<Digest> digests;
};

}  // namespace retryproof::provider
