// CsvDataset: quoting, line ends, headers and typed columns, and malformed input reported by line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "burn/data/csv.hpp"
#include "tmp_dir.hpp"

using namespace burn::data;
using burn::data::test::error_of;
using burn::data::test::TmpDir;
using burn::data::test::write_text;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(CsvDataset, QuotingAndLineEnds) {
  TmpDir dir;
  write_text(dir.file("a.csv"),
             "\xEF\xBB\xBFname,size,note\r\n"
             "plain,1,simple\r\n"
             "\"with, comma\",2,\"say \"\"hi\"\"\"\n"
             "\n"
             "\"multi\nline\",3,\n"
             "last,-4,\"\"");  // no final line end
  CsvDataset ds(dir.file("a.csv"), {.types = {CsvType::String, CsvType::Int, CsvType::String}});
  EXPECT_THAT(ds.header(), ElementsAre("name", "size", "note"));
  ASSERT_EQ(ds.size(), 4u);
  CsvRow r1 = *ds.get(1);
  EXPECT_EQ(r1.str(0), "with, comma");
  EXPECT_EQ(r1.str("note"), "say \"hi\"");
  EXPECT_EQ(r1.as_int("size"), 2);
  EXPECT_EQ(r1.line(), 3u);
  CsvRow r2 = *ds.get(2);
  EXPECT_EQ(r2.str(0), "multi\nline");
  EXPECT_EQ(r2.str(2), "");
  EXPECT_EQ(r2.line(), 5u);
  CsvRow r3 = *ds.get(3);
  EXPECT_EQ(r3.line(), 7u);  // the quoted newline counts
  EXPECT_EQ(r3.as_int(1), -4);
  EXPECT_EQ(r3.str(2), "");
  EXPECT_EQ(ds.get(4), std::nullopt);
}

TEST(CsvDataset, NoHeaderOtherDelimiterAndFloats) {
  CsvDataset ds = CsvDataset::from_string("1.5;2e3;x\n-0.25;inf;'a;b'\n",
                                          {.delimiter = ';',
                                           .quote = '\'',
                                           .has_header = false,
                                           .types = {CsvType::Float, CsvType::Float, CsvType::String}});
  ASSERT_EQ(ds.size(), 2u);
  EXPECT_TRUE(ds.header().empty());
  EXPECT_DOUBLE_EQ(ds.get(0)->as_float(0), 1.5);
  EXPECT_DOUBLE_EQ(ds.get(0)->as_float(1), 2000.0);
  EXPECT_DOUBLE_EQ(ds.get(1)->as_float(0), -0.25);
  EXPECT_TRUE(std::isinf(ds.get(1)->as_float(1)));
  EXPECT_EQ(ds.get(1)->str(2), "a;b");
}

TEST(CsvDataset, MalformedInputNamesFileAndLine) {
  EXPECT_THAT(error_of([] { CsvDataset::from_string("a,b\n1,2\n3\n", {}, "f.csv"); }),
              HasSubstr("'f.csv' line 3 (item 1): 1 fields, expected 2"));
  EXPECT_THAT(error_of([] { CsvDataset::from_string("a,b\n1,\"open\n2,3\n", {}, "f.csv"); }),
              HasSubstr("'f.csv' line 2 (item 0), column 2 ('b'): unterminated quoted field"));
  EXPECT_THAT(error_of([] { CsvDataset::from_string("a,b\n\"x\"y,2\n", {}, "f.csv"); }),
              HasSubstr("'f.csv' line 2 (item 0), column 1 ('a'): text after a closing quote"));
  EXPECT_THAT(error_of([] { CsvDataset::from_string("a,b\nx\"y,2\n", {}, "f.csv"); }),
              HasSubstr("quote inside an unquoted field"));
  EXPECT_THAT(
      error_of([] {
        CsvDataset::from_string("id,score\n1,0.5\n2,high\n", {.types = {CsvType::Int, CsvType::Float}}, "s.csv");
      }),
      HasSubstr("'s.csv' line 3 (item 1), column 2 ('score'): 'high' is not a number"));
  EXPECT_THAT(error_of([] { CsvDataset::from_string("id\n1.5\n", {.types = {CsvType::Int}}, "i.csv"); }),
              HasSubstr("'i.csv' line 2 (item 0), column 1 ('id'): '1.5' is not an integer"));
  CsvDataset ds = CsvDataset::from_string("a\n1\n", {}, "n.csv");
  EXPECT_THAT(error_of([&] { ds.get(0)->str("b"); }), HasSubstr("'n.csv': no column named 'b'"));
  EXPECT_THAT(error_of([&] { ds.get(0)->str(1); }),
              HasSubstr("'n.csv' line 2 (item 0), column 2: the row has only 1 columns"));
  // The item is the row's index in the dataset, past the header and empty lines.
  EXPECT_THAT(error_of([] { CsvDataset::from_string("a,b\n1,2\n\n3,4\n5\n", {}, "e.csv"); }),
              HasSubstr("'e.csv' line 5 (item 2): 1 fields, expected 2"));
  EXPECT_THAT(error_of([] { CsvDataset::from_string("\"a,b\n1,2\n", {}, "h.csv"); }),
              HasSubstr("'h.csv' line 1 (header), column 1: unterminated quoted field"));
  EXPECT_THAT(
      error_of([] {
        CsvDataset::from_string("1,2\n3,x\n", {.has_header = false, .types = {CsvType::Int, CsvType::Int}}, "t.csv");
      }),
      HasSubstr("'t.csv' line 2 (item 1), column 2: 'x' is not an integer"));
  EXPECT_EQ(CsvDataset::from_string("a\n1\n\n2\n").get(1)->item(), 1u);
  TmpDir dir;
  EXPECT_THAT(error_of([&] { CsvDataset(dir.file("missing.csv")); }),
              AllOf(HasSubstr("missing.csv'"), HasSubstr("cannot open")));
}
