// What the .pt writer is checked with: a record of every dtype and kind torch.load(weights_only=True)
// reads, and torchvision's ResNet-18 built with burn (examples/models) with deterministic weights,
// exported through the PyTorch adapter, with its logits. Written by burn-import-pytorch-export-fixtures
// for check_pytorch_export.py (Python, at fixture time) and by pytorch_export_test.cpp (ctest).
#pragma once

#include <zlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "../../burn-record/tests/sample_record.hpp"
#include "burn/import/save.hpp"
#include "resnet.hpp"

namespace burn::import::test {

// sample_record() without its float scalar (torch 1.13's weights_only unpickler has no BINFLOAT).
inline record::Record export_sample() {
  record::Record r = record::test::sample_record();
  r.erase("optim.lr");
  return r;
}

// burn's ResNet-18 (10 classes) in f64: parameter k of named_params (burn's layout), element j:
// s = sin(0.011 j + 0.3 k + 0.1); running variances 1 + 0.5 s^2, norm scales (gamma) 1 + 0.5 s, the rest 0.05 s.
inline models::ResNet export_resnet() {
  const Device cpu = Device::get("cpu");
  models::ResNet net = nn::cast(models::ResNetConfig{.num_classes = 10}.init(cpu), DType::F64);
  auto params = nn::named_params(net);
  for (size_t k = 0; k < params.size(); ++k) {
    nn::ParamBase& p = *params[k].param;
    const int64_t n = p.shape().num_elements();
    const bool var = params[k].path.ends_with("running_var"), scale = params[k].path.ends_with("gamma");
    std::vector<double> v(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      const double s = std::sin(0.011 * j + 0.3 * static_cast<double>(k) + 0.1);
      v[j] = var ? 1 + 0.5 * s * s : scale ? 1 + 0.5 * s : 0.05 * s;
    }
    p.set_handle(api::from_data(cpu, TensorData::from_vector(v, p.shape()), Kind::Float));
  }
  return net;
}

// The fixed input of examples/models' ResNet tests, in f64.
inline Tensor<4> export_input() {
  const int64_t n = 2 * 3 * 64 * 64;
  std::vector<double> x(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) x[j] = std::sin(0.01 * j) + 0.5 * std::cos(0.37 * j);
  return Tensor<4>(api::from_data(Device::get("cpu"), TensorData::from_vector(x, Shape{2, 3, 64, 64}), Kind::Float));
}

// Size and zlib CRC-32 of a file: what check_pytorch_export.py recorded of the files it checked.
inline std::pair<uint64_t, uint32_t> size_and_crc(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> buf(1 << 20);
  uint64_t size = 0;
  uLong crc = crc32(0L, Z_NULL, 0);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const auto got = static_cast<uInt>(in.gcount());
    crc = crc32(crc, reinterpret_cast<const Bytef*>(buf.data()), got);
    size += got;
  }
  return {size, static_cast<uint32_t>(crc)};
}

// Writes DIR/sample.pt, DIR/resnet18.pt and DIR/resnet18_logits.json (burn's logits on export_input()).
inline void write_export_fixtures(const std::filesystem::path& dir) {
  ::setenv("TZ", "UTC", 1);  // zip entries store local time: the bytes must not depend on the machine
  ::tzset();
  std::filesystem::create_directories(dir);
  record::save((dir / "sample.pt").string(), export_sample());
  const models::ResNet net = export_resnet();
  save_module(net, (dir / "resnet18.pt").string(), {.adapter = Adapter::PyTorch});
  const std::vector<double> logits = net.forward(export_input()).into_data().to_f64_vec();
  std::ofstream((dir / "resnet18_logits.json").string())
      << nlohmann::json({{"shape", {2, 10}}, {"values", logits}}).dump();
}

}  // namespace burn::import::test
