// Saves a record by the extension the third-party `text` recorder claims, loads it back and checks
// every value; prints "text recorder round trip: ok" on success.
#include <cstdio>
#include <iostream>

#include <burn/record/recorder.hpp>

int main(int argc, char** argv) {
  using namespace burn;
  using namespace burn::record;
  const std::string path = argc > 1 ? argv[1] : "roundtrip.txtrec";
  Record r;
  r.set("encoder.layers.0.weight", TensorData::from_vector<float>({1.5f, -2.0f, 0.25f, 1e-3f}, {2, 2}));
  r.set("encoder.layers.0.steps", TensorData::from_vector<int64_t>({-7, 1LL << 40}, {2}));
  r.set("epoch", Value(int64_t{12}));
  save(path, r);
  if (recorder_for_path(path)->name() != "text") {
    std::cerr << "the .txtrec extension did not pick the text recorder\n";
    return 1;
  }
  const Record back = load(path);
  const auto w = back.at("encoder.layers.0.weight").tensor().to_vec<float>();
  const auto s = back.at("encoder.layers.0.steps").tensor().to_vec<int64_t>();
  if (w != std::vector<float>{1.5f, -2.0f, 0.25f, 1e-3f} || s != std::vector<int64_t>{-7, 1LL << 40} ||
      back.at("epoch").as_int() != 12 || back.at("encoder.layers.0.weight").tensor().shape() != Shape{2, 2}) {
    std::cerr << "values differ after the round trip\n";
    return 1;
  }
  std::cout << "text recorder round trip: ok\n";
  std::remove(path.c_str());
  return 0;
}
