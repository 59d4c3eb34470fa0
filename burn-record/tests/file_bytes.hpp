// A whole file as bytes, and bytes as a whole file: for tests that craft, damage or compare files.
#pragma once

#include <fstream>
#include <iterator>
#include <string>

namespace burn::record::test {

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace burn::record::test
