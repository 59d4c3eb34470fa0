// Writes a safetensors file (the specification's layout) for tests that need one made at run time.
#pragma once

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "burn/tensor/data.hpp"

namespace burn::test {

inline std::string safetensors_dtype(DType d) {
  switch (d) {
    case DType::F64: return "F64";
    case DType::F32: return "F32";
    case DType::F16: return "F16";
    case DType::BF16: return "BF16";
    case DType::I64: return "I64";
    case DType::I32: return "I32";
    case DType::I8: return "I8";
    case DType::U8: return "U8";
    case DType::Bool: return "BOOL";
  }
  return "?";
}

inline void write_safetensors(const std::string& path, const std::vector<std::pair<std::string, TensorData>>& tensors,
                              const std::vector<std::pair<std::string, std::string>>& metadata = {}) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) {
    header["__metadata__"] = nlohmann::ordered_json::object();
    for (const auto& [k, v] : metadata) header["__metadata__"][k] = v;
  }
  uint64_t at = 0;
  for (const auto& [name, t] : tensors) {
    const uint64_t n = t.bytes().size();
    header[name] = {
        {"dtype", safetensors_dtype(t.dtype())}, {"shape", t.shape().dims()}, {"data_offsets", {at, at + n}}};
    at += n;
  }
  std::string h = header.dump();
  h.append((8 - h.size() % 8) % 8, ' ');
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  uint64_t len = h.size();
  char le[8];
  for (int i = 0; i < 8; ++i) le[i] = static_cast<char>((len >> (8 * i)) & 0xff);
  out.write(le, 8);
  out.write(h.data(), static_cast<std::streamsize>(h.size()));
  for (const auto& [name, t] : tensors) {
    out.write(static_cast<const char*>(t.raw()), static_cast<std::streamsize>(t.bytes().size()));
  }
}

}  // namespace burn::test
