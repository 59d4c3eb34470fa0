// Record, Value and path access: order, nesting, replacement, errors that name the path.
#include <gtest/gtest.h>

#include "burn/record/record.hpp"
#include "load_error.hpp"
#include "sample_record.hpp"

namespace {

using namespace burn;
using namespace burn::record;

using burn::record::test::error_of;

TEST(Record, SetCreatesGroupsInInsertionOrder) {
  Record r;
  r.set("b.x", Value(int64_t{1}));
  r.set("a", Value(2.5));
  r.set("b.y.z", Value(true));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r.entries()[0].name, "b");
  EXPECT_EQ(r.entries()[1].name, "a");
  EXPECT_EQ(r.at("b.x").as_int(), 1);
  EXPECT_EQ(r.at("a").as_float(), 2.5);
  EXPECT_TRUE(r.at("b.y.z").as_bool());
  EXPECT_EQ(r.at("b").group().entries()[1].name, "y");

  std::vector<std::string> paths;
  for (const auto& f : r.flatten()) paths.push_back(f.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"b", "b.x", "b.y", "b.y.z", "a"}));
}

TEST(Record, ReplacingKeepsThePosition) {
  Record r;
  r.set("w", Value(int64_t{1}));
  r.set("v", Value(int64_t{2}));
  r.set("w", Value(std::string("now text")));
  EXPECT_EQ(r.entries()[0].name, "w");
  EXPECT_EQ(r.at("w").as_string(), "now text");
  EXPECT_TRUE(r.erase("w"));
  EXPECT_FALSE(r.erase("w"));
  EXPECT_EQ(r.size(), 1u);
  EXPECT_EQ(r.at("v").as_int(), 2);
}

TEST(Record, TensorsCountAndCompareBitForBit) {
  const Record r = test::sample_record();
  EXPECT_EQ(r.tensor_count(), 10u);
  EXPECT_EQ(r.tensor_bytes(), 8u * 4 + 4 * 8 + 6 * 2 + 4 * 2 + 5 * 8 + 3 * 4 + 4 + 4 + 5 + 0);
  Record copy = r;
  EXPECT_EQ(copy, r);
  // -0.0 and 0.0 compare equal as numbers but differ as bits: a round trip must keep the bits.
  copy.set(
      "blocks.0.attn.q.weight",
      TensorData::from_vector<float>({1.5f, -2.25f, 0.1f, 0.0f, INFINITY, -INFINITY, 3.4028235e38f, 1e-45f}, {2, 4}));
  EXPECT_NE(copy, r);
}

TEST(Record, ErrorsNameThePath) {
  Record r;
  r.set("a.b", Value(int64_t{1}));
  EXPECT_EQ(error_of([&] { r.at("a.c"); }), "[record] no entry 'a.c' ('a' exists)");
  EXPECT_EQ(error_of([&] { r.set("a.b.c", Value(1.0)); }),
            "[record.set] cannot set 'a.b.c': 'a.b' is a int, not a group");
  EXPECT_EQ(error_of([&] { r.at("a").as_int(); }), "[record] value is a group, not a int");
  EXPECT_EQ(error_of([&] { r.set("a..b", Value(1.0)); }), "[record.set] entry name 'a..b' has an empty segment");
  EXPECT_EQ(error_of([&] { r.set("x/y", Value(1.0)); }),
            "[record.set] entry name 'x/y' has a forbidden character (code 47) at byte 1");
  EXPECT_EQ(
      error_of([&] { r.set(std::string(5000, 'n'), Value(1.0)); }),
      "[record.set] entry name '" + std::string(80, 'n') + "... (5000 bytes)' is 5000 bytes long; the limit is 4096");
  std::string deep = "a";
  for (int i = 0; i < 64; ++i) deep += ".a";
  EXPECT_NE(error_of([&] { r.set(deep, Value(1.0)); }).find("nests deeper than 64 levels"), std::string::npos);
}

TEST(Record, MetadataExtraKeepsOrderAndReplaces) {
  Metadata m;
  m.set("b", "1");
  m.set("a", "2");
  m.set("b", "3");
  ASSERT_EQ(m.extra.size(), 2u);
  EXPECT_EQ(m.extra[0], (std::pair<std::string, std::string>{"b", "3"}));
  EXPECT_EQ(*m.find("a"), "2");
  EXPECT_EQ(m.find("c"), nullptr);
}

}  // namespace
