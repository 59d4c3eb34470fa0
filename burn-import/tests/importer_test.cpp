// The importer registry: choice by name, extension and content, and the errors when none fits.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "burn/import/importer.hpp"
#include "burn/tensor/error.hpp"

namespace {

namespace fs = std::filesystem;
using burn::import::Importer;

// Reads a one-entry record: "answer" = the file's size, to tell which importer opened the file.
class SizeReader : public burn::record::RecordReader {
 public:
  SizeReader(std::string path, std::string importer) : path_(std::move(path)) {
    meta_.producer = std::move(importer);
    entries_.push_back({"answer", burn::record::EntryKind::Int, burn::DType::F32, {}, 8});
  }
  const std::string& path() const override { return path_; }
  const burn::record::Metadata& metadata() const override { return meta_; }
  const std::vector<burn::record::EntryInfo>& entries() const override { return entries_; }

 protected:
  burn::record::Value read_leaf(const burn::record::EntryInfo&) override {
    return burn::record::Value(static_cast<int64_t>(fs::file_size(path_)));
  }

 private:
  std::string path_;
  burn::record::Metadata meta_;
  std::vector<burn::record::EntryInfo> entries_;
};

class FakeImporter : public Importer {
 public:
  FakeImporter(std::string name, std::vector<std::string> ext, std::string magic)
      : name_(std::move(name)), ext_(std::move(ext)), magic_(std::move(magic)) {}
  std::string name() const override { return name_; }
  std::vector<std::string> extensions() const override { return ext_; }
  bool sniff(std::span<const uint8_t> head) const override {
    return !magic_.empty() && head.size() >= magic_.size() &&
           std::equal(magic_.begin(), magic_.end(), reinterpret_cast<const char*>(head.data()));
  }
  std::unique_ptr<burn::record::RecordReader> open(const std::string& path,
                                                   const burn::import::ImportOptions&) const override {
    return std::make_unique<SizeReader>(path, name_);
  }

 private:
  std::string name_;
  std::vector<std::string> ext_;
  std::string magic_;
};

fs::path write_file(const std::string& name, const std::string& bytes) {
  const fs::path p = fs::temp_directory_path() / ("burn_import_registry_" + name);
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

class ImportRegistry : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    burn::import::register_importer(
        std::make_shared<FakeImporter>("test-short", std::vector<std::string>{".w"}, "SHRT"));
    burn::import::register_importer(
        std::make_shared<FakeImporter>("test-long", std::vector<std::string>{".tar.w"}, "LONGMAGIC"));
  }
};

TEST_F(ImportRegistry, RegisteredImportersAreListed) {
  const auto names = burn::import::importer_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "test-short"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "test-long"), names.end());
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
}

TEST_F(ImportRegistry, LongestExtensionWins) {
  const auto p = write_file("model.TAR.W", "abc");
  auto reader = burn::import::open(p.string());
  EXPECT_EQ(reader->metadata().producer, "test-long");
  EXPECT_EQ(reader->read("answer").as_int(), 3);
  const auto q = write_file("model.w", "abcde");
  EXPECT_EQ(burn::import::open(q.string())->metadata().producer, "test-short");
}

TEST_F(ImportRegistry, ContentDecidesWhenNoExtensionClaimsTheFile) {
  const auto p = write_file("weights.bin", "LONGMAGIC and more");
  EXPECT_EQ(burn::import::importer_for_file(p.string())->name(), "test-long");
  const auto q = write_file("weights.dat", "nothing known");
  EXPECT_EQ(burn::import::importer_for_file(q.string()), nullptr);
}

TEST_F(ImportRegistry, NamedImporterOverridesTheExtension) {
  const auto p = write_file("model2.w", "xy");
  burn::import::ImportOptions options;
  options.importer = "test-long";
  EXPECT_EQ(burn::import::open(p.string(), options)->metadata().producer, "test-long");
}

TEST_F(ImportRegistry, UnknownImporterIsAPluginErrorNamingIt) {
  try {
    burn::import::importer("no-such-format");
    FAIL() << "expected an error";
  } catch (const burn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-format"), std::string::npos) << e.what();
  }
}

TEST_F(ImportRegistry, MissingFileIsARecordErrorNamingIt) {
  EXPECT_THROW(burn::import::importer_for_file("/nonexistent/file.unknownext"), burn::RecordError);
}

}  // namespace
