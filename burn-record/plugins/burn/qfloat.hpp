// Rust Burn's quantized tensors (TensorData of dtype QFloat(QuantScheme)) in NamedMpk and burnpack, read as
// burn-record's own quantized group (burn/record/quant.hpp): `<entry>.quant_scheme`, `.values`, `.scales`.
// The layout followed (Burn 0.19 to 0.21, cubecl-common 0.8 to 0.10), described in burn-record/README.md:
// the values (int8: one byte each, or packed four per little-endian u32; int4: eight per u32, the first in
// the low bits), zero bytes up to a multiple of 4, then one scale per tensor or per block in the scheme's
// param type (f32, f16 or bf16; Burn's CPU backends write f32 whatever the param type says).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "burn/tensor/dtype.hpp"
#include "burn/tensor/shape.hpp"

namespace burn::record::burn_format {

// The serde value of a QuantScheme, whatever tree the format's parser made (MessagePack or CBOR).
struct SerdeValue {
  enum Type : uint8_t { Str, UInt, Map, Array, Other } type = Other;
  std::string s;                  // Str
  uint64_t u = 0;                 // UInt
  std::vector<SerdeValue> items;  // Array: the elements; Map: key, value, key, value...
};

// One tensor of the group: its bytes [offset, offset + bytes) within the entry's data, or `header` (the
// quant_scheme tensor, made here).
struct QFloatPart {
  std::string name;  // quant_scheme, values, scales
  DType dtype = DType::F32;
  Shape shape;
  uint64_t offset = 0, bytes = 0;
  std::vector<int64_t> header;
};

struct QFloatLayout {
  std::vector<QFloatPart> parts;  // quant_scheme, values, scales
  std::string scheme;             // "Q8S tensor F32 (PackedU32(0))": for messages
};

// Whether a dtype value is {"QFloat": scheme}; its scheme in *scheme.
bool is_qfloat(const SerdeValue& dtype, const SerdeValue** scheme);

// The group for a QFloat entry of `dims` holding `byte_len` bytes, every field and size checked (overflow
// included) before anything is allocated: RecordError naming the entry for a corrupt scheme or a byte count
// that does not fit, Unsupported naming the entry and the scheme for what burn has no counterpart for
// (float8/int2 values, ue8m0/ue4m3 scales, blocks over more than the last dim, partial blocks, packing along
// another dim) and for a scheme of another Burn version.
QFloatLayout qfloat_layout(const SerdeValue& scheme, const std::vector<uint64_t>& dims, uint64_t byte_len,
                           const std::string& file, std::string_view entry, const std::string& op);

}  // namespace burn::record::burn_format
