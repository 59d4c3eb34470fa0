// The pytorch importer against fixtures written by torch 1.13 (gen_pytorch_fixtures.py): values,
// dtypes, shapes and names as torch saved them, refusals of code and classes, damaged files.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "burn/import/importer.hpp"
#include "burn/tensor/error.hpp"
#include "reader.hpp"
#include "unpickler.hpp"

namespace {

namespace fs = std::filesystem;
using burn::DType;
using burn::record::EntryKind;

const fs::path kDir = fs::path(BURN_IMPORT_FIXTURES) / "pytorch";

std::string fixture(const std::string& name) { return (kDir / name).string(); }

const nlohmann::json& expected() {
  static const nlohmann::json j = [] {
    std::ifstream in(kDir / "expected.json");
    return nlohmann::json::parse(in);
  }();
  return j;
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::string write_temp(const std::string& name, const std::vector<uint8_t>& bytes) {
  const fs::path p = fs::temp_directory_path() / ("burn_pytorch_test_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(p, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return p.string();
}

// torch's dtype names as burn reads them (int16 is widened to i32).
DType burn_dtype(const std::string& torch) {
  if (torch == "float64") return DType::F64;
  if (torch == "float32") return DType::F32;
  if (torch == "float16") return DType::F16;
  if (torch == "bfloat16") return DType::BF16;
  if (torch == "int64") return DType::I64;
  if (torch == "int32" || torch == "int16") return DType::I32;
  if (torch == "int8") return DType::I8;
  if (torch == "uint8") return DType::U8;
  if (torch == "bool") return DType::Bool;
  throw std::runtime_error("unknown dtype " + torch);
}

// Every expected entry of `file` (below `prefix`, renamed without it) matches, and the reader has no
// other leaves.
void check_file(burn::record::RecordReader& r, const std::string& file, const std::string& prefix = "") {
  std::set<std::string> leaves, seen;
  for (const auto& e : r.entries()) {
    // Pre-order: the parent group is listed before.
    if (const auto dot = e.path.rfind('.'); dot != std::string::npos) {
      EXPECT_TRUE(seen.count(e.path.substr(0, dot))) << file << ": " << e.path << " before its group";
    }
    seen.insert(e.path);
    if (e.kind != EntryKind::Group) leaves.insert(e.path);
  }
  size_t count = 0;
  for (const auto& [key, want] : expected().at(file).items()) {
    if (!key.starts_with(prefix)) continue;
    const std::string path = key.substr(prefix.size());
    ++count;
    SCOPED_TRACE(file + ": " + path);
    ASSERT_TRUE(leaves.count(path)) << "missing entry";
    leaves.erase(path);
    const burn::record::Value v = r.read(path);
    if (want.contains("dtype")) {
      ASSERT_EQ(v.kind(), EntryKind::Tensor);
      const auto& t = v.tensor();
      EXPECT_EQ(t.dtype(), burn_dtype(want["dtype"]));
      EXPECT_EQ(t.shape().dims(), want["shape"].get<std::vector<int64_t>>());
      EXPECT_EQ(t.to_f64_vec(), want["values"].get<std::vector<double>>());
      const auto* info = r.find(path);
      ASSERT_NE(info, nullptr);
      EXPECT_EQ(info->dtype, t.dtype());
      EXPECT_EQ(info->shape, t.shape());
      EXPECT_EQ(info->bytes, t.bytes().size());
    } else if (want.contains("int")) {
      ASSERT_EQ(v.kind(), EntryKind::Int);
      EXPECT_EQ(v.as_int(), want["int"].get<int64_t>());
    } else if (want.contains("float")) {
      ASSERT_EQ(v.kind(), EntryKind::Float);
      EXPECT_EQ(v.as_float(), want["float"].get<double>());
    } else if (want.contains("bool")) {
      ASSERT_EQ(v.kind(), EntryKind::Bool);
      EXPECT_EQ(v.as_bool(), want["bool"].get<bool>());
    } else {
      ASSERT_EQ(v.kind(), EntryKind::String);
      EXPECT_EQ(v.as_string(), want["str"].get<std::string>());
    }
  }
  EXPECT_GT(count, 0u);
  EXPECT_TRUE(leaves.empty()) << file << ": unexpected entry " << *leaves.begin();
}

// The error `fn` throws, as text; fails the test when it throws nothing or not a burn::Error.
template <typename F>
std::string error_of(F&& fn) {
  try {
    fn();
  } catch (const burn::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(PyTorchImport, EveryFixtureReadsAsTorchWroteIt) {
  for (const auto& [file, entries] : expected().items()) {
    auto r = burn::import::open(fixture(file));
    EXPECT_EQ(r->metadata().find("pytorch.layout") != nullptr, true) << file;
    check_file(*r, file);
  }
}

TEST(PyTorchImport, LayoutsAndProtocols) {
  EXPECT_EQ(*burn::import::open(fixture("views_legacy.pt"))->metadata().find("pytorch.layout"), "legacy");
  EXPECT_EQ(*burn::import::open(fixture("views_zip.pt"))->metadata().find("pytorch.layout"), "zip, archive version 3");
  // The same tensors whatever the layout or pickle protocol.
  auto zip = burn::import::open(fixture("views_zip.pt"))->read_all();
  for (const char* other : {"views_legacy.pt", "views_p4.pt", "views_p5.pt"}) {
    auto rec = burn::import::open(fixture(other))->read_all();
    rec.metadata() = zip.metadata();
    EXPECT_TRUE(rec == zip) << other;
  }
  auto le = burn::import::open(fixture("dtypes_zip.pt"))->read_all();
  auto be = burn::import::open(fixture("big_endian.pt"))->read_all();
  be.metadata() = le.metadata();
  EXPECT_TRUE(be == le);
}

TEST(PyTorchImport, CheckpointScalarsGroupsAndSkips) {
  auto r = burn::import::open(fixture("checkpoint.pt"));
  EXPECT_EQ(r->find("model.layer1.0")->kind, EntryKind::Group);
  EXPECT_EQ(r->read("model.layer1.1.num_batches_tracked").tensor().shape().rank(), 0u);
  const std::string* skipped = r->metadata().find("pytorch.skipped");
  ASSERT_NE(skipped, nullptr);
  EXPECT_NE(skipped->find("nothing: a None is not a record value"), std::string::npos) << *skipped;
  EXPECT_NE(skipped->find("blob: a bytes is not a record value"), std::string::npos) << *skipped;
  EXPECT_EQ(r->find("nothing"), nullptr);
  // read_all gives what entry-by-entry reading gives.
  const auto all = r->read_all();
  EXPECT_EQ(all.at("model.head.weight"), r->read("model.head.weight"));
  EXPECT_EQ(all.at("optimizer.param_groups.0.lr").as_float(), 0.5);
}

TEST(PyTorchImport, TopLevelKeyReadsBelowIt) {
  burn::import::ImportOptions o;
  o.top_level_key = "model";
  auto r = burn::import::open(fixture("checkpoint.pt"), o);
  check_file(*r, "checkpoint.pt", "model.");
  o.top_level_key = "state_dict";
  const std::string err = error_of([&] { burn::import::open(fixture("checkpoint.pt"), o); });
  EXPECT_NE(err.find("checkpoint.pt"), std::string::npos) << err;
  EXPECT_NE(err.find("'state_dict'"), std::string::npos) << err;
  EXPECT_NE(err.find("model"), std::string::npos) << err;  // the keys there are
}

TEST(PyTorchImport, ChosenByExtensionAndByContent) {
  EXPECT_EQ(burn::import::importer_for_file(fixture("views_zip.pt"))->name(), "pytorch");
  for (const char* f : {"views_zip.pt", "views_legacy.pt"}) {
    const std::string copy = write_temp(std::string(f) + ".bin", read_bytes(fixture(f)));
    const auto i = burn::import::importer_for_file(copy);
    ASSERT_NE(i, nullptr) << f;
    EXPECT_EQ(i->name(), "pytorch");
    fs::remove(copy);
  }
}

TEST(PyTorchImport, CodeAndClassesAreRefusedNamingTheGlobal) {
  std::remove("/tmp/burn-import-pwned-marker");
  for (const char* f : {"os_system.pt", "os_system_legacy.pt"}) {
    const std::string err = error_of([&] { burn::import::open(fixture(f)); });
    EXPECT_NE(err.find("'posix.system'"), std::string::npos) << err;
    EXPECT_NE(err.find(f), std::string::npos) << err;
  }
  EXPECT_FALSE(fs::exists("/tmp/burn-import-pwned-marker"));
  const std::string err = error_of([] { burn::import::open(fixture("module.pt")); });
  EXPECT_NE(err.find("'torch.nn.modules.linear.Linear'"), std::string::npos) << err;
}

TEST(PyTorchImport, DamagedFilesNameTheFileTheEntryAndTheProblem) {
  const std::pair<const char*, const char*> cases[] = {
      {"missing_storage.pt", "entry 'w': its storage 'archive/data/7' is missing"},
      {"short_storage.pt", "holds 20 bytes, the pickle says 10 float32 elements"},
      {"view_outside.pt", "reaches element 10 of storage '0', which holds 10"},
      {"negative_stride.pt", "negative stride -1"},
      {"absurd_size.pt", "overflows"},
      {"complex_storage.pt", "'torch.ComplexFloatStorage' is not on the allow-list"},
      {"billion_laughs.pt", "more than 262144 entries"},
  };
  for (const auto& [file, problem] : cases) {
    const std::string err = error_of([&] { burn::import::open(fixture(file)); });
    EXPECT_NE(err.find(file), std::string::npos) << err;
    EXPECT_NE(err.find(problem), std::string::npos) << file << ": " << err;
  }
  // A valid view on one element that would need 2^50 of them: refused when read, not when opened.
  auto r = burn::import::open(fixture("broadcast_huge.pt"));
  EXPECT_EQ(r->find("w")->shape.dims(), std::vector<int64_t>{int64_t{1} << 50});
  EXPECT_THROW(r->read("w"), burn::OutOfMemory);
}

TEST(PyTorchImport, CyclesAreCutAtTheNestingLimit) {
  auto r = burn::import::open(fixture("cycle.pt"));
  EXPECT_EQ(r->entries().size(), burn::record::kMaxDepth);  // a, a.0, a.0.0, ...
  EXPECT_NE(r->metadata().find("pytorch.skipped")->find("nests deeper than 64 levels"), std::string::npos)
      << *r->metadata().find("pytorch.skipped");
}

TEST(PyTorchImport, EveryTruncationIsAnError) {
  for (const char* f : {"views_zip.pt", "views_legacy.pt", "dtypes_legacy.pt"}) {
    const auto bytes = read_bytes(fixture(f));
    for (size_t n = 0; n < bytes.size(); n += (n < 64 || bytes.size() - n < 64) ? 1 : 13) {
      const std::string p = write_temp("truncated.pt", {bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(n)});
      const std::string err = error_of([&] { burn::import::open(p, {.importer = "pytorch"})->read_all(); });
      EXPECT_NE(err.find(p), std::string::npos) << f << " cut at " << n << ": " << err;
      fs::remove(p);
    }
  }
}

TEST(PyTorchImport, FlippedBytesNeverCrash) {
  for (const char* f : {"views_zip.pt", "views_legacy.pt"}) {
    const auto bytes = read_bytes(fixture(f));
    for (size_t i = 0; i < bytes.size(); ++i) {
      auto copy = bytes;
      copy[i] ^= static_cast<uint8_t>(0x5a + i);
      const std::string p = write_temp("flipped.pt", copy);
      try {
        auto r = burn::import::open(p, {.importer = "pytorch"});
        (void)r->read_all();
      } catch (const burn::Error&) {
      }
      fs::remove(p);
    }
  }
}

TEST(PyTorchImport, DamagedPickleFailsItsCrc) {
  // Storages are read with one pread each, unchecked (like torch.load); data.pkl is CRC-checked.
  auto bytes = read_bytes(fixture("views_zip.pt"));
  const std::string key = "cols";
  const auto it = std::search(bytes.begin(), bytes.end(), key.begin(), key.end());
  ASSERT_NE(it, bytes.end());
  it[3] = 't';
  const std::string p = write_temp("crc.pt", bytes);
  const std::string err = error_of([&] { burn::import::open(p); });
  EXPECT_NE(err.find("entry 'views_zip/data.pkl'"), std::string::npos) << err;
  EXPECT_NE(err.find("CRC"), std::string::npos) << err;
  fs::remove(p);
}

// ---- the unpickler on its own ----

burn::import::pytorch::Pickle run(const std::string& bytes) {
  return burn::import::pytorch::unpickle({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}, "f.pt",
                                         "data.pkl");
}

TEST(PyTorchUnpickler, RefusesGlobalsOffTheList) {
  for (const auto& [pkl, name] : std::vector<std::pair<std::string, std::string>>{
           {"\x80\x02"
            "cos\nsystem\nX\x02\x00\x00\x00lsR.",
            "os.system"},
           {"\x80\x04\x8c\x08"
            "builtins\x8c\x04"
            "eval\x93.",
            "builtins.eval"},
           {"\x80\x02"
            "csubprocess\nPopen\n.",
            "subprocess.Popen"},
       }) {
    const std::string err = error_of([&] { run(pkl); });
    EXPECT_NE(err.find("'" + name + "' is not on the allow-list"), std::string::npos) << err;
    EXPECT_NE(err.find("f.pt: entry 'data.pkl'"), std::string::npos) << err;
  }
}

TEST(PyTorchUnpickler, BoundsAndMalformedInput) {
  const std::pair<std::string, std::string> cases[] = {
      {std::string("\x80\x02") + std::string(3u << 20, 'N') + ".", "the stack grows beyond"},
      {"\x80\x02Nr\xff\xff\xff\x7f.", "memo slot 2147483647 beyond the bound"},
      {"\x80\x02h\x05.", "memo slot 5 is empty"},
      {std::string("\x80\x02X\xff\xff\x00\x00", 7), "needs 65535 bytes, 0 are left"},
      {"\x80\x06N.", "pickle protocol 6"},
      {"\x80\x02\xff", "unknown or unsupported opcode 0xff"},
      {std::string("\x80\x02\x8a\x09") + std::string(9, '\x01') + ".", "an integer of 9 bytes"},
      {"\x80\x02(i__main__\nX\n.", "INST/OBJ"},
      {"\x80\x02NN.", "STOP with 2 values"},
      {"\x80\x02N", "ends without STOP"},
      {"\x80\x02"
       "a.",
       "pops an empty stack"},
      {"\x80\x02NNa.", "APPEND on a None"},
      {std::string("\x80\x02T\xff\xff\xff\xff", 7), "negative length"},
  };
  for (const auto& [pkl, problem] : cases) {
    const std::string err = error_of([&] { run(pkl); });
    EXPECT_NE(err.find(problem), std::string::npos) << problem << " / " << err;
  }
}

TEST(PyTorchUnpickler, SaysWhenTheInputWasCutShort) {
  bool truncated = false;
  const std::string cut = "\x80\x02]q\x00(K\x01";
  EXPECT_THROW(
      burn::import::pytorch::unpickle({reinterpret_cast<const uint8_t*>(cut.data()), cut.size()}, "f", "e", &truncated),
      burn::RecordError);
  EXPECT_TRUE(truncated);
  const std::string bad = "\x80\x02\xff";
  EXPECT_THROW(
      burn::import::pytorch::unpickle({reinterpret_cast<const uint8_t*>(bad.data()), bad.size()}, "f", "e", &truncated),
      burn::RecordError);
  EXPECT_FALSE(truncated);
}

TEST(PyTorchUnpickler, ReadsTheValuesTorchWrites) {
  // pickle.dumps({'a': [1, -2, 2**40, 0.5, True, None, 'é'], 'b': (b'xy',)}, protocol=2): bytes are
  // written as _codecs.encode('xy', 'latin1').
  const unsigned char bytes[] = {
      0x80, 0x02, 0x7d, 0x71, 0x00, 0x28, 0x58, 0x01, 0x00, 0x00, 0x00, 0x61, 0x71, 0x01, 0x5d, 0x71, 0x02, 0x28, 0x4b,
      0x01, 0x4a, 0xfe, 0xff, 0xff, 0xff, 0x8a, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x47, 0x3f, 0xe0, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x88, 0x4e, 0x58, 0x02, 0x00, 0x00, 0x00, 0xc3, 0xa9, 0x71, 0x03, 0x65, 0x58, 0x01, 0x00,
      0x00, 0x00, 0x62, 0x71, 0x04, 0x63, 0x5f, 0x63, 0x6f, 0x64, 0x65, 0x63, 0x73, 0x0a, 0x65, 0x6e, 0x63, 0x6f, 0x64,
      0x65, 0x0a, 0x71, 0x05, 0x58, 0x02, 0x00, 0x00, 0x00, 0x78, 0x79, 0x71, 0x06, 0x58, 0x06, 0x00, 0x00, 0x00, 0x6c,
      0x61, 0x74, 0x69, 0x6e, 0x31, 0x71, 0x07, 0x86, 0x71, 0x08, 0x52, 0x71, 0x09, 0x85, 0x71, 0x0a, 0x75, 0x2e};
  const std::string pkl(reinterpret_cast<const char*>(bytes), sizeof bytes);
  const auto p = run(std::string(pkl.data(), pkl.size()));
  using burn::import::pytorch::PyKind;
  ASSERT_EQ(p.root->kind, PyKind::Dict);
  ASSERT_EQ(p.root->items.size(), 4u);
  const auto& a = p.root->items[1]->items;
  ASSERT_EQ(a.size(), 7u);
  EXPECT_EQ(a[0]->i, 1);
  EXPECT_EQ(a[1]->i, -2);
  EXPECT_EQ(a[2]->i, int64_t{1} << 40);
  EXPECT_EQ(a[3]->f, 0.5);
  EXPECT_EQ(a[4]->kind, PyKind::Bool);
  EXPECT_EQ(a[5]->kind, PyKind::None);
  EXPECT_EQ(a[6]->s, "\xc3\xa9");
  EXPECT_EQ(p.root->items[3]->kind, PyKind::Tuple);
  EXPECT_EQ(p.root->items[3]->items[0]->s, "xy");
}

}  // namespace
