// Damaged checkpoints of every recorder: truncations at many offsets and bit flips give
// one RecordError naming the file, never a crash or a different record. In .bpz and .h5 files every
// single-bit flip in a small record's tensor data is caught by the checksums; header and index bits
// are flipped in a seeded sample. Damaged .h5 files leave stderr clean (libhdf5 prints its error
// stack, and at exit 'infinite loop closing library', unless every object was closed).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <random>
#include <set>
#include <sstream>

#include "burn/record/recorder.hpp"
#include "damaged_copy.hpp"
#include "file_bytes.hpp"
#include "load_error.hpp"
#include "sample_record.hpp"

namespace {

namespace fs = std::filesystem;
using namespace burn;
using namespace burn::record;
using test::DamagedCopy;
using test::load_error;

class Corruption : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("burn-corruption-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

// A small checkpoint: tensors of several dtypes whose bytes are distinct enough to be found in a file
// (each one occurs once), and scalars.
Record small_record() {
  std::vector<float> w(24);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 1.0f + 0.37f * static_cast<float>(i);
  std::vector<f16> h(8);
  for (size_t i = 0; i < h.size(); ++i) h[i].bits = f32_to_f16(-0.5f - static_cast<float>(i) * 1.25f);
  Record r;
  r.set("layer.w", TensorData::from_vector<float>(w, {4, 6}));
  r.set("layer.h", TensorData::from_vector<f16>(h, {8}));
  r.set("layer.steps", TensorData::from_vector<int64_t>({1001, -2002, 3003}, {3}));
  r.set("layer.mask", TensorData::from_vector<bool>({true, false, false, true, true}, {5}));
  r.set("optim.step", Value(int64_t{1200}));
  r.set("optim.lr", Value(0.125));
  r.set("optim.name", Value(std::string("adam")));
  r.metadata().producer = "corruption test";
  return r;
}

std::string flipped(std::string bytes, uint64_t bit) {
  bytes[bit / 8] = static_cast<char>(bytes[bit / 8] ^ (1u << (bit % 8)));
  return bytes;
}

uint64_t le64_at(const std::string& s, size_t at) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(s[at + static_cast<size_t>(i)]);
  return v;
}

// The byte ranges of the tensors' data as stored unfiltered: each tensor's bytes, found once.
std::vector<std::pair<size_t, size_t>> tensor_bytes_in(const std::string& file, const Record& r) {
  std::vector<std::pair<size_t, size_t>> out;
  for (const auto& e : r.flatten()) {
    if (e.value->kind() != EntryKind::Tensor || e.value->tensor().bytes().size() < 16) continue;
    const auto& b = e.value->tensor().bytes();
    const std::string needle(reinterpret_cast<const char*>(b.data()), b.size());
    const size_t at = file.find(needle);
    EXPECT_NE(at, std::string::npos) << e.path << " not found in the file";
    if (at == std::string::npos) continue;
    EXPECT_EQ(file.find(needle, at + 1), std::string::npos) << e.path << " found twice";
    out.emplace_back(at, b.size());
  }
  return out;
}

// Seeded sample of `n` distinct bits of [begin, end) bytes (all of them when there are fewer).
std::vector<uint64_t> sample_bits(size_t begin, size_t end, size_t n, uint32_t seed) {
  const uint64_t bits = 8 * (end - begin);
  std::vector<uint64_t> out;
  if (bits <= n) {
    for (uint64_t b = 0; b < bits; ++b) out.push_back(8 * begin + b);
    return out;
  }
  std::mt19937_64 rng(seed);
  std::set<uint64_t> chosen;
  while (chosen.size() < n) chosen.insert(8 * begin + rng() % bits);
  return {chosen.begin(), chosen.end()};
}

// The file's tensor-data region in .bpz: after the 64-byte header, up to the index.
TEST_F(Corruption, BpzEverySingleBitFlipInTheDataIsCaughtNamingTheFileAndTheEntry) {
  const Record r = small_record();
  for (int level : {0, 1}) {
    const std::string ok = file("ok" + std::to_string(level) + ".bpz");
    save(ok, r, {.compression_level = level});
    const std::string good = test::read_bytes(ok);
    const uint64_t index_offset = le64_at(good, 16);
    ASSERT_GT(index_offset, 64u + 96u);  // at least layer.w's bytes
    ASSERT_LT(index_offset, good.size());
    DamagedCopy copy(file("flipped" + std::to_string(level) + ".bpz"), good);
    const std::string& f = copy.path();
    size_t caught = 0;
    for (uint64_t bit = 8 * 64; bit < 8 * index_offset; ++bit) {
      copy.with_flip(bit, [&] {
        const std::string e = load_error(f, "zstd");
        EXPECT_EQ(e.rfind("[zstd] " + f + ": entry '", 0), 0u) << "level " << level << ", bit " << bit << ": " << e;
        EXPECT_NE(e.find("': checksum mismatch in chunk 0 of 1 (the data is damaged)"), std::string::npos)
            << "level " << level << ", bit " << bit << ": " << e;
        caught += e.empty() ? 0 : 1;
      });
      if (HasFailure()) return;
    }
    EXPECT_EQ(caught, 8 * (index_offset - 64));
    if (level == 0) {
      // Stored raw, each tensor's bytes are in the data region, so the loop above flipped every one of their bits.
      for (const auto& [at, n] : tensor_bytes_in(good, r)) {
        EXPECT_GE(at, 64u);
        EXPECT_LE(at + n, index_offset);
      }
    }
  }
}

TEST_F(Corruption, BpzHeaderAndIndexFlipsAreRefusedNamingTheFile) {
  const std::string ok = file("ok.bpz");
  save(ok, small_record());
  const std::string good = test::read_bytes(ok);
  const uint64_t index_offset = le64_at(good, 16);
  DamagedCopy copy(file("flipped.bpz"), good);
  const std::string& f = copy.path();
  std::vector<uint64_t> bits = sample_bits(0, 64, 512, 1);  // the header: every bit
  const auto index_bits = sample_bits(index_offset, good.size(), 1024, 34);
  bits.insert(bits.end(), index_bits.begin(), index_bits.end());
  for (uint64_t bit : bits) {
    copy.with_flip(bit, [&] {
      const std::string e = load_error(f, "zstd");
      EXPECT_EQ(e.rfind("[zstd] " + f + ": ", 0), 0u) << "bit " << bit << ": " << e;
    });
    if (HasFailure()) return;
  }
}

// Every recorder: cut at every length of a small file (hdf5: every length up to 600 bytes, then 300
// seeded ones), each cut is refused naming the file; json may lose trailing whitespace only.
TEST_F(Corruption, TruncationsAtManyOffsetsAreRefusedNamingTheFile) {
  const Record r = small_record();
  for (const char* recorder : {"zstd", "hdf5", "json"}) {
    const std::string ext = std::string(".") + (recorder == std::string("zstd")   ? "bpz"
                                                : recorder == std::string("hdf5") ? "h5"
                                                                                  : "json");
    const std::string ok = file(std::string("ok") + ext);
    save(ok, r);
    const std::string good = test::read_bytes(ok);
    std::set<size_t> cuts;
    for (size_t n = 0; n < std::min<size_t>(good.size(), 600); ++n) cuts.insert(n);
    std::mt19937_64 rng(34);
    for (int i = 0; i < 300; ++i) cuts.insert(rng() % good.size());
    if (recorder != std::string("hdf5")) {
      for (size_t n = 0; n < good.size(); ++n) cuts.insert(n);
    }
    DamagedCopy copy(file(std::string("cut") + ext), good);
    const std::string& f = copy.path();
    for (auto it = cuts.rbegin(); it != cuts.rend(); ++it) {
      const size_t n = *it;
      copy.cut(n);
      Record got;
      const std::string e = load_error(f, recorder, &got);
      if (e.empty() && recorder == std::string("json") && good.find_first_not_of(" \t\r\n", n) == std::string::npos) {
        EXPECT_EQ(test::first_difference(got, r), "") << "json cut to " << n;
        continue;
      }
      ASSERT_EQ(e.rfind("[" + std::string(recorder) + "] " + f + ": ", 0), 0u)
          << recorder << " cut to " << n << " of " << good.size() << " bytes: " << (e.empty() ? "loaded" : e);
      if (recorder == std::string("hdf5") && n >= 512) {  // past the superblock: libhdf5's words, reworded
        ASSERT_EQ(e, "[hdf5] " + f + ": the HDF5 superblock says " + std::to_string(good.size()) +
                         " bytes, the file has " + std::to_string(n) + " (truncated)");
      }
    }
  }
}

// .h5: every bit of every tensor's data is covered by its burn_xxh3; a seeded sample of the other
// bits is refused or harmless (HDF5 leaves reserved space unchecked), never a different record.
TEST_F(Corruption, H5EverySingleBitFlipInTensorDataIsCaughtAndOtherFlipsAreRefusedOrHarmless) {
  const Record r = small_record();
  const std::string ok = file("ok.h5");
  save(ok, r);
  const std::string good = test::read_bytes(ok);
  const auto ranges = tensor_bytes_in(good, r);
  ASSERT_EQ(ranges.size(), 3u);  // layer.w, layer.h, layer.steps
  DamagedCopy copy(file("flipped.h5"), good);
  const std::string& f = copy.path();
  std::set<uint64_t> data_bits;
  for (const auto& [at, n] : ranges) {
    for (uint64_t bit = 8 * at; bit < 8 * (at + n); ++bit) {
      data_bits.insert(bit);
      copy.with_flip(bit, [&] {
        const std::string e = load_error(f, "hdf5");
        EXPECT_EQ(e.rfind("[hdf5] " + f + ": entry 'layer.", 0), 0u) << "bit " << bit << ": " << e;
        EXPECT_NE(e.find("': checksum mismatch (the data is damaged)"), std::string::npos)
            << "bit " << bit << ": " << e;
      });
      if (HasFailure()) return;
    }
  }
  EXPECT_EQ(data_bits.size(), 8u * (96 + 16 + 24));
  size_t refused = 0, tried = 0;
  for (uint64_t bit : sample_bits(0, good.size(), 400, 34)) {
    if (data_bits.count(bit)) continue;
    ++tried;
    copy.with_flip(bit, [&] {
      Record got;
      const std::string e = load_error(f, "hdf5", &got);
      if (e.empty()) {
        EXPECT_EQ(test::first_difference(got, r), "") << "bit " << bit << " flipped, and the record changed";
      } else {
        EXPECT_EQ(e.rfind("[hdf5] " + f + ": ", 0), 0u) << "bit " << bit << ": " << e;
        ++refused;
      }
    });
    if (HasFailure()) return;
  }
  EXPECT_GT(refused, tried / 10) << "the checks should see some of the flips";
}

// json has no checksum (it is for debugging): a flipped bit may change a value, but a file that does
// not parse or check is a RecordError naming it, and nothing else.
TEST_F(Corruption, JsonFlipsAreRefusedNamingTheFileOrLoad) {
  const std::string ok = file("ok.json");
  save(ok, small_record());
  const std::string good = test::read_bytes(ok);
  DamagedCopy copy(file("flipped.json"), good);
  const std::string& f = copy.path();
  size_t refused = 0;
  for (uint64_t bit : sample_bits(0, good.size(), 1500, 34)) {
    copy.with_flip(bit, [&] {
      const std::string e = load_error(f, "json");
      if (e.empty()) return;
      EXPECT_EQ(e.rfind("[json] " + f + ": ", 0), 0u) << "bit " << bit << ": " << e;
      ++refused;
    });
    if (HasFailure()) return;
  }
  EXPECT_GT(refused, 500u);
}

// Damaged .h5 files loaded in one process, which then exits: one line per file on stdout (our error),
// nothing on stderr, neither HDF5's error stack nor its "infinite loop closing library" at exit.
TEST_F(Corruption, DamagedH5FilesLeaveStderrCleanUpToTheProcessExit) {
  const Record r = small_record();
  const std::string ok = file("ok.h5");
  save(ok, r);
  const std::string good = test::read_bytes(ok);
  std::vector<std::string> damaged;
  std::mt19937_64 rng(34);
  for (int i = 0; i < 40; ++i) {
    const std::string f = file("cut" + std::to_string(i) + ".h5");
    test::write_bytes(f, good.substr(0, i < 8 ? static_cast<size_t>(i) * 97 : rng() % good.size()));
    damaged.push_back(f);
  }
  for (int i = 0; i < 80; ++i) {
    const std::string f = file("flip" + std::to_string(i) + ".h5");
    test::write_bytes(f, flipped(good, rng() % (8 * good.size())));
    damaged.push_back(f);
  }
  // Under the asan preset LeakSanitizer lists its suppressions (libhdf5's lost blocks) on stderr at
  // exit: not ours to check here.
  std::string command =
      "LSAN_OPTIONS=\"${LSAN_OPTIONS:+$LSAN_OPTIONS:}print_suppressions=0\" " + std::string(BURN_RECORD_LOAD_PROBE);
  for (const auto& f : damaged) command += " '" + f + "'";
  command += " 2> '" + file("stderr.txt") + "'";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  const int status = pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status)) << out;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(test::read_bytes(file("stderr.txt")), "");
  const std::string open_objects = "open HDF5 objects: 0\n";
  ASSERT_GE(out.size(), open_objects.size());
  EXPECT_EQ(out.substr(out.size() - open_objects.size()), open_objects) << "the recorder left HDF5 ids open";
  std::istringstream lines(out.substr(0, out.size() - open_objects.size()));
  std::string line;
  size_t i = 0, refused = 0;
  while (std::getline(lines, line)) {
    ASSERT_LT(i, damaged.size()) << out;
    if (line != "ok") {
      EXPECT_EQ(line.rfind("[hdf5] " + damaged[i] + ": ", 0), 0u) << line;
      ++refused;
    }
    ++i;
  }
  EXPECT_EQ(i, damaged.size()) << out;
  EXPECT_GE(refused, 40u);  // every cut at least
}

}  // namespace
