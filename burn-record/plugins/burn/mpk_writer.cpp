// NamedMpk writer: the record's groups become MessagePack maps (arrays when their children are named
// 0..n-1, as Rust Burn writes a Vec of records), each tensor a Param {id, param: {bytes, shape,
// dtype}} with its id as a decimal string, ints, floats, bools and strings as themselves. The
// `_param_ids` entries that went into a Param are not written again. Then the file is read back.
#include <zlib.h>

#include <cstring>
#include <msgpack.hpp>

#include "burn/record/file.hpp"
#include "burn_format_internal.hpp"

namespace burn::record::burn_format {

namespace {

// What Rust Burn's NamedMpkFileRecorder<FullPrecisionSettings> writes in `metadata` (each kept from
// the record when it came from a Burn file).
constexpr std::pair<const char*, const char*> kBurnMetadata[] = {
    {"float", "f32"},
    {"int", "i64"},
    {"format", "burn::record::file::NamedMpkFileRecorder<burn::record::settings::FullPrecisionSettings>"},
    {"version", "0.18.0"},
    {"settings", "FullPrecisionSettings { }"},
};

class Packer {
 public:
  Packer(const Contents& c, const std::string& file, const char* op) : c_(c), file_(file), op_(op), pk_(buf_) {}

  void root(const Record& record, const Metadata& metadata) {
    pk_.pack_map(2);
    pk_.pack("metadata");
    auto pairs = metadata_pairs(metadata, file_, op_);
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [k, def] : kBurnMetadata) {
      const std::string* v = metadata.find(k);
      out.emplace_back(k, v ? *v : def);
    }
    for (auto& p : pairs) {
      bool burn_key = false;
      for (const auto& [k, def] : kBurnMetadata) burn_key = burn_key || p.first == k;
      if (!burn_key) out.push_back(std::move(p));
    }
    pk_.pack_map(static_cast<uint32_t>(out.size()));
    for (const auto& [k, v] : out) {
      pk_.pack(k);
      pk_.pack(v);
    }
    pk_.pack("item");
    group(record, "");
  }
  const msgpack::sbuffer& buffer() const { return buf_; }

 private:
  static std::string join(const std::string& path, const std::string& name) {
    return path.empty() ? name : path + "." + name;
  }
  // Whether anything of `v` is written (the `_param_ids` entries a Param took are not).
  bool written(const Value& v, const std::string& path) const {
    if (v.kind() != EntryKind::Group) {
      const std::string ids = std::string(kParamIds) + ".";
      return !(path.starts_with(ids) && c_.consumed.contains(path.substr(ids.size())));
    }
    if (v.group().empty()) return true;  // an empty map
    for (const Entry& e : v.group().entries()) {
      if (written(e.value, join(path, e.name))) return true;
    }
    return false;
  }

  void group(const Record& r, const std::string& path) {
    std::vector<const Entry*> kept;
    for (const Entry& e : r.entries()) {
      if (written(e.value, join(path, e.name))) kept.push_back(&e);
    }
    bool array = !kept.empty();
    for (size_t k = 0; k < kept.size() && array; ++k) array = kept[k]->name == std::to_string(k);
    if (kept.size() > UINT32_MAX) throw record_error(op_, file_, path, "more than 2^32 entries in one group");
    if (array) {
      pk_.pack_array(static_cast<uint32_t>(kept.size()));
    } else {
      pk_.pack_map(static_cast<uint32_t>(kept.size()));
    }
    for (const Entry* e : kept) {
      if (!array) pk_.pack(e->name);
      value(e->value, join(path, e->name));
    }
  }

  void value(const Value& v, const std::string& path) {
    switch (v.kind()) {
      case EntryKind::Group: group(v.group(), path); return;
      case EntryKind::Int: pk_.pack(v.as_int()); return;
      case EntryKind::Float: float64(v.as_float()); return;
      case EntryKind::Bool: pk_.pack(v.as_bool()); return;
      case EntryKind::String: pk_.pack(v.as_string()); return;
      case EntryKind::Tensor: tensor(v.tensor(), path); return;
    }
  }

  // Always float 64 (0xcb, big-endian bits): msgpack-cxx's pack_double writes a float that equals an
  // integer as that integer, so 2.0 would come back an Int and -0.0 a 0.
  void float64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    char b[9] = {static_cast<char>(0xcb)};
    for (int k = 0; k < 8; ++k) b[1 + k] = static_cast<char>(bits >> (56 - 8 * k));
    buf_.write(b, sizeof b);
  }

  void tensor(const TensorData& t, const std::string& path) {
    const Contents::Tensor* ct = nullptr;
    while (next_ < c_.tensors.size() && !ct) {  // the walk meets tensors in record order
      if (c_.tensors[next_].path == path) ct = &c_.tensors[next_];
      ++next_;
    }
    if (!ct) throw record_error(op_, file_, path, "internal: the tensor is not in record order");
    const auto bytes = t.bytes();
    if (bytes.size() > UINT32_MAX)
      throw record_error(
          op_, file_, path,
          "tensor of " + std::to_string(bytes.size()) + " bytes exceeds MessagePack's 4 GiB bin limit (save as .bpk)");
    pk_.pack_map(2);
    pk_.pack("id");
    pk_.pack(std::to_string(ct->id));
    pk_.pack("param");
    pk_.pack_map(3);
    pk_.pack("bytes");
    pk_.pack_bin(static_cast<uint32_t>(bytes.size()));
    pk_.pack_bin_body(reinterpret_cast<const char*>(bytes.data()), static_cast<uint32_t>(bytes.size()));
    pk_.pack("shape");
    pk_.pack_array(static_cast<uint32_t>(t.shape().rank()));
    for (const int64_t d : t.shape().dims()) pk_.pack(static_cast<uint64_t>(d));
    pk_.pack("dtype");
    pk_.pack(std::string(burn_dtype_name(t.dtype())));
  }

  const Contents& c_;
  const std::string& file_;
  const char* op_;
  msgpack::sbuffer buf_;
  msgpack::packer<msgpack::sbuffer> pk_;
  size_t next_ = 0;
};

void write_gzip(OutputFile& out, const char* data, size_t size, int level, const std::string& file, const char* op) {
  z_stream z{};
  if (deflateInit2(&z, level < 0 ? Z_DEFAULT_COMPRESSION : std::min(level, 9), Z_DEFLATED, 16 + MAX_WBITS, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK)
    throw record_error(op, file, "", "zlib cannot start");
  char buf[1 << 16];
  size_t fed = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (z.avail_in == 0 && fed < size) {
      const size_t more = std::min<size_t>(size - fed, UINT32_MAX);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data + fed));
      z.avail_in = static_cast<uInt>(more);
      fed += more;
    }
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = deflate(&z, fed == size ? Z_FINISH : Z_NO_FLUSH);
    if (rc == Z_STREAM_ERROR) {
      deflateEnd(&z);
      throw record_error(op, file, "", "zlib failed to compress");
    }
    out.write(buf, sizeof buf - z.avail_out);
  }
  deflateEnd(&z);
}

}  // namespace

void write_mpk(const std::string& path, const Record& record, const Metadata& metadata, bool gzip, int level) {
  const char* op = gzip ? "namedmpkgz" : "namedmpk";
  const Contents c = collect(record, path, op);
  Packer p(c, path, op);
  p.root(record, metadata);
  {
    OutputFile out(path, op);
    if (gzip) {
      write_gzip(out, p.buffer().data(), p.buffer().size(), level, path, op);
    } else {
      out.write(p.buffer().data(), p.buffer().size());
    }
    out.close();
  }
  auto back = open_mpk(path, op);
  verify_written(*back, c, record, true, path, op);
}

}  // namespace burn::record::burn_format
