// fuzz-onnx: the onnx importer's record (protobuf parse, initializer names, dtypes, shapes and values).
#include "fuzz_open.hpp"
#include "initializers.hpp"

std::unique_ptr<burn::record::RecordReader> open_for_fuzz(const std::string& path) {
  return burn::onnx::open_initializers(path);
}
