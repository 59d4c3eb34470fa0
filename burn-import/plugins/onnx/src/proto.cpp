// TensorProto and ModelProto reading, apart from the engine so that the importer's record path (and
// its fuzzer) needs only burn-tensor's data types and protobuf, no device.
#include "proto.hpp"

#include <google/protobuf/io/coded_stream.h>

#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

namespace burn::onnx {

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw RecordError("onnx", "cannot open '" + path + "'");
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void parse_message(google::protobuf::MessageLite& m, const std::string& bytes, const std::string& path,
                   const char* what) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  in.SetRecursionLimit(64);  // nested subgraphs; protobuf's default 100 is also bounded
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) || !m.ParseFromCodedStream(&in) ||
      !in.ConsumedEntireMessage())
    throw RecordError("onnx", "'" + path + "' is not a valid ONNX " + what + " (protobuf parse failed)");
}

DType dtype_from_onnx(int32_t t, const std::string& where) {
  using TP = ::onnx::TensorProto;
  switch (t) {
    case TP::FLOAT: return DType::F32;
    case TP::DOUBLE: return DType::F64;
    case TP::FLOAT16: return DType::F16;
    case TP::BFLOAT16: return DType::BF16;
    case TP::INT64: return DType::I64;
    case TP::INT32: return DType::I32;
    case TP::INT16: return DType::I32;
    case TP::INT8: return DType::I8;
    case TP::UINT8: return DType::U8;
    case TP::UINT16: return DType::I32;
    case TP::UINT32: return DType::I64;
    case TP::UINT64: return DType::I64;
    case TP::BOOL: return DType::Bool;
    default: break;
  }
  // The float8 (opset 19) and 4-bit (opset 21) types are newer than Debian's onnx.proto: named here.
  static const char* const kNewer[] = {"FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ",
                                       "UINT4",        "INT4",           "FLOAT4E2M1"};
  std::string name = TP::DataType_IsValid(t) ? TP::DataType_Name(static_cast<TP::DataType>(t))
                     : t >= 17 && t <= 23    ? kNewer[t - 17]
                                             : "?";
  throw Unsupported("onnx", where + ": element type " + name + " (" + std::to_string(t) + ") has no burn dtype");
}

TensorData tensor_from_proto(const ::onnx::TensorProto& t, const std::string& where) {
  using TP = ::onnx::TensorProto;
  if (t.data_location() == TP::EXTERNAL)
    throw Unsupported("onnx", where + ": tensor '" + t.name() + "' stores its data in an external file");
  DType dt = dtype_from_onnx(t.data_type(), where);
  std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
  for (int64_t d : dims)
    if (d < 0) throw RecordError("onnx", where + ": tensor '" + t.name() + "' has a negative dim");
  Shape shape(dims);
  int64_t n = checked_num_elements(shape, "onnx");
  const int32_t et = t.data_type();
  auto bad_count = [&](size_t got) {
    throw RecordError("onnx", where + ": tensor '" + t.name() + "' of shape " + shape.to_string() + " holds " +
                                  std::to_string(got) + " values, expected " + std::to_string(n));
  };
  // Widened types: the raw bytes have the source width.
  size_t src_size = et == TP::INT16 || et == TP::UINT16 ? 2 : et == TP::UINT32 ? 4 : dtype_size(dt);
  // The stored count is checked against the shape before anything is allocated for it.
  size_t stored = 0;
  if (t.has_raw_data()) {
    if (t.raw_data().size() % src_size != 0) bad_count(t.raw_data().size() / src_size);
    stored = t.raw_data().size() / src_size;
  } else {
    switch (et) {
      case TP::FLOAT: stored = static_cast<size_t>(t.float_data_size()); break;
      case TP::DOUBLE: stored = static_cast<size_t>(t.double_data_size()); break;
      case TP::INT64: stored = static_cast<size_t>(t.int64_data_size()); break;
      case TP::UINT32:
      case TP::UINT64: stored = static_cast<size_t>(t.uint64_data_size()); break;
      default: stored = static_cast<size_t>(t.int32_data_size()); break;
    }
  }
  if (stored != static_cast<size_t>(n)) bad_count(stored);
  TensorData out = TensorData::uninitialized(shape, dt);
  auto* dst = static_cast<uint8_t*>(out.raw());
  if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    if (raw.size() / src_size != static_cast<size_t>(n) || raw.size() % src_size != 0) bad_count(raw.size() / src_size);
    const auto* src = reinterpret_cast<const uint8_t*>(raw.data());
    if (et == TP::INT16 || et == TP::UINT16 || et == TP::UINT32) {
      for (int64_t i = 0; i < n; ++i) {
        if (et == TP::INT16) {
          int16_t v;
          std::memcpy(&v, src + 2 * i, 2);
          int32_t w = v;
          std::memcpy(dst + 4 * i, &w, 4);
        } else if (et == TP::UINT16) {
          uint16_t v;
          std::memcpy(&v, src + 2 * i, 2);
          int32_t w = v;
          std::memcpy(dst + 4 * i, &w, 4);
        } else {
          uint32_t v;
          std::memcpy(&v, src + 4 * i, 4);
          int64_t w = v;
          std::memcpy(dst + 8 * i, &w, 8);
        }
      }
    } else if (n > 0) {
      std::memcpy(dst, src, raw.size());
    }
    if (dt == DType::Bool)
      for (int64_t i = 0; i < n; ++i) dst[i] = dst[i] != 0;
    return out;
  }
  auto put = [&](auto values, auto convert) {
    if (static_cast<int64_t>(values.size()) != n) bad_count(values.size());
    for (int64_t i = 0; i < n; ++i) convert(i, values[static_cast<int>(i)]);
  };
  switch (et) {
    case TP::FLOAT: put(t.float_data(), [&](int64_t i, float v) { std::memcpy(dst + 4 * i, &v, 4); }); break;
    case TP::DOUBLE: put(t.double_data(), [&](int64_t i, double v) { std::memcpy(dst + 8 * i, &v, 8); }); break;
    case TP::INT64: put(t.int64_data(), [&](int64_t i, int64_t v) { std::memcpy(dst + 8 * i, &v, 8); }); break;
    case TP::UINT32:
    case TP::UINT64:
      put(t.uint64_data(), [&](int64_t i, uint64_t v) {
        int64_t w = static_cast<int64_t>(v);
        std::memcpy(dst + 8 * i, &w, 8);
      });
      break;
    case TP::INT32:
    case TP::INT16:
    case TP::UINT16: put(t.int32_data(), [&](int64_t i, int32_t v) { std::memcpy(dst + 4 * i, &v, 4); }); break;
    case TP::INT8:
      put(t.int32_data(), [&](int64_t i, int32_t v) { dst[i] = static_cast<uint8_t>(static_cast<int8_t>(v)); });
      break;
    case TP::UINT8: put(t.int32_data(), [&](int64_t i, int32_t v) { dst[i] = static_cast<uint8_t>(v); }); break;
    case TP::BOOL: put(t.int32_data(), [&](int64_t i, int32_t v) { dst[i] = v != 0; }); break;
    case TP::FLOAT16:
    case TP::BFLOAT16:
      put(t.int32_data(), [&](int64_t i, int32_t v) {
        uint16_t b = static_cast<uint16_t>(v);
        std::memcpy(dst + 2 * i, &b, 2);
      });
      break;
    default: throw Unsupported("onnx", where + ": tensor '" + t.name() + "' element type");
  }
  return out;
}

void parse_model_file(const std::string& path, ::onnx::ModelProto& out) {
  parse_message(out, read_file(path), path, "model");
}

}  // namespace burn::onnx
