// Quantized tensors in records. A QTensor (burn/tensor/quant.hpp) is stored as a group at its path holding plain
// tensors, which every recorder keeps as they are (burnpack holds tensors only, so the scheme is a tensor too):
//
//   <path>.quant_scheme  i64 [7 + rank]: version (1), value (0 q8, 1 q4), mode (0 symmetric, 1 affine),
//                        level (0 tensor, 1 channel, 2 block), axis, block size, scale dtype (0 f32, 1 f16,
//                        2 bf16), then the logical shape's dims
//   <path>.values        i8 of the logical shape (q8), or u8 [ceil(n / 2)] (q4, two per byte, low nibble first)
//   <path>.scales        the scheme's scales shape, in the scale dtype
//   <path>.zero_points   i32 of the scales shape (affine only)
//
// docs/decisions.md, "quantized tensors in records".
#pragma once

#include <string>
#include <string_view>

#include "burn/record/export.hpp"
#include "burn/record/record.hpp"
#include "burn/tensor/quant.hpp"

namespace burn::record {

inline constexpr std::string_view kQuantSchemeEntry = "quant_scheme";
// The layout version written as the first element of quant_scheme.
inline constexpr int64_t kQuantRecordVersion = 1;

// The group that stores `q` (its parts read back to the host).
BURN_RECORD_API Record quantized_record(const QTensor& q);

// Whether `v` is a group holding a quant_scheme tensor (a quantized tensor, checked or not).
BURN_RECORD_API bool is_quantized(const Value& v);

// A quantized entry's scheme and logical shape, checked against each other and against every part (kinds,
// dtypes, shapes, no missing or extra part) before anything is allocated: RecordError "[op] entry '<path>': ...".
struct QuantizedEntry {
  QuantScheme scheme;
  Shape shape;
  // "q8 symmetric per-channel(axis 1) scales f32 [4, 3]": for messages.
  std::string describe() const { return scheme.to_string() + " " + shape.to_string(); }
};
BURN_RECORD_API QuantizedEntry check_quantized(const Value& v, std::string_view path, const char* op);

// The QTensor of a quantized entry on `device` (check_quantized first). Scales saved in another float dtype (a
// save with a Precision policy, a load with float_dtype) are converted back to the scheme's.
BURN_RECORD_API QTensor read_quantized(const Value& v, std::string_view path, const Device& device, const char* op);

}  // namespace burn::record
