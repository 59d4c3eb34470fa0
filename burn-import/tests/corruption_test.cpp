// Damaged checkpoints through the importers: safetensors, PyTorch (zip and legacy) and
// Burn's .mpk/.mpk.gz/.bpk files cut at every length (or 400 spread lengths of a larger file) are
// refused with a RecordError naming the file; a seeded sample of bit flips loads (these formats have
// no checksums) or gives a burn::Error naming the file, never another exception or a crash.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <random>
#include <set>
#include <string>

#include "burn/import/importer.hpp"
#include "burn/record/recorder.hpp"
#include "burn/tensor/error.hpp"
#include "damaged_copy.hpp"

namespace {

namespace fs = std::filesystem;
using namespace burn;

using record::test::DamagedCopy;
using record::test::read_bytes;

// "" when the whole file reads; else the burn::Error's message. Any other exception is reported as such.
std::string read_error(const std::string& path) {
  try {
    import::open(path)->read_all();
  } catch (const RecordError& e) {
    return e.what();
  } catch (const Error& e) {
    return std::string("<not a RecordError> ") + e.what();
  } catch (const std::exception& e) {
    return std::string("<not a burn::Error> ") + e.what();
  }
  return "";
}

struct Checkpoint {
  const char* fixture;    // under fixtures/
  const char* extension;  // kept by the damaged copies, which choose the importer
};

const Checkpoint kCheckpoints[] = {
    {"safetensors/small.safetensors", ".safetensors"},
    {"safetensors/all_dtypes.safetensors", ".safetensors"},
    {"pytorch/checkpoint.pt", ".pt"},
    {"pytorch/dtypes_legacy.pt", ".pt"},
    {"pytorch/views_zip.pt", ".pt"},
    {"burn/model.mpk", ".mpk"},
    {"burn/model.mpk.gz", ".mpk.gz"},
    {"burn/model.bpk", ".bpk"},
};

class ImportCorruption : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("burn-import-corruption-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(ImportCorruption, CutCheckpointsAreRefusedNamingTheFile) {
  for (const auto& c : kCheckpoints) {
    const std::string good = read_bytes(std::string(BURN_IMPORT_FIXTURES) + "/" + c.fixture);
    ASSERT_GT(good.size(), 100u) << c.fixture;
    ASSERT_EQ(read_error(std::string(BURN_IMPORT_FIXTURES) + "/" + c.fixture), "") << c.fixture;
    std::set<size_t> cuts;
    if (good.size() <= 2600) {
      for (size_t n = 0; n < good.size(); ++n) cuts.insert(n);
    } else {
      std::mt19937_64 rng(34);
      for (size_t n = 0; n < 100; ++n) cuts.insert(n);
      for (size_t n = good.size() - 100; n < good.size(); ++n) cuts.insert(n);
      while (cuts.size() < 400) cuts.insert(rng() % good.size());
    }
    DamagedCopy copy((dir_ / (std::string("cut") + c.extension)).string(), good);
    const std::string& f = copy.path();
    for (auto it = cuts.rbegin(); it != cuts.rend(); ++it) {
      const size_t n = *it;
      copy.cut(n);
      const std::string e = read_error(f);
      ASSERT_FALSE(e.empty()) << c.fixture << " cut to " << n << " of " << good.size() << " bytes loaded";
      ASSERT_EQ(e.find("<not a "), std::string::npos) << c.fixture << " cut to " << n << ": " << e;
      ASSERT_NE(e.find(f), std::string::npos) << c.fixture << " cut to " << n << ": " << e;
    }
  }
}

TEST_F(ImportCorruption, FlippedBitsLoadOrGiveABurnErrorNamingTheFile) {
  for (const auto& c : kCheckpoints) {
    const std::string good = read_bytes(std::string(BURN_IMPORT_FIXTURES) + "/" + c.fixture);
    DamagedCopy copy((dir_ / (std::string("flipped") + c.extension)).string(), good);
    const std::string& f = copy.path();
    std::mt19937_64 rng(34);
    size_t refused = 0;
    for (int i = 0; i < 300; ++i) {
      const uint64_t bit = rng() % (8 * good.size());
      copy.with_flip(bit, [&] {
        const std::string e = read_error(f);
        if (e.empty()) return;
        ++refused;
        EXPECT_EQ(e.find("<not a burn::Error>"), std::string::npos) << c.fixture << " bit " << bit << ": " << e;
        EXPECT_NE(e.find(f), std::string::npos) << c.fixture << " bit " << bit << ": " << e;
      });
      if (HasFailure()) return;
    }
    EXPECT_GT(refused, 0u) << c.fixture;
  }
}

}  // namespace
