// Parsing and validating a safetensors file, then reading one entry at a time; and writing one.
#include "safetensors_format.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "burn/record/entry_index.hpp"
#include "burn/record/file.hpp"

namespace burn::record::safetensors {

static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian");

namespace {

// A file dtype: its element size and the burn dtype it is read as (16/32-bit ints burn lacks are
// widened without loss: I16 and U16 to I32, U32 to I64).
struct FileDType {
  const char* name;
  size_t size;
  DType as;
};

constexpr FileDType kDTypes[] = {
    {"F64", 8, DType::F64}, {"F32", 4, DType::F32},   {"F16", 2, DType::F16}, {"BF16", 2, DType::BF16},
    {"I64", 8, DType::I64}, {"I32", 4, DType::I32},   {"I16", 2, DType::I32}, {"I8", 1, DType::I8},
    {"U8", 1, DType::U8},   {"BOOL", 1, DType::Bool}, {"U16", 2, DType::I32}, {"U32", 4, DType::I64},
};

// Where an entry's value is: a tensor's bytes in the buffer, or a value from kValuesKey.
struct Slot {
  const FileDType* dtype;  // nullptr: values_[begin]
  uint64_t begin, end;     // relative to the buffer
};

class SafetensorsReader final : public RecordReader {
 public:
  SafetensorsReader(std::string path, std::string op)
      : op_(std::move(op)), file_(path, op_), path_(std::move(path)), index_(op_, path_) {
    const uint64_t size = file_.size();
    if (size < 8) {
      throw fail("",
                 "the file is " + std::to_string(size) + " bytes, shorter than the 8-byte header length (truncated?)");
    }
    uint8_t len[8];
    file_.read_at(len, 8, 0, "");
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | len[i];
    if (n > size - 8) {
      throw fail("", "the header length says " + std::to_string(n) + " bytes, the file has only " +
                         std::to_string(size - 8) + " after it (truncated, or not a safetensors file)");
    }
    if (n > kMaxHeaderBytes) {
      throw fail("",
                 "header of " + std::to_string(n) + " bytes exceeds the limit of " + std::to_string(kMaxHeaderBytes));
    }
    if (n < 2) throw fail("", "header of " + std::to_string(n) + " bytes cannot hold a JSON object");
    std::string header(static_cast<size_t>(n), '\0');
    file_.read_at(header.data(), header.size(), 8, "");
    if (header[0] != '{') throw fail("", "the header does not start with '{' (not a safetensors file?)");
    buffer_start_ = 8 + n;
    metadata_.producer = "safetensors";
    parse(header, size - buffer_start_);
  }

  const std::string& path() const override { return path_; }
  const Metadata& metadata() const override { return metadata_; }
  const std::vector<EntryInfo>& entries() const override { return index_.entries(); }

 protected:
  Value read_leaf(const EntryInfo& info) override {
    const size_t i = static_cast<size_t>(&info - index_.entries().data());
    const Slot& s = slots_.at(i);
    if (!s.dtype) return values_.at(s.begin);
    const size_t n = static_cast<size_t>(s.end - s.begin);
    TensorData t = TensorData::uninitialized(info.shape, info.dtype);
    if (s.dtype->as == DType::I32 && s.dtype->size == 2) {  // I16 / U16 widened
      std::vector<uint8_t> raw(n);
      file_.read_at(raw.data(), n, buffer_start_ + s.begin, info.path);
      auto* out = static_cast<int32_t*>(t.raw());
      const bool is_signed = std::strcmp(s.dtype->name, "I16") == 0;
      for (size_t k = 0; k < n / 2; ++k) {
        const uint16_t u = static_cast<uint16_t>(raw[2 * k] | (raw[2 * k + 1] << 8));
        out[k] = is_signed ? static_cast<int32_t>(static_cast<int16_t>(u)) : static_cast<int32_t>(u);
      }
    } else if (s.dtype->as == DType::I64 && s.dtype->size == 4) {  // U32 widened
      std::vector<uint32_t> raw(n / 4);
      file_.read_at(raw.data(), n, buffer_start_ + s.begin, info.path);
      auto* out = static_cast<int64_t*>(t.raw());
      for (size_t k = 0; k < raw.size(); ++k) out[k] = static_cast<int64_t>(raw[k]);
    } else {
      if (n > 0) file_.read_at(t.raw(), n, buffer_start_ + s.begin, info.path);
      if (info.dtype == DType::Bool) {
        for (uint8_t b : t.bytes()) {
          if (b > 1) throw fail(info.path, "bool tensor holds byte " + std::to_string(b) + " (only 0 and 1 are valid)");
        }
      }
    }
    return Value(std::move(t));
  }

 private:
  RecordError fail(std::string_view entry, const std::string& problem) const {
    return record_error(op_, path_, entry, problem);
  }

  static std::string kind_of(const nlohmann::json& j) { return j.type_name(); }

  uint64_t non_negative(const nlohmann::json& j, const std::string& name, const char* what) const {
    if (j.is_number_unsigned()) return j.get<uint64_t>();
    if (j.is_number_integer()) {
      const int64_t v = j.get<int64_t>();
      if (v < 0) throw fail(name, std::string(what) + " " + std::to_string(v) + " is negative");
      return static_cast<uint64_t>(v);
    }
    throw fail(name, std::string(what) + " is a " + kind_of(j) + ", not an integer");
  }

  void parse(const std::string& header, uint64_t buffer_size) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(header);
    } catch (const nlohmann::json::exception& e) {
      throw fail("", std::string("the header is not valid JSON: ") + e.what());
    }
    if (!j.is_object()) throw fail("", "the header is a JSON " + kind_of(j) + ", not an object");
    struct Pending {
      EntryInfo info;
      Slot slot;
    };
    std::vector<Pending> pending;
    for (const auto& [name, v] : j.items()) {
      if (name == "__metadata__") {
        if (!v.is_object()) throw fail(name, "is a " + kind_of(v) + ", not an object of strings");
        for (const auto& [k, s] : v.items()) {
          if (!s.is_string()) throw fail(name, "value of '" + k + "' is a " + kind_of(s) + ", not a string");
          read_metadata(k, s.get<std::string>());
        }
        continue;
      }
      if (!v.is_object()) throw fail(name, "is a " + kind_of(v) + ", not an object {dtype, shape, data_offsets}");
      const auto dt = v.find("dtype"), sh = v.find("shape"), off = v.find("data_offsets");
      if (dt == v.end() || sh == v.end() || off == v.end()) throw fail(name, "lacks one of dtype, shape, data_offsets");
      if (!dt->is_string()) throw fail(name, "dtype is a " + kind_of(*dt) + ", not a string");
      const std::string dname = dt->get<std::string>();
      const FileDType* fd = nullptr;
      for (const auto& d : kDTypes) {
        if (dname == d.name) fd = &d;
      }
      if (!fd) {
        if (dname == "U64" || dname.starts_with("F8"))
          throw Unsupported(op_, path_ + ": entry '" + name + "': dtype " + dname + " has no burn counterpart");
        throw fail(name, "unknown dtype '" + dname + "' (known: F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL U16 U32)");
      }
      if (!sh->is_array()) throw fail(name, "shape is a " + kind_of(*sh) + ", not an array");
      if (sh->size() > kMaxRank)
        throw fail(name, "rank " + std::to_string(sh->size()) + " exceeds " + std::to_string(kMaxRank));
      std::vector<uint64_t> dims;
      for (const auto& d : *sh) dims.push_back(non_negative(d, name, "dim"));
      EntrySizes sizes;
      switch (entry_sizes(dims, fd->size, dtype_size(fd->as), &sizes)) {
        case SizeFault::Elements: throw fail(name, "shape " + sh->dump() + " has more elements than fit in 64 bits");
        case SizeFault::Bytes:
          throw fail(name, "shape " + sh->dump() + " of " + dname + " is more bytes than fit in 64 bits");
        case SizeFault::None: break;
      }
      const uint64_t bytes = sizes.file_bytes, out_bytes = sizes.tensor_bytes;
      if (!off->is_array() || off->size() != 2) throw fail(name, "data_offsets is not an array [begin, end]");
      const uint64_t begin = non_negative((*off)[0], name, "begin offset"),
                     end = non_negative((*off)[1], name, "end offset");
      if (begin > end || end > buffer_size) {
        throw fail(name, "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                             "] are not inside the data buffer of " + std::to_string(buffer_size) + " bytes");
      }
      if (end - begin != bytes) {
        throw fail(name, "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "] hold " +
                             std::to_string(end - begin) + " bytes, shape " + sh->dump() + " of " + dname + " needs " +
                             std::to_string(bytes));
      }
      pending.push_back({{name, EntryKind::Tensor, fd->as, Shape(std::move(sizes.dims)), out_bytes}, {fd, begin, end}});
    }
    // The buffer must be tiled exactly (the specification forbids holes and overlaps).
    std::sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
      return a.slot.begin != b.slot.begin ? a.slot.begin < b.slot.begin : a.slot.end < b.slot.end;
    });
    uint64_t at = 0;
    std::string last;
    for (const auto& p : pending) {
      if (p.slot.begin < at) {
        throw fail(p.info.path, "data_offsets [" + std::to_string(p.slot.begin) + ", " + std::to_string(p.slot.end) +
                                    "] overlap those of '" + last + "' (ending at " + std::to_string(at) + ")");
      }
      if (p.slot.begin > at) {
        throw fail(p.info.path, "the data buffer has a hole [" + std::to_string(at) + ", " +
                                    std::to_string(p.slot.begin) + ") no tensor covers");
      }
      at = p.slot.end;
      last = p.info.path;
    }
    if (at != buffer_size) {
      throw fail("", "the tensors cover " + std::to_string(at) + " bytes of the " + std::to_string(buffer_size) +
                         "-byte data buffer (data appended, or a damaged header?)");
    }
    // In the file's data order, which is the order the writer stored them, with the other values
    // between them where kValuesKey places them.
    const std::vector<PendingValue> values = parse_values(values_text_, pending.size());
    values_text_.clear();
    size_t next = 0;
    for (size_t t = 0; t <= pending.size(); ++t) {
      for (; next < values.size() && values[next].before == t; ++next) add_value(values[next]);
      if (t == pending.size()) break;
      const size_t i = index_.add(std::move(pending[t].info));
      slots_.resize(i + 1, Slot{nullptr, 0, 0});
      slots_[i] = pending[t].slot;
    }
  }

  struct PendingValue {
    std::string path;
    EntryKind kind;  // Group: an empty group
    Value value;
    size_t before;  // tensors stored before it
  };

  void add_value(const PendingValue& v) {
    if (v.kind == EntryKind::Group) {
      index_.add_group(v.path);
      return;
    }
    uint64_t bytes = 8;
    if (v.kind == EntryKind::Bool) bytes = 1;
    if (v.kind == EntryKind::String) bytes = v.value.as_string().size();
    const size_t i = index_.add(EntryInfo{v.path, v.kind, DType::F32, {}, bytes});
    slots_.resize(i + 1, Slot{nullptr, 0, 0});
    slots_[i] = Slot{nullptr, values_.size(), 0};
    values_.push_back(v.value);
  }

  // A `__metadata__` key: burn's fields (kFormatVersionKey, ...), the values, or a free key/value.
  void read_metadata(const std::string& key, std::string value) {
    const std::string where = "__metadata__";
    if (key == kFormatVersionKey) {
      uint32_t v = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc() || end != value.data() + value.size() || value.empty()) {
        throw fail(where,
                   std::string(kFormatVersionKey) + " '" + value.substr(0, 40) + "' is not a 32-bit unsigned number");
      }
      metadata_.format_version = v;
    } else if (key == kBurnVersionKey) {
      metadata_.burn_version = std::move(value);
    } else if (key == kProducerKey) {
      metadata_.producer = std::move(value);
    } else if (key == kDTypePolicyKey) {
      metadata_.dtype_policy = std::move(value);
    } else if (key == kValuesKey) {
      values_text_ = std::move(value);  // parsed once the tensors are known
    } else {
      metadata_.extra.emplace_back(key, std::move(value));
    }
  }

  // kValuesKey: [[path, kind, value, position], ...] in record order; kinds "int" (a JSON integer),
  // "float" (shortest decimal text, "nan", "inf", "-inf"), "bool", "string", "group" (an empty group,
  // value null); position: how many tensors come before it in the record (non-decreasing, <= tensors).
  std::vector<PendingValue> parse_values(const std::string& text, size_t tensors) const {
    std::vector<PendingValue> out;
    if (text.empty()) return out;
    const std::string where = "__metadata__";
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      throw fail(where, std::string(kValuesKey) + " is not valid JSON: " + e.what());
    }
    if (!j.is_array()) throw fail(where, std::string(kValuesKey) + " is a JSON " + kind_of(j) + ", not an array");
    size_t last = 0;
    for (const auto& item : j) {
      if (!item.is_array() || item.size() != 4 || !item[0].is_string() || !item[1].is_string() ||
          !item[3].is_number_unsigned()) {
        throw fail(where, std::string(kValuesKey) + " holds " + item.dump().substr(0, 80) +
                              ", not [path, kind, value, position]");
      }
      PendingValue pv{item[0].get<std::string>(), EntryKind::Int, Value(), 0};
      const std::string& path = pv.path;
      const std::string kind = item[1].get<std::string>();
      const uint64_t before = item[3].get<uint64_t>();
      if (before > tensors || before < last) {
        throw fail(path, "position " + std::to_string(before) + " is not between the previous value's (" +
                             std::to_string(last) + ") and the tensor count (" + std::to_string(tensors) + ")");
      }
      pv.before = last = static_cast<size_t>(before);
      const nlohmann::json& v = item[2];
      auto wrong = [&](const char* want) {
        return fail(path, "the " + kind + " value is a JSON " + kind_of(v) + ", not " + want);
      };
      if (kind == "group") {
        if (!v.is_null()) throw wrong("null");
        pv.kind = EntryKind::Group;
      } else if (kind == "int") {
        if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t{INT64_MAX}))
          throw wrong("a 64-bit integer");
        pv.value = Value(v.get<int64_t>());
      } else if (kind == "float") {
        if (!v.is_string()) throw wrong("a string");
        pv.kind = EntryKind::Float;
        pv.value = Value(parse_double(path, v.get<std::string>()));
      } else if (kind == "bool") {
        if (!v.is_boolean()) throw wrong("true or false");
        pv.kind = EntryKind::Bool;
        pv.value = Value(v.get<bool>());
      } else if (kind == "string") {
        if (!v.is_string()) throw wrong("a string");
        pv.kind = EntryKind::String;
        pv.value = Value(v.get<std::string>());
      } else {
        throw fail(path, "unknown kind '" + kind.substr(0, 40) + "' in " + kValuesKey +
                             " (known: int, float, bool, string, group)");
      }
      out.push_back(std::move(pv));
    }
    return out;
  }

  double parse_double(const std::string& path, const std::string& s) const {
    if (s == "nan") return std::nan("");
    if (s == "inf") return HUGE_VAL;
    if (s == "-inf") return -HUGE_VAL;
    double d = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty())
      throw fail(path, "float value '" + s.substr(0, 40) + "' is not a number");
    return d;
  }

  std::string op_;
  InputFile file_;
  std::string path_;
  Metadata metadata_;
  EntryIndex index_;
  std::vector<Slot> slots_;    // per entry of index_ (groups: unused)
  std::vector<Value> values_;  // the non-tensor leaves, from kValuesKey
  std::string values_text_;    // kValuesKey until the tensors are indexed
  uint64_t buffer_start_ = 0;
};

const char* file_dtype_name(DType d) {
  switch (d) {
    case DType::F64: return "F64";
    case DType::F32: return "F32";
    case DType::F16: return "F16";
    case DType::BF16: return "BF16";
    case DType::I64: return "I64";
    case DType::I32: return "I32";
    case DType::I8: return "I8";
    case DType::U8: return "U8";
    case DType::Bool: return "BOOL";
  }
  return nullptr;
}

// The shortest text that reads back to `d` (from_chars), or nan/inf/-inf.
std::string double_text(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, end);
}

}  // namespace

std::unique_ptr<RecordReader> open_file(const std::string& path, const std::string& op) {
  return std::make_unique<SafetensorsReader>(path, op);
}

bool looks_like_safetensors(std::span<const uint8_t> head) {
  if (head.size() < 10 || head[8] != '{') return false;
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | head[static_cast<size_t>(i)];
  return n >= 2 && n <= kMaxHeaderBytes && (head[9] == '"' || head[9] == '}');
}

void write_file(const std::string& path, const Record& record, const Metadata& metadata) {
  constexpr const char* kOp = "safetensors";
  auto text = [&](std::string_view entry, const std::string& s, const char* what) -> const std::string& {
    if (!valid_utf8(s)) throw record_error(kOp, path, entry, std::string(what) + " is not valid UTF-8 (JSON needs it)");
    return s;
  };
  nlohmann::ordered_json meta = nlohmann::ordered_json::object();
  meta[kFormatVersionKey] = std::to_string(metadata.format_version);
  meta[kBurnVersionKey] = text("", metadata.burn_version, "the burn version");
  meta[kProducerKey] = text("", metadata.producer, "the producer");
  meta[kDTypePolicyKey] = text("", metadata.dtype_policy, "the dtype policy");
  for (const auto& [k, v] : metadata.extra) {
    if (k == kFormatVersionKey || k == kBurnVersionKey || k == kProducerKey || k == kDTypePolicyKey ||
        k == kValuesKey) {
      throw record_error(kOp, path, "", "metadata key '" + k + "' is reserved for burn's own fields");
    }
    meta[text("", k, "a metadata key")] = text(k, v, "a metadata value");
  }
  // The header text is assembled entry by entry (an ordered_json object finds keys linearly).
  std::string tensor_text;
  nlohmann::ordered_json values = nlohmann::ordered_json::array();
  std::vector<const TensorData*> tensors;
  uint64_t at = 0;
  for (const FlatEntry& e : record.flatten()) {
    text(e.path, e.path, "the name");
    const Value& v = *e.value;
    switch (v.kind()) {
      case EntryKind::Tensor: {
        const TensorData& t = v.tensor();
        const uint64_t n = t.bytes().size();
        if (e.path == "__metadata__") throw record_error(kOp, path, e.path, "the name is reserved by safetensors");
        if (t.shape().rank() > kMaxRank) {  // every reader refuses it (this one too)
          throw record_error(kOp, path, e.path,
                             "rank " + std::to_string(t.shape().rank()) + " exceeds " + std::to_string(kMaxRank));
        }
        const nlohmann::ordered_json entry = {
            {"dtype", file_dtype_name(t.dtype())}, {"shape", t.shape().dims()}, {"data_offsets", {at, at + n}}};
        tensor_text += ',' + nlohmann::json(e.path).dump() + ':' + entry.dump();
        at += n;
        tensors.push_back(&t);
        break;
      }
      case EntryKind::Group:
        if (v.group().empty()) values.push_back({e.path, "group", nullptr, tensors.size()});
        break;
      case EntryKind::Int: values.push_back({e.path, "int", v.as_int(), tensors.size()}); break;
      case EntryKind::Float: values.push_back({e.path, "float", double_text(v.as_float()), tensors.size()}); break;
      case EntryKind::Bool: values.push_back({e.path, "bool", v.as_bool(), tensors.size()}); break;
      case EntryKind::String:
        values.push_back({e.path, "string", text(e.path, v.as_string(), "the string"), tensors.size()});
        break;
    }
  }
  if (!values.empty()) meta[kValuesKey] = values.dump();
  std::string h = "{\"__metadata__\":" + meta.dump() + tensor_text + "}";
  h.append((8 - h.size() % 8) % 8, ' ');  // the data starts 8-byte aligned, as the specification advises
  if (h.size() > kMaxHeaderBytes) {
    throw record_error(kOp, path, "",
                       "the header would be " + std::to_string(h.size()) + " bytes, more than readers accept (" +
                           std::to_string(kMaxHeaderBytes) + ")");
  }
  OutputFile out(path, kOp);
  uint8_t len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<uint8_t>(static_cast<uint64_t>(h.size()) >> (8 * i));
  out.write(len, 8);
  out.write(h.data(), h.size());
  for (const TensorData* t : tensors) {
    if (!t->bytes().empty()) out.write(t->bytes().data(), t->bytes().size());
  }
  out.close();
}

}  // namespace burn::record::safetensors
