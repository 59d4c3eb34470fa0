// Reading ONNX protobuf files into burn-tensor's data types: no device, no engine. Used by the engine,
// the importer's record of initializers, and the importer's fuzzer.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>

#include "burn/tensor/data.hpp"
#include "burn/tensor/error.hpp"

namespace google::protobuf {
class MessageLite;
}

namespace burn::onnx {

// A whole file's bytes; RecordError naming the file when it cannot be opened.
std::string read_file(const std::string& path);
// Parses `bytes` (all of them) into `m`; RecordError naming `path` and `what` otherwise. Nesting is
// bounded (subgraphs) so a hostile file cannot exhaust the stack.
void parse_message(google::protobuf::MessageLite& m, const std::string& bytes, const std::string& path,
                   const char* what);
// ONNX element type -> burn DType (widening the types burn lacks); Unsupported for strings etc.
DType dtype_from_onnx(int32_t elem_type, const std::string& where);
// The tensor's values, its stored count checked against its shape before anything is allocated.
TensorData tensor_from_proto(const ::onnx::TensorProto& t, const std::string& where);
// Reads and parses a model file; RecordError naming the file when it is not an ONNX model.
void parse_model_file(const std::string& path, ::onnx::ModelProto& out);

}  // namespace burn::onnx
