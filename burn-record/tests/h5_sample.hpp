// The record behind the committed h5py/h5dump expectations (fixtures/hdf5): small, deterministic,
// one entry of each kind and dtype. Changing it means regenerating the fixtures (make_fixtures.py).
#pragma once

#include "burn/record/record.hpp"

namespace burn::record::test {

inline Record h5_sample() {
  Record r;
  r.set("encoder.layers.0.weight",
        TensorData::from_vector<float>({0.5f, -1.25f, 3.0f, 1e-8f, -0.0f, 65504.5f}, {2, 3}));
  r.set("encoder.layers.0.bias", TensorData::from_vector<double>({0.1, -2.5e-300}, {2}));
  r.set("encoder.layers.0.half", TensorData::from_vector<f16>({{0x3c00}, {0xc100}, {0x7bff}, {0x0001}}, {2, 2}));
  r.set("encoder.layers.0.brain", TensorData::from_vector<bf16>({{0x3f80}, {0xc0a0}, {0x7f7f}}, {3}));
  r.set("encoder.steps", TensorData::from_vector<int64_t>({-9007199254740993, 0, 42}, {3}));
  r.set("encoder.index", TensorData::from_vector<int32_t>({-7, 2147483647}, {1, 2}));
  r.set("encoder.small", TensorData::from_vector<int8_t>({-128, 127}, {2}));
  r.set("encoder.pixels", TensorData::from_vector<uint8_t>({0, 200, 255}, {3}));
  r.set("encoder.mask", TensorData::from_vector<bool>({true, false, true}, {3}));
  r.set("optim.step", Value(int64_t{1200}));
  r.set("optim.lr", Value(0.001));
  r.set("optim.amsgrad", Value(false));
  r.set("optim.name", Value(std::string("adam")));
  r.set("empty", Value());
  r.metadata().producer = "h5 fixture";
  r.metadata().set("epoch", "7");
  return r;
}

}  // namespace burn::record::test
