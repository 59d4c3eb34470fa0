// fuzz-safetensors: the safetensors reader.
#include "fuzz_open.hpp"
#include "safetensors_format.hpp"

std::unique_ptr<burn::record::RecordReader> open_for_fuzz(const std::string& path) {
  return burn::record::safetensors::open_file(path, "import.safetensors");
}
