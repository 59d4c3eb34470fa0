// Rust Burn's QFloat entries mapped onto burn-record's quantized group (qfloat.hpp): the scheme's serde value
// decoded field by field, the byte count checked against the shape, then the three parts located in the
// entry's bytes. Nothing is allocated for the tensors here.
#include "qfloat.hpp"

#include <algorithm>
#include <array>
#include <span>

#include "burn/record/file.hpp"
#include "burn/record/quant.hpp"

namespace burn::record::burn_format {

namespace {

// Variant names in the order of cubecl-common's enums (0.8 to 0.10), for writers that give indices.
constexpr std::array<std::string_view, 9> kValues{"Q8F", "E5M2", "E4M3", "Q4F", "E2M1", "Q2F", "Q8S", "Q4S", "Q2S"};
constexpr std::array<std::string_view, 5> kParams{"F32", "F16", "BF16", "UE8M0", "UE4M3"};
constexpr std::array<std::string_view, 3> kStores{"Native", "PackedNative", "PackedU32"};
constexpr std::array<std::string_view, 2> kLevels{"Tensor", "Block"};
constexpr std::array<std::string_view, 1> kModes{"Symmetric"};
constexpr std::array<std::string_view, 5> kSchemeFields{"value", "param", "store", "level", "mode"};
constexpr uint64_t kBlockDims = 5;   // cubecl-common's BlockSize::MAX_DIMS
constexpr uint64_t kParamAlign = 4;  // scales start at a multiple of 4 bytes (Burn's QPARAM_ALIGN)

class Decoder {
 public:
  Decoder(const std::string& file, std::string_view entry, const std::string& op)
      : file_(file), entry_(entry), op_(op) {}

  [[noreturn]] void fail(const std::string& problem) const {
    throw record_error(op_, file_, entry_, "QFloat " + problem);
  }
  [[noreturn]] void unsupported(const std::string& what) const {
    throw Unsupported(op_, file_ + ": entry '" + std::string(entry_) + "': quantized tensor (QFloat) " + what);
  }

  // A struct's field by name (a map) or position (an array).
  const SerdeValue& field(const SerdeValue& v, std::span<const std::string_view> names, size_t k,
                          const char* what) const {
    if (v.type == SerdeValue::Array) {
      if (v.items.size() != names.size())
        fail(std::string(what) + " has " + std::to_string(v.items.size()) + " fields, expected " +
             std::to_string(names.size()));
      return v.items[k];
    }
    if (v.type != SerdeValue::Map) fail(std::string(what) + " is neither a map nor an array");
    for (size_t i = 0; i + 1 < v.items.size(); i += 2)
      if (v.items[i].type == SerdeValue::Str && v.items[i].s == names[k]) return v.items[i + 1];
    // Burn after 0.21 reshaped the scheme (no `param`, no `level`).
    unsupported("scheme without the field '" + std::string(names[k]) +
                "': the layout of another Burn version (this reader follows Burn 0.19 to 0.21)");
  }

  // An enum variant: a name, an index, or {name: payload} / {index: payload}.
  template <size_t N>
  std::string_view variant(const SerdeValue& v, const std::array<std::string_view, N>& names, const char* what,
                           const SerdeValue** payload) const {
    *payload = nullptr;
    const SerdeValue* tag = &v;
    if (v.type == SerdeValue::Map) {
      if (v.items.size() != 2)
        fail(std::string(what) + " is a map of " + std::to_string(v.items.size() / 2) + " entries, not one variant");
      tag = &v.items[0];
      // {"Variant": nil} is a unit variant too.
      if (v.items[1].type != SerdeValue::Other) *payload = &v.items[1];
    }
    if (tag->type == SerdeValue::UInt) {
      if (tag->u >= N) fail(std::string(what) + " variant index " + std::to_string(tag->u) + " is unknown");
      return names[tag->u];
    }
    if (tag->type != SerdeValue::Str) fail(std::string(what) + " is not an enum variant");
    for (std::string_view n : names)
      if (tag->s == n) return n;
    // Burn 0.19 (cubecl-common 0.8) named the packed store U32.
    if (std::string_view(what) == "store" && tag->s == "U32") return "U32";
    unsupported(std::string(what) + " '" + tag->s + "' (not a variant of Burn 0.19 to 0.21)");
  }

  uint64_t uint(const SerdeValue& v, const char* what) const {
    if (v.type != SerdeValue::UInt) fail(std::string(what) + " is not a non-negative integer");
    return v.u;
  }

 private:
  const std::string& file_;
  std::string_view entry_;
  const std::string& op_;
};

}  // namespace

bool is_qfloat(const SerdeValue& dtype, const SerdeValue** scheme) {
  if (dtype.type != SerdeValue::Map || dtype.items.size() != 2) return false;
  const SerdeValue& key = dtype.items[0];
  // QFloat is the 15th variant of Burn 0.20/0.21's DType (index 14).
  if ((key.type == SerdeValue::Str && key.s == "QFloat") || (key.type == SerdeValue::UInt && key.u == 14)) {
    *scheme = &dtype.items[1];
    return true;
  }
  return false;
}

QFloatLayout qfloat_layout(const SerdeValue& scheme, const std::vector<uint64_t>& dims, uint64_t byte_len,
                           const std::string& file, std::string_view entry, const std::string& op) {
  const Decoder d(file, entry, op);
  const SerdeValue* payload = nullptr;
  const std::string_view value = d.variant(d.field(scheme, kSchemeFields, 0, "scheme"), kValues, "value", &payload);
  const std::string_view param = d.variant(d.field(scheme, kSchemeFields, 1, "scheme"), kParams, "param", &payload);
  const SerdeValue* store_arg = nullptr;
  const std::string_view store = d.variant(d.field(scheme, kSchemeFields, 2, "scheme"), kStores, "store", &store_arg);
  const SerdeValue* block = nullptr;
  const std::string_view level = d.variant(d.field(scheme, kSchemeFields, 3, "scheme"), kLevels, "level", &block);
  (void)d.variant(d.field(scheme, kSchemeFields, 4, "scheme"), kModes, "mode", &payload);

  QFloatLayout out;
  out.scheme = std::string(value) + " " + std::string(level) + " " + std::string(param) + " (store " +
               std::string(store) +
               (store_arg && store_arg->type == SerdeValue::UInt ? "(" + std::to_string(store_arg->u) + ")" : "") + ")";
  const std::string named = " in the scheme " + out.scheme;

  // Values: int8 and int4 (Burn's full-range Q8F/Q4F and symmetric-range Q8S/Q4S; both x = q * scale).
  const bool q4 = value == "Q4F" || value == "Q4S";
  if (value != "Q8F" && value != "Q8S" && !q4) d.unsupported("value type " + std::string(value) + named);
  const uint64_t scale_size = param == "F32" ? 4 : 2;
  if (param != "F32" && param != "F16" && param != "BF16") d.unsupported("scale type " + std::string(param) + named);
  if (store == "PackedNative") d.unsupported("store PackedNative" + named);
  if (store == "PackedU32") {
    if (!store_arg) d.fail("store PackedU32 has no packing dim");
    if (d.uint(*store_arg, "the packing dim") != 0)
      d.unsupported("packed along dim " + std::to_string(store_arg->u) +
                    " counted from the innermost (burn reads dim 0, the innermost)" + named);
  } else if (store_arg) {
    d.fail("store " + std::string(store) + " takes no argument");
  }
  const bool packed = store != "Native";
  if (q4 && !packed) d.unsupported("int4 values stored natively" + named);

  // The shape: burn's quantized tensors have rank 1 or more and at least one element.
  if (dims.empty()) d.unsupported("of rank 0" + named);
  EntrySizes sizes;
  if (entry_sizes(dims, 1, 1, &sizes) != SizeFault::None) d.fail("shape has more elements than fit in 64 bits");
  const uint64_t n = sizes.elements;
  if (n == 0) d.unsupported("with no elements" + named);
  const uint64_t last = dims.back();

  // Level: one scale, or one per block; Burn right-aligns a block's dims on the shape's.
  uint64_t block_size = 0, params = 1;
  if (level == "Block") {
    if (!block) d.fail("level Block has no block size");
    static constexpr std::array<std::string_view, 2> kBlockFields{"storage", "len"};
    const SerdeValue& storage = d.field(*block, kBlockFields, 0, "block size");
    const uint64_t len = d.uint(d.field(*block, kBlockFields, 1, "block size"), "the block size's len");
    if (storage.type != SerdeValue::Array || storage.items.size() != kBlockDims)
      d.fail("block size storage is not an array of " + std::to_string(kBlockDims));
    if (len > kBlockDims) d.fail("block size len " + std::to_string(len) + " exceeds " + std::to_string(kBlockDims));
    std::vector<uint64_t> b(dims.size(), 1);
    const uint64_t used = std::min<uint64_t>(len, dims.size());
    for (uint64_t k = 0; k < used; ++k) {
      const uint64_t v = d.uint(storage.items[k], "a block dim");
      if (v == 0 || v > 255) d.fail("block dim " + std::to_string(v) + " is not in [1, 255]");
      b[dims.size() - used + k] = v;
    }
    for (size_t k = 0; k + 1 < b.size(); ++k)
      if (b[k] != 1)
        d.unsupported("blocks over more than the last dim (block dim " + std::to_string(k) + " is " +
                      std::to_string(b[k]) + ")" + named);
    block_size = b.back();
    if (last % block_size != 0)
      d.unsupported("block size " + std::to_string(block_size) + " that does not divide the last dim " +
                    std::to_string(last) + named);
    params = n / block_size;
  }

  // Bytes: values (int8 bytes padded to the scales' alignment; int4 in whole u32 words), then the scales. No
  // overflow: n < 2^63.
  const uint64_t value_bytes =
      q4 ? (n / 8 + (n % 8 != 0)) * 4 : (n / kParamAlign + (n % kParamAlign != 0)) * kParamAlign;
  uint64_t scale_bytes = 0, total = 0;
  DType scale_dtype = param == "F32" ? DType::F32 : param == "F16" ? DType::F16 : DType::BF16;
  if (!checked_mul(params, scale_size, &scale_bytes) || !checked_add(value_bytes, scale_bytes, &total))
    d.fail("sizes overflow");
  if (byte_len != total) {
    uint64_t f32_total = 0;
    // Burn's CPU backends (ndarray, flex) write f32 scales whatever the param type.
    if (scale_size == 2 && checked_add(value_bytes, params * 4, &f32_total) && byte_len == f32_total) {
      scale_dtype = DType::F32;
      scale_bytes = params * 4;
    } else {
      d.fail("holds " + std::to_string(byte_len) + " bytes; " + std::to_string(n) + " values and " +
             std::to_string(params) + " scales" + named + " need " + std::to_string(total) + " (values " +
             std::to_string(value_bytes) + " with padding, scales " + std::to_string(scale_bytes) + ")");
    }
  }

  std::vector<int64_t> shape(sizes.dims.begin(), sizes.dims.end());
  std::vector<int64_t> header{kQuantRecordVersion,
                              q4 ? 1 : 0,  // value: q8, q4
                              0,           // mode: symmetric
                              level == "Block" ? 2 : 0,
                              0,  // axis
                              static_cast<int64_t>(block_size),
                              scale_dtype == DType::F32   ? 0
                              : scale_dtype == DType::F16 ? 1
                                                          : 2};
  header.insert(header.end(), shape.begin(), shape.end());
  const int64_t header_len = static_cast<int64_t>(header.size());
  out.parts.push_back({std::string(kQuantSchemeEntry), DType::I64, Shape{header_len}, 0,
                       static_cast<uint64_t>(header_len) * 8, std::move(header)});
  if (q4) {
    const uint64_t bytes = n / 2 + n % 2;  // the first ceil(n / 2) bytes of the little-endian words
    out.parts.push_back({"values", DType::U8, Shape{static_cast<int64_t>(bytes)}, 0, bytes, {}});
  } else {
    out.parts.push_back({"values", DType::I8, Shape(shape), 0, n, {}});
  }
  std::vector<int64_t> scales_shape{1};
  if (level == "Block") {
    scales_shape = shape;
    scales_shape.back() /= static_cast<int64_t>(block_size);
  }
  out.parts.push_back({"scales", scale_dtype, Shape(std::move(scales_shape)), value_bytes, scale_bytes, {}});
  return out;
}

}  // namespace burn::record::burn_format
