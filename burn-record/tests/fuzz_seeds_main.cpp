// Writes seed files for the recorder fuzzers (burn-record/fuzz): DIR/<recorder>/*.<ext>, a small
// record with every kind and dtype, one with multi-chunk tensors (Rust Burn's formats: their samples), and
// one with quantized tensors (burn/record/quant.hpp's groups), for the checks the fuzzers run on them, and the
// committed Rust Burn files with QFloat tensors (fixtures/burn/qfloat.*), which burn's writers do not write.
#include <filesystem>
#include <iostream>

#include "burn/record/recorder.hpp"
#include "burn_sample.hpp"
#include "sample_record.hpp"

namespace {

// Two quantized tensors as the writer lays them out: q8 affine per channel [2, 3], q4 symmetric per block [2, 4].
burn::record::Record quantized_sample() {
  using namespace burn;
  record::Record r;
  r.set("q8.quant_scheme", TensorData::from_vector<int64_t>({1, 0, 1, 1, 0, 0, 0, 2, 3}, {9}));
  r.set("q8.values", TensorData::from_vector<int8_t>({-128, 0, 127, 5, -5, 1}, {2, 3}));
  r.set("q8.scales", TensorData::from_vector<float>({0.5f, 0.25f}, {2}));
  r.set("q8.zero_points", TensorData::from_vector<int32_t>({-3, 4}, {2}));
  r.set("q4.quant_scheme", TensorData::from_vector<int64_t>({1, 1, 0, 2, 0, 2, 0, 2, 4}, {9}));
  r.set("q4.values", TensorData::from_vector<uint8_t>({0x71, 0x9f, 0x00, 0x37}, {4}));
  r.set("q4.scales", TensorData::from_vector<float>({0.1f, 0.2f, 0.3f, 0.4f}, {2, 2}));
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace burn;
  using namespace burn::record;
  if (argc != 2) {
    std::cerr << "usage: burn-record-fuzz-seeds DIR\n";
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  Record big;
  std::vector<float> v(300'000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 1000) * 0.001f;
  big.set("w", TensorData::from_vector<float>(v, {300, 1000}));
  big.set("i", TensorData::from_vector<int64_t>({1, 2, 3}, {3}));
  for (const auto& [name, ext] :
       {std::pair{"zstd", ".bpz"}, {"hdf5", ".h5"}, {"json", ".json"}, {"safetensors", ".safetensors"}}) {
    std::filesystem::create_directories(dir / name);
    save((dir / name / (std::string("sample") + ext)).string(), test::sample_record(), {.recorder = name});
    if (std::string(name) != "json") save((dir / name / (std::string("big") + ext)).string(), big, {.recorder = name});
    save((dir / name / (std::string("empty") + ext)).string(), Record(), {.recorder = name});
    save((dir / name / (std::string("quantized") + ext)).string(), quantized_sample(), {.recorder = name});
  }
  // Rust Burn's formats: NamedMpk plain and gzip (one fuzzer reads both), burnpack (tensors only).
  std::filesystem::create_directories(dir / "namedmpk");
  std::filesystem::create_directories(dir / "burnpack");
  for (const auto& [name, record] : {std::pair{"sample", test::burn_mpk_sample()}, {"big", big}, {"empty", Record()}}) {
    save((dir / "namedmpk" / (std::string(name) + ".mpk")).string(), record);
    save((dir / "namedmpk" / (std::string(name) + ".mpk.gz")).string(), record);
  }
  save((dir / "burnpack" / "sample.bpk").string(), test::burn_bpk_sample());
  save((dir / "burnpack" / "big.bpk").string(), big);
  save((dir / "burnpack" / "empty.bpk").string(), Record());
  save((dir / "burnpack" / "quantized.bpk").string(), quantized_sample());
  save((dir / "namedmpk" / "quantized.mpk").string(), quantized_sample());
  // Rust Burn's own quantized tensors (QFloat), which burn's writers do not write: the committed fixtures.
  const std::filesystem::path fixtures = std::filesystem::path(BURN_RECORD_FIXTURES) / "burn";
  for (const auto& [file, fuzzer] : {std::pair{"qfloat.mpk", "namedmpk"}, {"qfloat.bpk", "burnpack"}})
    std::filesystem::copy_file(fixtures / file, dir / fuzzer / file, std::filesystem::copy_options::overwrite_existing);
  return 0;
}
