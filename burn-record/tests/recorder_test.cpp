// save/load/open through the recorder plugins: choice by name and extension, atomic replacement,
// lazy reads, the plugin kind and its version check, `burn plugins`.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "burn/record/file.hpp"
#include "burn/record/recorder.hpp"
#include "sample_record.hpp"

namespace {

namespace fs = std::filesystem;
using namespace burn;
using namespace burn::record;

// A fresh folder per test, removed at the end.
class RecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("burn-record-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  size_t files_in_dir() const { return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), {})); }
  fs::path dir_;
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST_F(RecorderTest, InTreeRecordersArePluginsOfKindRecorder) {
  const auto names = recorder_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "json"), names.end());
  const auto r = recorder("json");
  EXPECT_EQ(r->name(), "json");
  EXPECT_EQ(r->extensions(), std::vector<std::string>{".json"});
  EXPECT_EQ(recorder("json"), r);  // one instance per name
  bool listed = false;
  for (const auto& p : plugins::report()) {
    if (p.name == "json" && p.kind == "recorder" && p.selected) listed = true;
  }
  EXPECT_TRUE(listed);
}

TEST_F(RecorderTest, ExtensionPicksTheRecorder) {
  EXPECT_EQ(recorder_for_path(file("m.json"))->name(), "json");
  EXPECT_EQ(recorder_for_path(file("M.JSON"))->name(), "json");
  const std::string e = error_of([&] { recorder_for_path(file("m.weird")); });
  EXPECT_NE(e.find("no recorder for the extension of '" + file("m.weird") + "'; known: "), std::string::npos) << e;
  EXPECT_NE(e.find(".json (json)"), std::string::npos) << e;
  // A name alone is not an extension.
  EXPECT_NE(error_of([&] { recorder_for_path(file(".json")); }), "");
}

TEST_F(RecorderTest, JsonRoundTripsEveryKindAndDType) {
  const Record r = test::sample_record();
  save(file("m.json"), r);
  const Record back = load(file("m.json"));
  EXPECT_EQ(test::first_difference(back, r), "");
  EXPECT_EQ(back.metadata().producer, "burn-record tests");
  EXPECT_EQ(back.metadata().burn_version, BURN_RECORD_VERSION);
  EXPECT_EQ(back.metadata().dtype_policy, "keep");
  EXPECT_EQ(back.metadata().format_version, kRecordFormatVersion);
  EXPECT_EQ(back.metadata().extra, r.metadata().extra);
  // Values, not just equality of two decodings.
  EXPECT_EQ(back.at("blocks.0.attn.q.weight").tensor().to_vec<float>()[2], 0.1f);
  EXPECT_EQ(back.at("blocks.1.count").tensor().to_vec<int64_t>()[4], 9007199254740993);
  EXPECT_EQ(back.at("optim.name").as_string(), "adam \"w\"\n\ttab é ✓");
  EXPECT_EQ(back.at("empty_group").group().size(), 0u);
  EXPECT_EQ(files_in_dir(), 1u);  // no temporary file left
}

TEST_F(RecorderTest, OpenListsEntriesFromTheIndexAndReadsOne) {
  save(file("m.json"), test::sample_record());
  auto reader = open(file("m.json"));
  const auto& entries = reader->entries();
  ASSERT_EQ(entries.size(), 24u);
  EXPECT_EQ(entries[0].path, "blocks");
  EXPECT_EQ(entries[0].kind, EntryKind::Group);
  const EntryInfo* w = reader->find("blocks.0.norm.gamma");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->kind, EntryKind::Tensor);
  EXPECT_EQ(w->dtype, DType::F16);
  EXPECT_EQ(w->shape, (Shape{3, 2}));
  EXPECT_EQ(w->bytes, 12u);
  EXPECT_EQ(reader->read("optim.step").as_int(), 1234567890123);
  const TensorData g = reader->read_tensor("blocks.0.norm.gamma", DType::F32);
  EXPECT_EQ(g.dtype(), DType::F32);
  EXPECT_EQ(g.to_vec<float>(), (std::vector<float>{1.0f, -2.0f, 65504.0f, 5.9604645e-08f, -0.0f, INFINITY}));
  // A group reads as a record of everything below it.
  const Value optim = reader->read("optim");
  EXPECT_EQ(optim.group().at("lr").as_float(), 3e-4);
  EXPECT_EQ(error_of([&] { reader->read("optim.missing"); }),
            "[record.read] " + file("m.json") + ": entry 'optim.missing': no such entry in the file");
}

TEST_F(RecorderTest, SaveReplacesTheTargetAtomically) {
  Record a, b;
  a.set("v", Value(int64_t{1}));
  b.set("v", Value(int64_t{2}));
  save(file("m.json"), a);
  struct stat st {};
  ASSERT_EQ(::stat(file("m.json").c_str(), &st), 0);
  const ino_t first = st.st_ino;
  EXPECT_EQ(st.st_mode & 0777, 0666u & ~022u);  // not mkstemp's 0600 (the tests run with umask 022)
  save(file("m.json"), b);
  ASSERT_EQ(::stat(file("m.json").c_str(), &st), 0);
  EXPECT_NE(st.st_ino, first);  // a new file renamed over the old one, not rewritten in place
  EXPECT_EQ(load(file("m.json")).at("v").as_int(), 2);
  EXPECT_EQ(files_in_dir(), 1u);
}

TEST_F(RecorderTest, FailedSaveLeavesTheTargetAndNoTemporaryFile) {
  Record good, bad;
  good.set("v", Value(int64_t{7}));
  bad.set("s", Value(std::string("\xff\xfe not utf-8")));
  save(file("m.json"), good);
  const std::string e = error_of([&] { save(file("m.json"), bad); });
  EXPECT_NE(e.find("entry 's': text is not valid UTF-8"), std::string::npos) << e;
  EXPECT_EQ(load(file("m.json")).at("v").as_int(), 7);
  EXPECT_EQ(files_in_dir(), 1u);
  EXPECT_NE(error_of([&] { save(file("no-such-dir/m.json"), good); }).find("cannot create a temporary file"),
            std::string::npos);
}

TEST_F(RecorderTest, RecorderByNameOverridesTheExtension) {
  Record r;
  r.set("x", Value(1.25));
  save(file("m.dat"), r, {.recorder = "json"});
  EXPECT_EQ(load(file("m.dat"), {.recorder = "json"}).at("x").as_float(), 1.25);
  EXPECT_NE(error_of([&] { save(file("m.dat"), r, {.recorder = "nope"}); }).find("no recorder plugin named 'nope'"),
            std::string::npos);
}

// A recorder linked into the program (no plugin) is found by name and by its extension.
class MemoryRecorder final : public Recorder {
 public:
  std::string name() const override { return "memtest"; }
  std::vector<std::string> extensions() const override { return {".mem", ".json.mem"}; }
  void write(const std::string& path, const Record& r, const Metadata&, const SaveOptions&) const override {
    std::ofstream(path) << r.at("x").as_int();
  }
  std::unique_ptr<RecordReader> open(const std::string&) const override { return nullptr; }
};

TEST_F(RecorderTest, RegisteredRecorderJoinsTheChoice) {
  register_recorder(std::make_shared<MemoryRecorder>());
  EXPECT_EQ(recorder_for_path(file("a.mem"))->name(), "memtest");
  EXPECT_EQ(recorder_for_path(file("a.json.mem"))->name(), "memtest");  // the longest suffix wins
  EXPECT_EQ(recorder_for_path(file("a.json"))->name(), "json");
  Record r;
  r.set("x", Value(int64_t{42}));
  save(file("a.mem"), r);
  std::ifstream in(file("a.mem"));
  int64_t v = 0;
  in >> v;
  EXPECT_EQ(v, 42);
}

// The example at the top of burn-record/README.md, with its file in the test's folder.
TEST_F(RecorderTest, ReadmeExample) {
  const std::string model = file("model.bpz");
  Record r;
  r.set("blocks.0.attn.q.weight", TensorData::from_vector<float>({1, 2, 3, 4}, {2, 2}));
  r.set("optim.step", Value(int64_t{1200}));
  r.set("optim.name", Value("adam"));
  r.metadata().producer = "my-trainer";
  save(model, r, {.precision = Precision::F16});
  Record back = load(model, {.float_dtype = DType::F32});
  auto reader = open(model);
  std::vector<std::string> paths;
  for (const EntryInfo& e : reader->entries()) paths.push_back(e.path);
  TensorData w = reader->read_tensor("blocks.0.attn.q.weight");

  EXPECT_EQ(back.at("blocks.0.attn.q.weight").tensor().to_vec<float>(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(w.dtype(), DType::F16);
  EXPECT_EQ(back.metadata().producer, "my-trainer");
  EXPECT_EQ(back.metadata().dtype_policy, "f16");
  EXPECT_EQ(paths, (std::vector<std::string>{"blocks", "blocks.0", "blocks.0.attn", "blocks.0.attn.q",
                                             "blocks.0.attn.q.weight", "optim", "optim.step", "optim.name"}));
}

TEST(AtomicFile, UncommittedTemporaryIsRemoved) {
  const fs::path dir = fs::temp_directory_path() / ("burn-atomic-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string temp;
  {
    AtomicFile f((dir / "t.bin").string());
    temp = f.path();
    EXPECT_EQ(fs::path(temp).parent_path(), dir);
    EXPECT_EQ(fs::path(temp).filename().string().rfind(".t.bin.tmp-", 0), 0u) << temp;
    EXPECT_TRUE(fs::exists(temp));
  }
  EXPECT_FALSE(fs::exists(temp));
  EXPECT_FALSE(fs::exists(dir / "t.bin"));
  fs::remove_all(dir);
}

TEST(Precision, NamesParseBack) {
  for (Precision p : {Precision::Keep, Precision::F32, Precision::F16, Precision::BF16, Precision::F64}) {
    EXPECT_EQ(parse_precision(precision_name(p)), p);
  }
  EXPECT_EQ(error_of([] { parse_precision("f8"); }),
            "[record.precision] unknown precision 'f8'; expected keep, f32, f16, bf16 or f64");
}

}  // namespace
