// The checkpoint of one generation for the SIGKILL test: every value depends on the generation, so a
// file that mixes two saves (or holds half of one) cannot pass for a complete one.
#pragma once

#include <cstdint>
#include <string>

#include "burn/record/record.hpp"

namespace burn::record::test {

inline Record victim_record(int generation, int megabytes) {
  Record r;
  const size_t per_tensor = 256 * 1024;  // 1 MiB of f32
  for (int t = 0; t < megabytes; ++t) {
    std::vector<float> v(per_tensor);
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<float>(generation * 100000 + t) + static_cast<float>(i % 97) / 128;
    r.set("layers." + std::to_string(t) + ".weight", TensorData::from_vector<float>(v, {512, 512}));
  }
  r.set("generation", Value(int64_t{generation}));
  r.set("note", Value("generation " + std::to_string(generation)));
  return r;
}

}  // namespace burn::record::test
