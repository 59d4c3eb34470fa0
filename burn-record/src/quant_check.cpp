// The reader's side of quantized tensors in records (burn/record/quant.hpp): the scheme tensor, the logical shape
// and every part checked on the host before a device is asked for anything. No device code: the recorder
// fuzzers compile it in.
#include <algorithm>
#include <string>
#include <vector>

#include "burn/tensor/error.hpp"
#include "quant_layout.hpp"

namespace burn::record {

namespace {

using namespace quant_layout;

[[noreturn]] void fail(const char* op, std::string_view path, const std::string& problem) {
  throw RecordError(op, "entry '" + std::string(path) + "': " + problem);
}

// The tensor part `name` of the group, or nullptr when absent; RecordError when it is not a tensor.
const TensorData* part(const Record& g, std::string_view name, std::string_view path, const char* op) {
  const Value* v = g.find(name);
  if (!v) return nullptr;
  if (v->kind() != EntryKind::Tensor)
    fail(op, path,
         "the quantized tensor's " + std::string(name) + " is a " + std::string(entry_kind_name(v->kind())) +
             ", not a tensor");
  return &v->tensor();
}

void expect(const TensorData& t, DType dtype, const Shape& shape, std::string_view name, std::string_view path,
            const std::string& scheme, const char* op) {
  if (t.dtype() != dtype || t.shape() != shape)
    fail(op, path,
         std::string(name) + " is " + std::string(dtype_name(t.dtype())) + " " + t.shape().to_string() + "; " + scheme +
             " needs " + std::string(dtype_name(dtype)) + " " + shape.to_string());
}

}  // namespace

bool is_quantized(const Value& v) {
  if (v.kind() != EntryKind::Group) return false;
  // A tensor: Burn's formats give `_param_ids.<path>.quant_scheme` an Int id, which is no quantized tensor.
  const Value* scheme = v.group().find(kQuantSchemeEntry);
  return scheme && scheme->kind() == EntryKind::Tensor;
}

QuantizedEntry check_quantized(const Value& v, std::string_view path, const char* op) {
  if (v.kind() != EntryKind::Group)
    fail(op, path, "a " + std::string(entry_kind_name(v.kind())) + ", not a quantized tensor");
  const Record& g = v.group();
  for (const Entry& e : g.entries())
    if (std::find(kParts.begin(), kParts.end(), e.name) == kParts.end())
      fail(op, path, "the quantized tensor has an unknown part '" + e.name + "'");
  const TensorData* head = part(g, kQuantSchemeEntry, path, op);
  if (!head) fail(op, path, "the quantized tensor has no quant_scheme");
  if (head->dtype() != DType::I64 || head->shape().rank() != 1 || head->num_elements() < int64_t(kSchemeFields) + 1 ||
      head->num_elements() > int64_t(kSchemeFields + kMaxRank))
    fail(op, path,
         "quant_scheme is " + std::string(dtype_name(head->dtype())) + " " + head->shape().to_string() +
             "; expected i64 of 8 to " + std::to_string(kSchemeFields + kMaxRank) + " elements (7 fields, the dims)");
  const std::vector<int64_t> h = head->to_vec<int64_t>();
  if (h[0] != kQuantRecordVersion)
    throw Unsupported(op, "entry '" + std::string(path) + "': quantized tensor layout version " + std::to_string(h[0]) +
                              " (this burn-record reads " + std::to_string(kQuantRecordVersion) + ")");
  auto field = [&](size_t i, const char* name, int64_t count) {
    if (h[i] < 0 || h[i] >= count)
      fail(op, path, "quant_scheme's " + std::string(name) + " code " + std::to_string(h[i]) + " is unknown");
  };
  field(1, "value type", 2);
  field(2, "mode", 2);
  field(3, "level", 3);
  field(6, "scale dtype", 3);
  QuantizedEntry out;
  QuantScheme& s = out.scheme;
  s.value = static_cast<QuantValue>(h[1]);
  s.mode = static_cast<QuantMode>(h[2]);
  s.level = static_cast<QuantLevel>(h[3]);
  s.axis = h[4];
  s.block_size = h[5];
  s.scale_dtype = kScaleDTypes[static_cast<size_t>(h[6])];
  out.shape = Shape(std::vector<int64_t>(h.begin() + kSchemeFields, h.end()));
  // The scheme against the shape: dims, element count overflow, axis, block size (ValueError/ShapeError).
  try {
    for (int64_t d : out.shape)
      if (d < 0) throw ShapeError(op, "the shape " + out.shape.to_string() + " has a negative dim");
    s.validate(out.shape, op);
  } catch (const RecordError&) {
    throw;
  } catch (const Error& e) {
    // The check's own "[op] " prefix dropped: the message names this load's op once.
    std::string_view m = e.what();
    const std::string prefix = "[" + e.op() + "] ";
    if (m.substr(0, prefix.size()) == prefix) m.remove_prefix(prefix.size());
    fail(op, path, std::string(m));
  }
  const std::string scheme = "the scheme " + out.describe();
  const int64_t n = out.shape.num_elements();
  const TensorData* values = part(g, "values", path, op);
  const TensorData* scales = part(g, "scales", path, op);
  const TensorData* zps = part(g, "zero_points", path, op);
  if (!values || !scales) fail(op, path, "the quantized tensor lacks its " + std::string(values ? "scales" : "values"));
  if (s.value == QuantValue::Q8)
    expect(*values, DType::I8, out.shape, "values", path, scheme, op);
  else
    expect(*values, DType::U8, Shape{n / 2 + n % 2}, "values", path, scheme, op);
  const Shape ss = s.scales_shape(out.shape);
  // A save with a precision policy or a load with float_dtype may have converted the scales: any float is read.
  if (!is_float(scales->dtype()) || scales->shape() != ss)
    fail(op, path,
         "scales is " + std::string(dtype_name(scales->dtype())) + " " + scales->shape().to_string() + "; " + scheme +
             " needs floats " + ss.to_string());
  if (s.mode == QuantMode::Affine) {
    if (!zps) fail(op, path, scheme + " is affine and needs zero_points");
    expect(*zps, DType::I32, ss, "zero_points", path, scheme, op);
  } else if (zps) {
    fail(op, path, scheme + " is symmetric and has no zero_points");
  }
  return out;
}

}  // namespace burn::record
