// The table that holds each key (and fingerprint, and journal text) once: one slot per
// distinct value, counted holders, and the value freed with its last holder, its slot reused,
// so that a bounded provider's memory stays bounded.
#include "provider/intern_table.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace retryproof::provider {
namespace {

using Texts = InternTable<CompactBytes>;

TEST(InternTable, AValueIsHeldOnceWhateverTheHoldersCount) {
  Texts table;
  const std::uint32_t first = table.acquire("order/42");
  EXPECT_EQ(table.acquire("order/42"), first);
  EXPECT_EQ(table.size(), 1U);
  EXPECT_EQ(table.holders(first), 2U);
  EXPECT_EQ(table.view(first), "order/42");
}

TEST(InternTable, TheLastReleaseFreesTheValueAndItsSlotIsReused) {
  Texts table;
  const std::uint32_t a = table.acquire("a");
  table.retain(a);
  table.acquire("b");
  table.release(a);
  EXPECT_EQ(table.find("a"), a) << "one holder is left";
  table.release(a);
  EXPECT_FALSE(table.find("a"));
  EXPECT_EQ(table.size(), 1U);
  EXPECT_EQ(table.acquire("c"), a) << "the freed slot is reused before the table grows";
  EXPECT_EQ(table.capacity(), 2U);
  table.release(Texts::kNone);  // no reference: nothing to let go of
  EXPECT_EQ(table.size(), 2U);
}

TEST(InternTable, ReleasingMoreOftenThanAcquiredIsAnInternalError) {
  Texts table;
  const std::uint32_t ref = table.acquire("order/42");
  table.release(ref);
  table.acquire("order/7");  // takes the freed slot, held once
  table.release(ref);
  EXPECT_THROW(table.release(ref), InternalError);
}

TEST(InternTable, AnyBytesAreAValueAndAreReturnedAsTheyCame) {
  Texts table;
  const std::vector<std::string> values = {"", std::string("a\0b", 3), "\xff\xfe", "K", "k"};
  std::vector<std::uint32_t> refs;
  for (const std::string& value : values)
    refs.push_back(table.acquire(value));
  EXPECT_EQ(table.size(), values.size()) << "case and bytes after a NUL tell values apart";
  for (std::size_t i = 0; i < values.size(); ++i)
    EXPECT_EQ(table.view(refs[i]), values[i]);
}

// Removing from an open-addressed table moves later values back into the hole; every value
// left must still be found, and none removed.
TEST(InternTable, AfterManyReleasesEveryValueLeftIsFoundAndNoOtherIs) {
  Texts table;
  std::vector<std::uint32_t> refs;
  for (int i = 0; i < 5000; ++i)
    refs.push_back(table.acquire("key-" + std::to_string(i)));
  for (int i = 0; i < 5000; i += 3)
    table.release(refs[static_cast<std::size_t>(i)]);
  for (int i = 0; i < 5000; ++i) {
    const auto found = table.find("key-" + std::to_string(i));
    if (i % 3 == 0) {
      EXPECT_FALSE(found) << i;
    } else {
      EXPECT_EQ(found, refs[static_cast<std::size_t>(i)]) << i;
    }
  }
  for (int i = 0; i < 5000; ++i)
    if (i % 3 != 0) table.release(refs[static_cast<std::size_t>(i)]);
  EXPECT_EQ(table.size(), 0U);
  for (int i = 0; i < 5000; ++i)
    table.acquire("again-" + std::to_string(i));
  EXPECT_EQ(table.capacity(), 5000U) << "a table refilled after emptying reuses its slots";
}

TEST(InternTable, DigestsAreHeldOnceToo) {
  InternTable<Digest> table;
  Digest one;
  one.bytes[0] = 1;
  Digest two;
  two.bytes[31] = 2;
  const std::uint32_t ref = table.acquire(one);
  EXPECT_NE(table.acquire(two), ref);
  EXPECT_EQ(table.acquire(one), ref);
  EXPECT_EQ(table.view(ref), one);
  EXPECT_EQ(table.size(), 2U);
}

}  // namespace
}  // namespace retryproof::provider
