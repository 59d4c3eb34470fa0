// QuantScheme: the integer ranges of each value type and mode, the shape of a scheme's scales, and the checks
// that refuse a combination a tensor cannot take (quant.hpp).
#include <string>

#include "burn/tensor/error.hpp"
#include "burn/tensor/quant.hpp"

namespace burn {

namespace {
const char* value_name(QuantValue v) { return v == QuantValue::Q8 ? "q8" : "q4"; }
const char* mode_name(QuantMode m) { return m == QuantMode::Symmetric ? "symmetric" : "affine"; }
}  // namespace

int64_t QuantScheme::qmin() const {
  const int64_t half = value == QuantValue::Q8 ? 128 : 8;
  return mode == QuantMode::Symmetric ? -(half - 1) : -half;
}

int64_t QuantScheme::qmax() const { return value == QuantValue::Q8 ? 127 : 7; }

std::string QuantScheme::to_string() const {
  std::string s = std::string(value_name(value)) + " " + mode_name(mode) + " ";
  switch (level) {
    case QuantLevel::Tensor: s += "per-tensor"; break;
    case QuantLevel::Channel: s += "per-channel(axis " + std::to_string(axis) + ")"; break;
    case QuantLevel::Block: s += "per-block(" + std::to_string(block_size) + ")"; break;
  }
  return s + " scales " + std::string(dtype_name(scale_dtype));
}

void QuantScheme::validate(const Shape& shape, const char* op) const {
  const std::string what = "scheme " + to_string() + ", tensor " + shape.to_string();
  if (value != QuantValue::Q8 && value != QuantValue::Q4)
    throw ValueError(op, "unknown value type " + std::to_string(static_cast<int>(value)));
  if (mode != QuantMode::Symmetric && mode != QuantMode::Affine)
    throw ValueError(op, "unknown mode " + std::to_string(static_cast<int>(mode)));
  if (scale_dtype != DType::F32 && scale_dtype != DType::F16 && scale_dtype != DType::BF16)
    throw ValueError(op, what + ": scales must be f32, f16 or bf16");
  if (shape.rank() == 0) throw ValueError(op, what + ": a quantized tensor has rank 1 or more");
  if (checked_num_elements(shape, op) == 0) throw ValueError(op, what + ": the tensor is empty");
  switch (level) {
    case QuantLevel::Tensor: return;
    case QuantLevel::Channel: {
      const auto r = static_cast<int64_t>(shape.rank());
      if (axis < -r || axis >= r)
        throw ValueError(op,
                         what + ": axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(r));
      return;
    }
    case QuantLevel::Block: {
      if (block_size < 1) throw ValueError(op, what + ": the block size must be 1 or more");
      const int64_t last = shape[shape.rank() - 1];
      if (last % block_size != 0)
        throw ValueError(op, what + ": the block size " + std::to_string(block_size) +
                                 " does not divide the last dim " + std::to_string(last));
      return;
    }
  }
  throw ValueError(op, "unknown level " + std::to_string(static_cast<int>(level)));
}

Shape QuantScheme::scales_shape(const Shape& shape) const {
  switch (level) {
    case QuantLevel::Tensor: return Shape{1};
    case QuantLevel::Channel: return Shape{shape[normalize_dim(axis, shape.rank(), "QuantScheme")]};
    case QuantLevel::Block: {
      Shape s = shape;
      s[s.rank() - 1] /= block_size;
      return s;
    }
  }
  return Shape{1};
}

}  // namespace burn
