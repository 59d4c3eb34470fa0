// The `onnx` importer's record: a model file's initializers, each read on its own.
#pragma once

#include <memory>
#include <string>

#include "burn/record/recorder.hpp"

namespace burn::onnx {

// Parses the model and lists its initializers (validated names, dtypes, shapes); RecordError naming the
// file and the initializer for anything malformed.
std::unique_ptr<record::RecordReader> open_initializers(const std::string& path);

}  // namespace burn::onnx
