// Rust Burn's writers and readers under ASan + UBSan without libFuzzer: NamedMpk (plain, gzip at
// three levels) and burnpack written from the shared sample records (every kind and dtype; multi-MiB
// tensors), each write checked by the writer's own read-back (names, dtypes, shapes, bytes, ids,
// values), then read again in full. Exit 0 when every one passed. The recorders' generic
// sanitized-roundtrip does not fit: these formats add ids and drop empty groups.
#include <cstdio>
#include <random>

#include "../tests/burn_sample.hpp"
#include "burn_format.hpp"

int main(int argc, char** argv) {
  using namespace burn;
  using namespace burn::record;
  if (argc != 2) {
    std::fprintf(stderr, "usage: sanitized-roundtrip-burn FILE\n");
    return 2;
  }
  const Record big = [] {  // multi-MiB tensors, one with an id of 2^64 - 7
    Record r;
    std::mt19937 g(5);
    std::normal_distribution<float> d(0.f, 1.f);
    std::vector<float> v(1'300'000);
    for (auto& x : v) x = d(g);
    r.set("w", TensorData::from_vector<float>(v, {1300, 1000}));
    r.set("h", TensorData::from_vector<float>(v, {1300, 1000}).convert(DType::F16));
    r.set("i", TensorData(Shape{700'000}, DType::I64));
    r.set("_param_ids.w", Value(int64_t{-7}));
    return r;
  }();
  const Record mpk = test::burn_mpk_sample(), bpk = test::burn_bpk_sample();
  int failures = 0;
  const std::string path = argv[1];
  auto run = [&](const char* what, const auto& write, auto open) {
    try {
      write();
      (void)open(path)->read_all();
    } catch (const Error& e) {
      std::fprintf(stderr, "%s: %s\n", what, e.what());
      ++failures;
    }
  };
  for (const Record* r : {&mpk, &big}) {
    run(
        "namedmpk", [&] { burn_format::write_mpk(path, *r, r->metadata(), false, -1); },
        [](const std::string& p) { return burn_format::open_mpk(p); });
    for (int level : {-1, 0, 9}) {
      run(
          "namedmpkgz", [&] { burn_format::write_mpk(path, *r, r->metadata(), true, level); },
          [](const std::string& p) { return burn_format::open_mpk(p); });
    }
  }
  for (const Record* r : {&bpk, &big}) {
    run(
        "burnpack", [&] { burn_format::write_bpk(path, *r, r->metadata()); },
        [](const std::string& p) { return burn_format::open_bpk(p); });
  }
  std::printf("burn: %s\n", failures ? "round trips differ" : "every round trip matched");
  return failures ? 1 : 0;
}
