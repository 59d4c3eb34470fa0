// fuzz-safetensors: the safetensors reader.
#include "fuzz_open.hpp"
#include "safetensors_reader.hpp"

std::unique_ptr<burn::record::RecordReader> open_for_fuzz(const std::string& path) {
  return burn::import::safetensors::open_file(path);
}
