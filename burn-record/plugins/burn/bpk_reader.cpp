// Burnpack (.bpk, Burn's burn-store format): a 10-byte header (magic "NRUB" = 0x4255524E little-endian,
// version u16, metadata size u32), CBOR metadata {tensors: {name: {dtype, shape, data_offsets,
// param_id?}}, metadata?: {str: str}}, then the data section, which starts at the next multiple of 256
// after the metadata (files of the first version start it right after the metadata). The CBOR is
// parsed here with every length checked against the bytes left before anything is allocated.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "burn/record/entry_index.hpp"
#include "burn/record/file.hpp"
#include "burn/tensor/shape.hpp"
#include "burn_format.hpp"
#include "qfloat.hpp"

namespace burn::record::burn_format {

namespace {

constexpr size_t kCborMaxDepth = 64;

// A parsed CBOR value (the subset serde/ciborium writes: no tags are needed, but they are skipped).
struct CborValue {
  enum Type : uint8_t { UInt, NegInt, Bytes, Text, Array, Map, Bool, Null, Float } type = Null;
  uint64_t u = 0;  // UInt; NegInt: -1 - u
  double f = 0;
  std::string_view s;            // Bytes / Text
  std::vector<CborValue> items;  // Array: elements; Map: key, value, ...
};

class CborParser {
 public:
  CborParser(std::string_view data, const std::string& file, const std::string& op) : p_(data), file_(file), op_(op) {}

  CborValue parse(size_t depth = 0) {
    if (depth > kCborMaxDepth) throw err("CBOR nested deeper than " + std::to_string(kCborMaxDepth));
    const uint8_t ib = byte();
    const uint8_t major = ib >> 5, info = ib & 31;
    if (major == 6) {  // a tag: the tagged value stands for itself
      (void)arg(info);
      return parse(depth + 1);
    }
    CborValue c;
    if (major == 7) {
      switch (info) {
        case 20: c.type = CborValue::Bool; return c;
        case 21:
          c.type = CborValue::Bool;
          c.u = 1;
          return c;
        case 22:
        case 23: c.type = CborValue::Null; return c;
        case 25: {  // half float
          const uint16_t h = static_cast<uint16_t>(be(2));
          const int e = (h >> 10) & 31, m = h & 1023;
          const double v = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(m + 1024, e - 25);
          c.type = CborValue::Float;
          c.f = (h & 0x8000) ? -v : v;
          return c;
        }
        case 26: {
          const uint32_t b = static_cast<uint32_t>(be(4));
          float v;
          std::memcpy(&v, &b, 4);
          c.type = CborValue::Float;
          c.f = v;
          return c;
        }
        case 27: {
          const uint64_t b = be(8);
          std::memcpy(&c.f, &b, 8);
          c.type = CborValue::Float;
          return c;
        }
        default: throw err("unsupported CBOR simple value " + std::to_string(info));
      }
    }
    if (info == 31) throw err("indefinite-length CBOR items are not supported");
    const uint64_t n = arg(info);
    switch (major) {
      case 0:
        c.type = CborValue::UInt;
        c.u = n;
        return c;
      case 1:
        c.type = CborValue::NegInt;
        c.u = n;
        return c;
      case 2:
      case 3:
        if (n > p_.size()) throw err("a CBOR string of " + std::to_string(n) + " bytes runs past the metadata");
        c.type = major == 2 ? CborValue::Bytes : CborValue::Text;
        c.s = p_.substr(0, static_cast<size_t>(n));
        p_.remove_prefix(static_cast<size_t>(n));
        return c;
      case 4:
      case 5: {
        // Every element takes at least one byte: a count beyond what is left is a lie.
        const uint64_t items = major == 5 ? n * 2 : n;
        if (n > p_.size() || items > p_.size())
          throw err("a CBOR " + std::string(major == 4 ? "array" : "map") + " claims " + std::to_string(n) +
                    " items in " + std::to_string(p_.size()) + " bytes");
        c.type = major == 4 ? CborValue::Array : CborValue::Map;
        c.items.reserve(static_cast<size_t>(items));
        for (uint64_t k = 0; k < items; ++k) c.items.push_back(parse(depth + 1));
        return c;
      }
    }
    throw err("bad CBOR major type");
  }
  size_t left() const { return p_.size(); }

 private:
  RecordError err(const std::string& problem) const { return record_error(op_, file_, "", problem); }
  uint8_t byte() {
    if (p_.empty()) throw err("the CBOR metadata ends early (truncated?)");
    const uint8_t b = static_cast<uint8_t>(p_[0]);
    p_.remove_prefix(1);
    return b;
  }
  uint64_t be(int bytes) {
    uint64_t v = 0;
    for (int k = 0; k < bytes; ++k) v = (v << 8) | byte();
    return v;
  }
  uint64_t arg(uint8_t info) {
    if (info < 24) return info;
    if (info == 24) return be(1);
    if (info == 25) return be(2);
    if (info == 26) return be(4);
    if (info == 27) return be(8);
    throw err("reserved CBOR additional information " + std::to_string(info));
  }
  std::string_view p_;
  const std::string& file_;
  const std::string& op_;
};

struct BpkDType {
  const char* name;
  size_t size;
  DType as;
};
constexpr BpkDType kBurnpackDTypes[] = {
    {"F64", 8, DType::F64},   {"F32", 4, DType::F32}, {"Flex32", 4, DType::F32}, {"F16", 2, DType::F16},
    {"BF16", 2, DType::BF16}, {"I64", 8, DType::I64}, {"I32", 4, DType::I32},    {"I16", 2, DType::I32},
    {"I8", 1, DType::I8},     {"U32", 4, DType::I64}, {"U16", 2, DType::I32},    {"U8", 1, DType::U8},
    {"Bool", 1, DType::Bool},
};

struct Slot {
  const BpkDType* dtype = nullptr;
  uint64_t begin = 0, end = 0;    // absolute in the file
  int64_t id = 0;                 // _param_ids entries
  std::vector<int64_t> header{};  // a QFloat entry's quant_scheme (made, not read)
};

const BpkDType* bpk_dtype(std::string_view name) {
  for (const auto& t : kBurnpackDTypes)
    if (name == t.name) return &t;
  return nullptr;
}

// The plain dtype a QFloat part is copied as.
const BpkDType* bpk_part_dtype(DType d) {
  switch (d) {
    case DType::I8: return bpk_dtype("I8");
    case DType::U8: return bpk_dtype("U8");
    case DType::F16: return bpk_dtype("F16");
    case DType::BF16: return bpk_dtype("BF16");
    default: return bpk_dtype("F32");
  }
}

SerdeValue cbor_serde(const CborValue& c) {
  SerdeValue v;
  switch (c.type) {
    case CborValue::Text:
      v.type = SerdeValue::Str;
      v.s = std::string(c.s);
      break;
    case CborValue::UInt:
      v.type = SerdeValue::UInt;
      v.u = c.u;
      break;
    case CborValue::Array:
      v.type = SerdeValue::Array;
      for (const CborValue& x : c.items) v.items.push_back(cbor_serde(x));
      break;
    case CborValue::Map:
      v.type = SerdeValue::Map;
      for (const CborValue& x : c.items) v.items.push_back(cbor_serde(x));  // key, value, ...
      break;
    default: break;
  }
  return v;
}

class BpkReader final : public RecordReader {
 public:
  BpkReader(std::string path, std::string op)
      : op_(std::move(op)), file_(path, op_), path_(std::move(path)), index_(op_, path_) {
    const uint64_t size = file_.size();
    if (size < kBurnpackHeaderSize) {
      throw fail("", "the file is " + std::to_string(size) + " bytes, shorter than the 10-byte burnpack header");
    }
    uint8_t h[kBurnpackHeaderSize];
    file_.read_at(h, kBurnpackHeaderSize, 0, "");
    const uint32_t magic = h[0] | (h[1] << 8) | (h[2] << 16) | (static_cast<uint32_t>(h[3]) << 24);
    if (magic != kBurnpackMagic) throw fail("", "bad magic: not a burnpack file");
    const uint16_t version = static_cast<uint16_t>(h[4] | (h[5] << 8));
    if (version != 1) throw fail("", "burnpack version " + std::to_string(version) + ", this reader knows version 1");
    const uint64_t meta = h[6] | (h[7] << 8) | (h[8] << 16) | (static_cast<uint64_t>(h[9]) << 24);
    if (meta > kBurnpackMaxMetadata || meta > size - kBurnpackHeaderSize) {
      throw fail("", "metadata of " + std::to_string(meta) + " bytes does not fit the file of " + std::to_string(size) +
                         " bytes (or exceeds the 100 MiB limit)");
    }
    std::string bytes(static_cast<size_t>(meta), '\0');
    file_.read_at(bytes.data(), bytes.size(), kBurnpackHeaderSize, "");
    CborParser parser(bytes, path_, op_);
    const CborValue root = parser.parse();
    if (parser.left() != 0) throw fail("", std::to_string(parser.left()) + " bytes follow the CBOR metadata");
    const uint64_t unaligned = kBurnpackHeaderSize + meta;
    const uint64_t aligned = (unaligned + kBurnpackAlignment - 1) / kBurnpackAlignment * kBurnpackAlignment;
    parse(root, size, unaligned, aligned);
    if (metadata_.producer.empty()) metadata_.producer = "burnpack";
  }

  const std::string& path() const override { return path_; }
  const Metadata& metadata() const override { return metadata_; }
  const std::vector<EntryInfo>& entries() const override { return index_.entries(); }

 protected:
  Value read_leaf(const EntryInfo& info) override {
    const size_t i = static_cast<size_t>(&info - index_.entries().data());
    const Slot& s = slots_.at(i);
    if (info.kind == EntryKind::Int) return Value(s.id);
    const size_t n = static_cast<size_t>(s.end - s.begin);
    TensorData t = TensorData::uninitialized(info.shape, info.dtype);
    if (!s.header.empty()) {
      std::memcpy(t.raw(), s.header.data(), s.header.size() * sizeof(int64_t));
      return Value(std::move(t));
    }
    const std::string_view name = s.dtype->name;
    if (name == "I16" || name == "U16" || name == "U32") {
      std::vector<uint8_t> raw(n);
      file_.read_at(raw.data(), n, s.begin, info.path);
      for (size_t k = 0; k < n / s.dtype->size; ++k) {
        const uint8_t* b = raw.data() + k * s.dtype->size;
        if (name == "I16") {
          static_cast<int32_t*>(t.raw())[k] = static_cast<int16_t>(b[0] | (b[1] << 8));
        } else if (name == "U16") {
          static_cast<int32_t*>(t.raw())[k] = static_cast<uint16_t>(b[0] | (b[1] << 8));
        } else {
          uint32_t v;
          std::memcpy(&v, b, 4);
          static_cast<int64_t*>(t.raw())[k] = v;
        }
      }
    } else {
      if (n) file_.read_at(t.raw(), n, s.begin, info.path);
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
  static std::string_view text(const CborValue& c) { return c.type == CborValue::Text ? c.s : std::string_view(); }
  static const CborValue* field(const CborValue& map, std::string_view name) {
    for (size_t k = 0; k + 1 < map.items.size(); k += 2) {
      if (map.items[k].type == CborValue::Text && map.items[k].s == name) return &map.items[k + 1];
    }
    return nullptr;
  }

  void parse(const CborValue& root, uint64_t size, uint64_t unaligned, uint64_t aligned) {
    if (root.type != CborValue::Map) throw fail("", "the metadata is not a CBOR map");
    const CborValue* tensors = field(root, "tensors");
    if (!tensors || tensors->type != CborValue::Map) throw fail("", "the metadata has no 'tensors' map");
    if (const CborValue* m = field(root, "metadata"); m && m->type == CborValue::Map) {
      for (size_t k = 0; k + 1 < m->items.size(); k += 2) {
        if (m->items[k].type == CborValue::Text && m->items[k + 1].type == CborValue::Text)
          take_metadata(metadata_, std::string(m->items[k].s), std::string(m->items[k + 1].s));
      }
    }
    struct Pending {
      EntryInfo info;
      Slot slot;
      bool has_id;
    };
    std::vector<Pending> pending;
    std::vector<std::pair<uint64_t, uint64_t>> spans;  // each descriptor's data_offsets
    uint64_t max_end = 0;
    for (size_t k = 0; k + 1 < tensors->items.size(); k += 2) {
      const std::string name(text(tensors->items[k]));
      if (name.empty()) throw fail("", "a tensor name is not a non-empty string");
      const CborValue& d = tensors->items[k + 1];
      if (d.type != CborValue::Map) throw fail(name, "the descriptor is not a map");
      const CborValue* dt = field(d, "dtype");
      const CborValue* sh = field(d, "shape");
      const CborValue* off = field(d, "data_offsets");
      if (!dt || !sh || !off) throw fail(name, "the descriptor lacks one of dtype, shape, data_offsets");
      std::string_view dname = text(*dt);
      if (dt->type == CborValue::Map && dt->items.size() == 2) dname = text(dt->items[0]);  // {"Bool": store}
      SerdeValue dv;
      const SerdeValue* scheme = nullptr;
      if (dt->type == CborValue::Map) dv = cbor_serde(*dt);
      const bool qfloat = is_qfloat(dv, &scheme);
      const BpkDType* bd = bpk_dtype(dname);
      if (!bd && !qfloat) {
        if (dname == "U64")
          throw Unsupported(op_, path_ + ": entry '" + name + "': dtype " + std::string(dname) + " is not supported");
        throw fail(name, "unknown dtype '" + std::string(dname) + "'");
      }
      if (sh->type != CborValue::Array) throw fail(name, "shape is not an array");
      if (sh->items.size() > kMaxRank)
        throw fail(name, "rank " + std::to_string(sh->items.size()) + " exceeds " + std::to_string(kMaxRank));
      std::vector<uint64_t> dims;
      for (const CborValue& x : sh->items) {
        if (x.type != CborValue::UInt) throw fail(name, "a dim is not a non-negative integer");
        dims.push_back(x.u);
      }
      if (off->type != CborValue::Array || off->items.size() != 2 || off->items[0].type != CborValue::UInt ||
          off->items[1].type != CborValue::UInt)
        throw fail(name, "data_offsets is not [begin, end]");
      const uint64_t b = off->items[0].u, e = off->items[1].u;
      const CborValue* id = field(d, "param_id");
      const bool has_id = id && id->type == CborValue::UInt;  // its bits in the Int entry, as burn-nn's u64 ParamId
      if (qfloat) {
        if (b > e) throw fail(name, "data_offsets [" + std::to_string(b) + ", " + std::to_string(e) + "] are reversed");
        // The group of its parts; the id rides on the values (burn-nn's into_record).
        for (QFloatPart& q : qfloat_layout(*scheme, dims, e - b, path_, name, op_).parts) {
          Slot slot{bpk_part_dtype(q.dtype), b + q.offset, b + q.offset + q.bytes, 0, std::move(q.header)};
          const bool values = q.name == "values";
          if (values && has_id) slot.id = static_cast<int64_t>(id->u);
          pending.push_back(
              {{name + "." + q.name, EntryKind::Tensor, q.dtype, q.shape, q.bytes}, slot, values && has_id});
        }
      } else {
        EntrySizes sizes;
        switch (entry_sizes(dims, bd->size, dtype_size(bd->as), &sizes)) {
          case SizeFault::Elements: throw fail(name, "the shape has more elements than fit in 64 bits");
          case SizeFault::Bytes: throw fail(name, "the shape has more bytes than fit in 64 bits");
          case SizeFault::None: break;
        }
        const uint64_t bytes = sizes.file_bytes, out = sizes.tensor_bytes;
        if (b > e || e - b != bytes) {
          throw fail(name, "data_offsets [" + std::to_string(b) + ", " + std::to_string(e) + "] do not hold the " +
                               std::to_string(bytes) + " bytes of its shape and dtype");
        }
        Slot slot{bd, b, e, 0, {}};
        if (has_id) slot.id = static_cast<int64_t>(id->u);
        pending.push_back({{name, EntryKind::Tensor, bd->as, Shape(std::move(sizes.dims)), out}, slot, has_id});
      }
      max_end = std::max(max_end, e);
      spans.emplace_back(b, e);
    }
    // No two tensors may share bytes.
    std::sort(spans.begin(), spans.end());
    for (size_t k = 1; k < spans.size(); ++k) {
      if (spans[k].first < spans[k - 1].second)
        throw fail("", "two tensors overlap at data offset " + std::to_string(spans[k].first));
    }
    // The first writers packed the tensors from offset 0 with no gap; current ones start each at a
    // multiple of 256, leaving gaps.
    bool packed = true;
    for (uint64_t next = 0; const auto& [b, e] : spans) {
      packed = packed && b == next;
      next = std::max(next, e);
    }
    // The data section: aligned to 256 (current writers), else right after the metadata (the first writers).
    uint64_t start = aligned;
    uint64_t end = 0;
    if (!checked_add(aligned, max_end, &end) || end > size) {
      // Unaligned only when that layout ends exactly at the end of the file and the tensors are packed
      // as the first writers packed them: an aligned file cut short by exactly its padding must not be
      // misread with shifted offsets.
      if (!packed || !checked_add(unaligned, max_end, &end) || end != size) {
        throw fail("", "the tensors end at byte " + std::to_string(max_end) +
                           " of the data section, past the end of the " + std::to_string(size) +
                           "-byte file (truncated?)");
      }
      start = unaligned;
    }
    std::vector<std::pair<std::string, int64_t>> ids;
    for (auto& p : pending) {
      p.slot.begin += start;
      p.slot.end += start;
      if (p.has_id) ids.emplace_back(p.info.path, p.slot.id);
      const size_t i = index_.add(std::move(p.info));
      slots_.resize(i + 1);
      slots_[i] = std::move(p.slot);
    }
    for (auto& [name, id] : ids) {
      const size_t i = index_.add({std::string(kParamIds) + "." + name, EntryKind::Int, DType::F32, {}, 8});
      slots_.resize(i + 1);
      slots_[i].id = id;
    }
  }

  std::string op_;
  InputFile file_;
  std::string path_;
  Metadata metadata_;
  EntryIndex index_;
  std::vector<Slot> slots_;
};

}  // namespace

std::unique_ptr<RecordReader> open_bpk(const std::string& path, const std::string& op) {
  return std::make_unique<BpkReader>(path, op);
}

}  // namespace burn::record::burn_format
