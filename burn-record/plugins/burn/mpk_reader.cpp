// NamedMpk: the file (inflated when gzip) is parsed by msgpack-cxx's visitor parser into a small
// tree of offsets (no tensor is copied), which is mapped onto record entries: a Param
// {id, param: TensorData} becomes a tensor at the module path and its id an Int below _param_ids;
// a TensorData {bytes, shape, dtype} a tensor; nil (constants, None) nothing.
#include "burn_format.hpp"

#include <zlib.h>

#include <charconv>
#include <cstring>
#include <msgpack.hpp>

#include "burn/record/entry_index.hpp"
#include "burn/record/file.hpp"
#include "burn/tensor/shape.hpp"
#include "qfloat.hpp"

namespace burn::record::burn_format {

namespace {

constexpr size_t kMsgpackMaxDepth = 128;  // nesting of maps and arrays
constexpr size_t kMaxNodes = 64u << 20;   // values in one file

struct Node {
  enum Type : uint8_t { Nil, Bool, UInt, Int, Float, Str, Bin, Ext, Array, Map } type = Nil;
  bool b = false;
  uint64_t u = 0;
  int64_t i = 0;
  double f = 0;
  uint64_t off = 0, len = 0;   // Str/Bin/Ext: bytes in the buffer
  std::vector<uint32_t> kids;  // Array: elements; Map: key, value, key, value...
};

// Builds the node tree; refuses (returns false, so the parser stops) too deep or too many values.
class TreeBuilder : public msgpack::null_visitor {
 public:
  explicit TreeBuilder(const char* base) : base_(base) {}
  std::vector<Node> nodes;
  std::string problem;

  bool visit_nil() { return add(Node{}); }
  bool visit_boolean(bool v) {
    Node n;
    n.type = Node::Bool;
    n.b = v;
    return add(std::move(n));
  }
  bool visit_positive_integer(uint64_t v) {
    Node n;
    n.type = Node::UInt;
    n.u = v;
    return add(std::move(n));
  }
  bool visit_negative_integer(int64_t v) {
    Node n;
    n.type = Node::Int;
    n.i = v;
    return add(std::move(n));
  }
  bool visit_float32(float v) { return visit_float64(v); }
  bool visit_float64(double v) {
    Node n;
    n.type = Node::Float;
    n.f = v;
    return add(std::move(n));
  }
  bool visit_str(const char* v, uint32_t size) { return bytes(Node::Str, v, size); }
  bool visit_bin(const char* v, uint32_t size) { return bytes(Node::Bin, v, size); }
  bool visit_ext(const char* v, uint32_t size) { return bytes(Node::Ext, v, size); }
  bool start_array(uint32_t) { return open(Node::Array); }
  bool end_array() { return close(); }
  bool start_map(uint32_t) { return open(Node::Map); }
  bool end_map() { return close(); }
  void parse_error(size_t, size_t at) { problem = "invalid MessagePack at byte " + std::to_string(at); }
  void insufficient_bytes(size_t, size_t at) {
    problem = "the MessagePack data ends early (at byte " + std::to_string(at) + "; truncated?)";
  }

 private:
  bool bytes(Node::Type t, const char* v, uint32_t size) {
    Node n;
    n.type = t;
    n.off = size ? static_cast<uint64_t>(v - base_) : 0;
    n.len = size;
    return add(std::move(n));
  }
  bool add(Node n) {
    if (nodes.size() >= kMaxNodes) {
      problem = "more than " + std::to_string(kMaxNodes) + " values";
      return false;
    }
    const auto id = static_cast<uint32_t>(nodes.size());
    nodes.push_back(std::move(n));
    if (!stack_.empty()) nodes[stack_.back()].kids.push_back(id);
    return true;
  }
  bool open(Node::Type t) {
    if (stack_.size() >= kMsgpackMaxDepth) {
      problem = "nesting deeper than " + std::to_string(kMsgpackMaxDepth);
      return false;
    }
    Node n;
    n.type = t;
    if (!add(std::move(n))) return false;
    stack_.push_back(static_cast<uint32_t>(nodes.size() - 1));
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }
  const char* base_;
  std::vector<uint32_t> stack_;
};

std::string inflate_gzip(const std::string& in, const std::string& path, const std::string& op) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw record_error(op, path, "", "zlib cannot start");
  std::string out;
  const size_t limit = max_alloc_bytes();
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(std::min<size_t>(in.size(), UINT32_MAX));
  size_t fed = z.avail_in;
  int rc = Z_OK;
  char buf[1 << 16];
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      const std::string msg = z.msg ? z.msg : "error " + std::to_string(rc);
      inflateEnd(&z);
      throw record_error(op, path, "",
                         "the gzip data is damaged" + std::string(rc == Z_BUF_ERROR ? " (truncated?)" : ": " + msg));
    }
    const size_t got = sizeof buf - z.avail_out;
    if (out.size() + got > limit) {
      inflateEnd(&z);
      throw record_error(op, path, "", "inflates to more than " + std::to_string(limit) + " bytes (the memory limit)");
    }
    out.append(buf, got);
    if (z.avail_in == 0 && fed < in.size()) {
      const size_t more = std::min<size_t>(in.size() - fed, UINT32_MAX);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + fed));
      z.avail_in = static_cast<uInt>(more);
      fed += more;
    } else if (z.avail_in == 0 && got == 0 && rc != Z_STREAM_END) {
      inflateEnd(&z);
      throw record_error(op, path, "", "the gzip data ends early (truncated?)");
    }
  }
  inflateEnd(&z);
  return out;
}

// A Burn dtype name and how burn reads it (16/32-bit ints widened without loss, as safetensors').
struct BurnDType {
  const char* name;
  size_t size;
  DType as;
};
// In the order of Rust Burn's DType enum (for files whose variants are written as indices).
constexpr BurnDType kNamedMpkDTypes[] = {
    {"F64", 8, DType::F64},   {"F32", 4, DType::F32},   {"Flex32", 4, DType::F32}, {"F16", 2, DType::F16},
    {"BF16", 2, DType::BF16}, {"I64", 8, DType::I64},   {"I32", 4, DType::I32},    {"I16", 2, DType::I32},
    {"I8", 1, DType::I8},     {"U64", 8, DType::I64},   {"U32", 4, DType::I64},    {"U16", 2, DType::I32},
    {"U8", 1, DType::U8},     {"Bool", 1, DType::Bool},
};

struct Leaf {
  const Node* node = nullptr;        // Str / Bin / numbers
  const BurnDType* dtype = nullptr;  // tensors
  int64_t id = 0;                    // _param_ids entries
  uint64_t off = 0, len = 0;         // tensors: their bytes in the buffer
  std::vector<int64_t> header{};     // a QFloat entry's quant_scheme (made, not read)
};

const BurnDType* mpk_dtype(std::string_view name) {
  for (const auto& t : kNamedMpkDTypes)
    if (name == t.name) return &t;
  return nullptr;
}

class MpkReader final : public RecordReader {
 public:
  MpkReader(std::string path, std::string op) : op_(std::move(op)), path_(std::move(path)), index_(op_, path_) {
    {
      InputFile f(path_, op_);
      if (f.size() == 0) throw fail("", "the file is empty");
      if (f.size() > max_alloc_bytes())
        throw fail("", "the file of " + std::to_string(f.size()) + " bytes exceeds the memory limit");
      buf_.resize(static_cast<size_t>(f.size()));
      f.read_at(buf_.data(), buf_.size(), 0, "");
    }
    if (buf_.size() >= 2 && static_cast<uint8_t>(buf_[0]) == 0x1f && static_cast<uint8_t>(buf_[1]) == 0x8b) {
      buf_ = inflate_gzip(buf_, path_, op_);
      metadata_.set("compression", "gzip");
    }
    TreeBuilder tb(buf_.data());
    size_t off = 0;
    bool ok = false;
    try {
      ok = msgpack::parse(buf_.data(), buf_.size(), off, tb);
    } catch (const std::exception& e) {  // msgpack-cxx's own limits (sizes beyond the buffer)
      throw fail("", std::string("invalid MessagePack: ") + e.what());
    }
    if (!ok || tb.nodes.empty()) throw fail("", tb.problem.empty() ? "invalid MessagePack" : tb.problem);
    if (off != buf_.size())
      throw fail("", std::to_string(buf_.size() - off) + " bytes follow the record (data appended?)");
    nodes_ = std::move(tb.nodes);
    const Node& root = nodes_[0];
    if (root.type != Node::Map) throw fail("", "the file is not a Burn record (a map {metadata, item})");
    const Node* item = nullptr;
    for (size_t k = 0; k + 1 < root.kids.size(); k += 2) {
      const std::string key = str(nodes_[root.kids[k]], "", "a top-level key");
      const Node& v = nodes_[root.kids[k + 1]];
      if (key == "metadata") {
        read_metadata(v);
      } else if (key == "item") {
        item = &v;
      }
    }
    if (!item) throw fail("", "the record has no 'item' (not a Burn NamedMpk record?)");
    if (metadata_.producer.empty()) {  // written by Rust Burn, not by burn-record
      metadata_.producer = "burn (Rust)";
      if (const std::string* v = metadata_.find("version")) metadata_.producer += " " + *v;
    }
    walk(*item, "");
    for (auto& [p, id] : ids_) {
      const size_t i = index_.add({std::string(kParamIds) + "." + p, EntryKind::Int, DType::F32, {}, 8});
      leaves_.resize(i + 1);
      leaves_[i].id = id;
    }
  }

  const std::string& path() const override { return path_; }
  const Metadata& metadata() const override { return metadata_; }
  const std::vector<EntryInfo>& entries() const override { return index_.entries(); }

 protected:
  Value read_leaf(const EntryInfo& info) override {
    const size_t i = static_cast<size_t>(&info - index_.entries().data());
    const Leaf& l = leaves_.at(i);
    switch (info.kind) {
      case EntryKind::Int:
        if (!l.node) return Value(l.id);
        return Value(l.node->type == Node::UInt ? static_cast<int64_t>(l.node->u) : l.node->i);
      case EntryKind::Float: return Value(l.node->f);
      case EntryKind::Bool: return Value(l.node->b);
      case EntryKind::String: return Value(std::string(buf_.data() + l.node->off, l.node->len));
      case EntryKind::Tensor: return Value(tensor(info, l));
      case EntryKind::Group: break;
    }
    throw fail(info.path, "not a leaf");
  }

 private:
  RecordError fail(std::string_view entry, const std::string& problem) const {
    return record_error(op_, path_, entry, problem);
  }

  std::string str(const Node& n, std::string_view entry, const char* what) const {
    if (n.type != Node::Str) throw fail(entry, std::string(what) + " is not a string");
    return std::string(buf_.data() + n.off, n.len);
  }

  void read_metadata(const Node& m) {
    if (m.type != Node::Map) throw fail("", "metadata is not a map");
    for (size_t k = 0; k + 1 < m.kids.size(); k += 2) {
      const Node& v = nodes_[m.kids[k + 1]];
      if (v.type == Node::Str)
        take_metadata(metadata_, str(nodes_[m.kids[k]], "", "a metadata key"), str(v, "", "metadata"));
    }
  }

  const Node* field(const Node& map, std::string_view name) const {
    for (size_t k = 0; k + 1 < map.kids.size(); k += 2) {
      const Node& key = nodes_[map.kids[k]];
      if (key.type == Node::Str && std::string_view(buf_.data() + key.off, key.len) == name)
        return &nodes_[map.kids[k + 1]];
    }
    return nullptr;
  }

  bool is_tensor_data(const Node& n) const {
    return n.type == Node::Map && n.kids.size() == 6 && field(n, "bytes") && field(n, "shape") && field(n, "dtype");
  }

  std::string join(std::string_view path, std::string_view name) const {
    return path.empty() ? std::string(name) : std::string(path) + "." + std::string(name);
  }

  size_t add_leaf(EntryInfo e, Leaf l) {
    const size_t i = index_.add(std::move(e));
    leaves_.resize(i + 1);
    leaves_[i] = std::move(l);
    return i;
  }

  void walk(const Node& n, const std::string& path) {
    switch (n.type) {
      case Node::Nil: return;  // a constant field or a None
      case Node::Bool: add_leaf({path, EntryKind::Bool, DType::F32, {}, 8}, {&n}); return;
      case Node::UInt:
        if (n.u > static_cast<uint64_t>(INT64_MAX))
          throw fail(path, "integer " + std::to_string(n.u) + " exceeds int64");
        add_leaf({path, EntryKind::Int, DType::F32, {}, 8}, {&n});
        return;
      case Node::Int: add_leaf({path, EntryKind::Int, DType::F32, {}, 8}, {&n}); return;
      case Node::Float: add_leaf({path, EntryKind::Float, DType::F32, {}, 8}, {&n}); return;
      case Node::Str: add_leaf({path, EntryKind::String, DType::F32, {}, n.len}, {&n}); return;
      case Node::Bin:
      case Node::Ext: throw fail(path, "raw bytes outside a tensor (not a Burn record?)");
      case Node::Array:
        for (size_t k = 0; k < n.kids.size(); ++k) walk(nodes_[n.kids[k]], join(path, std::to_string(k)));
        return;
      case Node::Map: break;
    }
    if (path.empty() && n.kids.empty()) return;
    const Node* param = field(n, "param");
    const Node* id = field(n, "id");
    if (n.kids.size() == 4 && param && id && is_tensor_data(*param)) {  // a Param: {id, param}
      // A quantized tensor's id rides on its values (burn-nn's into_record).
      const std::string id_path = add_tensor(*param, path) ? path + ".values" : path;
      if (id->type == Node::Str) {
        uint64_t u = 0;
        const char* s = buf_.data() + id->off;
        // Burn writes ids as decimal u64 strings; others (older random strings) are not kept. The
        // Int entry holds the u64's bits (burn-nn's ParamId is a uint64_t too).
        const auto [end, ec] = std::from_chars(s, s + id->len, u);
        if (ec == std::errc() && end == s + id->len) ids_.emplace_back(id_path, static_cast<int64_t>(u));
      }
      return;
    }
    if (is_tensor_data(n)) {
      add_tensor(n, path);
      return;
    }
    if (field(n, "value") && field(n, "shape") && n.kids.size() == 4) {
      throw Unsupported(op_, path_ + ": entry '" + path +
                                 "': a tensor in the format of Burn before 0.14 (value, shape); re-save it with a "
                                 "newer Burn");
    }
    for (size_t k = 0; k + 1 < n.kids.size(); k += 2) {
      const std::string key = str(nodes_[n.kids[k]], path, "a map key");
      walk(nodes_[n.kids[k + 1]], join(path, key));
    }
  }

  const BurnDType* dtype_of(const Node& d, const std::string& path) const {
    std::string name;
    if (d.type == Node::Str) {
      name = str(d, path, "dtype");
    } else if (d.type == Node::UInt) {
      if (d.u >= std::size(kNamedMpkDTypes)) throw fail(path, "dtype index " + std::to_string(d.u) + " is unknown");
      return &kNamedMpkDTypes[d.u];
    } else if (d.type == Node::Map && d.kids.size() == 2 && nodes_[d.kids[0]].type == Node::Str) {
      name = str(nodes_[d.kids[0]], path, "dtype");
    } else {
      throw fail(path, "dtype is neither a name nor an index");
    }
    for (const auto& t : kNamedMpkDTypes) {
      if (name == t.name) {
        if (name == "U64") throw Unsupported(op_, path_ + ": entry '" + path + "': dtype U64 has no burn counterpart");
        return &t;
      }
    }
    throw fail(path, "unknown dtype '" + name + "'");
  }

  SerdeValue serde(const Node& n) const {
    SerdeValue v;
    switch (n.type) {
      case Node::Str:
        v.type = SerdeValue::Str;
        v.s.assign(buf_.data() + n.off, n.len);
        break;
      case Node::UInt:
        v.type = SerdeValue::UInt;
        v.u = n.u;
        break;
      case Node::Array:
        v.type = SerdeValue::Array;
        for (uint32_t k : n.kids) v.items.push_back(serde(nodes_[k]));
        break;
      case Node::Map:
        v.type = SerdeValue::Map;
        for (uint32_t k : n.kids) v.items.push_back(serde(nodes_[k]));  // key, value, ...
        break;
      default: break;
    }
    return v;
  }

  // Adds the tensor (a QFloat one as the group of its parts: returns true).
  bool add_tensor(const Node& td, const std::string& path) {
    const Node& bytes = *field(td, "bytes");
    const Node& shape = *field(td, "shape");
    const Node& dtype = *field(td, "dtype");
    if (bytes.type != Node::Bin) throw fail(path, "tensor bytes are not MessagePack bin");
    if (shape.type != Node::Array) throw fail(path, "tensor shape is not an array");
    if (shape.kids.size() > kMaxRank)
      throw fail(path, "rank " + std::to_string(shape.kids.size()) + " exceeds " + std::to_string(kMaxRank));
    std::vector<uint64_t> dims;
    for (uint32_t k : shape.kids) {
      const Node& d = nodes_[k];
      if (d.type != Node::UInt) throw fail(path, "a dim of the shape is not a non-negative integer");
      dims.push_back(d.u);
    }
    if (dtype.type == Node::Map) {
      const SerdeValue dv = serde(dtype);
      const SerdeValue* scheme = nullptr;
      if (is_qfloat(dv, &scheme)) {
        const QFloatLayout q = qfloat_layout(*scheme, dims, bytes.len, path_, path, op_);
        for (const QFloatPart& p : q.parts) {
          add_leaf({path + "." + p.name, EntryKind::Tensor, p.dtype, p.shape, p.bytes},
                   {&bytes, part_dtype(p.dtype), 0, bytes.off + p.offset, p.bytes, p.header});
        }
        return true;
      }
    }
    const BurnDType* dt = dtype_of(dtype, path);
    EntrySizes sizes;
    switch (entry_sizes(dims, dt->size, dtype_size(dt->as), &sizes)) {
      case SizeFault::Elements: throw fail(path, "the shape has more elements than fit in 64 bits");
      case SizeFault::Bytes: throw fail(path, "the shape has more bytes than fit in 64 bits");
      case SizeFault::None: break;
    }
    const uint64_t count = sizes.elements, want = sizes.file_bytes, out = sizes.tensor_bytes;
    if (want != bytes.len) {
      throw fail(path, "holds " + std::to_string(bytes.len) + " bytes, " + std::to_string(count) + " " + dt->name +
                           " elements need " + std::to_string(want));
    }
    add_leaf({path, EntryKind::Tensor, dt->as, Shape(std::move(sizes.dims)), out},
             {&bytes, dt, 0, bytes.off, bytes.len, {}});
    return false;
  }

  // The plain dtype a QFloat part is copied as.
  static const BurnDType* part_dtype(DType d) {
    switch (d) {
      case DType::I64: return mpk_dtype("I64");
      case DType::I8: return mpk_dtype("I8");
      case DType::U8: return mpk_dtype("U8");
      case DType::F16: return mpk_dtype("F16");
      case DType::BF16: return mpk_dtype("BF16");
      default: return mpk_dtype("F32");
    }
  }

  TensorData tensor(const EntryInfo& info, const Leaf& l) const {
    TensorData t = TensorData::uninitialized(info.shape, info.dtype);
    if (!l.header.empty()) {
      std::memcpy(t.raw(), l.header.data(), l.header.size() * sizeof(int64_t));
      return t;
    }
    const char* src = buf_.data() + l.off;
    const size_t n = static_cast<size_t>(l.len);
    const std::string_view name = l.dtype->name;
    auto widen = [&](auto from, auto* to) {
      using From = decltype(from);
      for (size_t k = 0; k < n / sizeof(From); ++k) {
        From v;
        std::memcpy(&v, src + k * sizeof(From), sizeof(From));
        to[k] = v;
      }
    };
    if (name == "I16") {
      widen(int16_t{}, static_cast<int32_t*>(t.raw()));
    } else if (name == "U16") {
      widen(uint16_t{}, static_cast<int32_t*>(t.raw()));
    } else if (name == "U32") {
      widen(uint32_t{}, static_cast<int64_t*>(t.raw()));
    } else {
      if (n) std::memcpy(t.raw(), src, n);
      if (info.dtype == DType::Bool) {
        for (uint8_t b : t.bytes()) {
          if (b > 1) throw fail(info.path, "bool tensor holds byte " + std::to_string(b) + " (only 0 and 1 are valid)");
        }
      }
    }
    return t;
  }

  std::string op_;
  std::string path_;
  std::string buf_;  // the (inflated) file: tensors are copied out of it entry by entry
  std::vector<Node> nodes_;
  Metadata metadata_;
  EntryIndex index_;
  std::vector<Leaf> leaves_;  // per entry of index_
  std::vector<std::pair<std::string, int64_t>> ids_;
};

}  // namespace

std::unique_ptr<RecordReader> open_mpk(const std::string& path, const std::string& op) {
  return std::make_unique<MpkReader>(path, op);
}

}  // namespace burn::record::burn_format
