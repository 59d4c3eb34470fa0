// Writers and readers under ASan + UBSan without libFuzzer: the recorder compiled into this binary
// saves records (every kind and dtype; multi-chunk tensors; each precision of the values) to
// argv[1], reads them back and compares bit for bit. Exit 0 when every round trip matched. Run by
// the `fuzz` ctest label next to the fuzzers (the GCC sanitizer build is much slower to make).
#include <cstdio>
#include <random>

#include "../tests/sample_record.hpp"
#include "burn/record/recorder.hpp"

extern "C" const BurnPluginDescriptor* burn_plugin_entry();

int main(int argc, char** argv) {
  using namespace burn;
  using namespace burn::record;
  if (argc != 2) {
    std::fprintf(stderr, "usage: sanitized-roundtrip-<recorder> FILE\n");
    return 2;
  }
  char err[256] = {};
  auto* o = static_cast<BurnRecorderObject*>(burn_plugin_entry()->create(err, sizeof err));
  if (!o) return 1;
  const Recorder& rec = *o->recorder;
  Record big;
  std::mt19937 g(5);
  std::normal_distribution<float> d(0.f, 1.f);
  std::vector<float> v(1'300'000);
  for (auto& x : v) x = d(g);
  big.set("w", TensorData::from_vector<float>(v, {1300, 1000}));
  big.set("h", TensorData::from_vector<float>(v, {1300, 1000}).convert(DType::F16));
  big.set("i", TensorData(Shape{700'000}, DType::I64));
  int failures = 0;
  const std::vector<Record> records = {test::sample_record(), big};
  for (const Record& r : records) {
    for (int level : {-1, 0, 3}) {
      const Record copy = r;
      rec.write(argv[1], copy, copy.metadata(), {.compression_level = level, .threads = 3});
      const Record back = rec.open(argv[1])->read_all();
      const std::string diff = test::first_difference(back, copy);
      if (!diff.empty()) {
        std::fprintf(stderr, "%s level %d: %s\n", rec.name().c_str(), level, diff.c_str());
        ++failures;
      }
    }
  }
  std::printf("%s: %s\n", rec.name().c_str(), failures ? "round trips differ" : "every round trip matched");
  delete o->recorder;
  delete o;
  return failures ? 1 : 0;
}
