// The .pt writer and the pytorch reader under ASan + UBSan without libFuzzer (as burn-record/fuzz's
// sanitized-roundtrip-<recorder>): records of every kind and dtype, an empty one and one with large
// tensors are written to argv[1] and read back bit for bit. Exit 0 when every round trip matched.
#include <cstdio>
#include <random>

#include "../../burn-record/tests/sample_record.hpp"
#include "reader.hpp"
#include "writer.hpp"

int main(int argc, char** argv) {
  using namespace burn;
  using namespace burn::record;
  if (argc != 2) {
    std::fprintf(stderr, "usage: sanitized-roundtrip-pytorch FILE.pt\n");
    return 2;
  }
  Record big;
  std::mt19937 g(5);
  std::normal_distribution<float> d(0.f, 1.f);
  std::vector<float> v(1'300'000);
  for (auto& x : v) x = d(g);
  big.set("w", TensorData::from_vector<float>(v, {1300, 1000}));
  big.set("h", TensorData::from_vector<float>(v, {1300, 1000}).convert(DType::F16));
  big.set("i", TensorData(Shape{700'000}, DType::I64));
  int failures = 0;
  for (const Record& r : {test::sample_record(), big, Record()}) {
    import::pytorch::write_file(argv[1], r);
    const Record back = import::pytorch::open_file(argv[1], "")->read_all();
    const std::string diff = test::first_difference(back, r);
    if (!diff.empty() || back.flatten().size() != r.flatten().size()) {
      std::fprintf(stderr, "pytorch: %s\n", diff.empty() ? "entry counts differ" : diff.c_str());
      ++failures;
    }
  }
  std::printf("pytorch: %s\n", failures ? "round trips differ" : "every round trip matched");
  return failures ? 1 : 0;
}
