// What the NamedMpk and burnpack writers share: the ParamIds they give, the metadata keys, the Burn
// dtype names, the read-back check, and the list of what a record holds for them.
#include "burn_format_internal.hpp"

#include <charconv>
#include <cstring>

#include "burn/record/file.hpp"

namespace burn::record::burn_format {

uint64_t param_id_for(std::string_view path) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64
  for (const char c : path) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

void take_metadata(Metadata& m, std::string key, std::string value) {
  if (key == kFormatVersionKey) {
    uint32_t v = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec == std::errc() && end == value.data() + value.size()) {
      m.format_version = v;
      return;
    }
  } else if (key == kBurnVersionKey) {
    m.burn_version = std::move(value);
    return;
  } else if (key == kProducerKey) {
    m.producer = std::move(value);
    return;
  } else if (key == kDTypePolicyKey) {
    m.dtype_policy = std::move(value);
    return;
  }
  m.set(std::move(key), std::move(value));
}

std::vector<std::pair<std::string, std::string>> metadata_pairs(const Metadata& m, const std::string& file,
                                                                const char* op) {
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back(kFormatVersionKey, std::to_string(m.format_version));
  out.emplace_back(kBurnVersionKey, m.burn_version);
  out.emplace_back(kProducerKey, m.producer);
  out.emplace_back(kDTypePolicyKey, m.dtype_policy);
  for (const auto& [k, v] : m.extra) {
    if (k == kFormatVersionKey || k == kBurnVersionKey || k == kProducerKey || k == kDTypePolicyKey)
      throw record_error(op, file, "", "metadata key '" + k + "' is reserved for burn's own fields");
    if (k == kCompressionKey) continue;  // what the NamedMpk reader says of the file it read, not data
    out.emplace_back(k, v);
  }
  return out;
}

const char* burn_dtype_name(DType d) {
  switch (d) {
    case DType::F32: return "F32";
    case DType::F64: return "F64";
    case DType::F16: return "F16";
    case DType::BF16: return "BF16";
    case DType::I64: return "I64";
    case DType::I32: return "I32";
    case DType::I8: return "I8";
    case DType::U8: return "U8";
    case DType::Bool: return "Bool";
  }
  return "F32";
}

Contents collect(const Record& record, const std::string& file, const char* op) {
  Contents c;
  const std::string ids_prefix = std::string(kParamIds) + ".";
  for (const FlatEntry& e : record.flatten()) {
    const Value& v = *e.value;
    if (v.kind() == EntryKind::Tensor) {
      if (v.tensor().shape().rank() > kMaxRank) {  // every reader refuses it (these too)
        throw record_error(
            op, file, e.path,
            "rank " + std::to_string(v.tensor().shape().rank()) + " exceeds " + std::to_string(kMaxRank));
      }
      c.tensors.push_back({e.path, &v.tensor(), 0, false});
    } else if (e.path.starts_with(ids_prefix) && v.kind() == EntryKind::Int) {
      c.ids.emplace(e.path.substr(ids_prefix.size()), v.as_int());
    }
  }
  for (Contents::Tensor& t : c.tensors) {
    const auto it = c.ids.find(t.path);
    if (it == c.ids.end()) {
      t.id = param_id_for(t.path);
      continue;
    }
    t.id = static_cast<uint64_t>(it->second);  // the Int holds a u64's bits (burn-nn's ParamId)
    t.id_from_record = true;
    c.consumed.insert(it->first);
  }
  return c;
}

void verify_written(RecordReader& back, const Contents& c, const Record& record, bool with_values,
                    const std::string& file, const char* op) {
  auto fail = [&](const std::string& entry, const std::string& problem) {
    return record_error(op, file, entry, "read back after writing: " + problem);
  };
  for (const Contents::Tensor& t : c.tensors) {
    const EntryInfo* info = back.find(t.path);
    if (!info || info->kind != EntryKind::Tensor) throw fail(t.path, "the tensor is missing");
    if (info->dtype != t.data->dtype() || info->shape != t.data->shape())
      throw fail(t.path, "the dtype or shape differs");
    const TensorData got = back.read_tensor(t.path);
    const auto a = t.data->bytes(), b = got.bytes();
    if (a.size() != b.size() || (a.size() && std::memcmp(a.data(), b.data(), a.size()) != 0))
      throw fail(t.path, "the data differs");
    const Value id = back.read(std::string(kParamIds) + "." + t.path);
    if (id.kind() != EntryKind::Int || static_cast<uint64_t>(id.as_int()) != t.id)
      throw fail(t.path, "the param id differs");
  }
  if (!with_values) return;
  for (const FlatEntry& e : record.flatten()) {
    const EntryKind k = e.value->kind();
    if (k == EntryKind::Tensor || k == EntryKind::Group) continue;
    const EntryInfo* info = back.find(e.path);
    if (!info || !(back.read(e.path) == *e.value)) throw fail(e.path, "the value is missing or differs");
  }
}

}  // namespace burn::record::burn_format
