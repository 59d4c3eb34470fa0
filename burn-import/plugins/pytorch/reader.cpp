// Reading torch.save files. The zip layout (torch >= 1.6): <prefix>/data.pkl pickles the object with
// storages as persistent ids ('storage', type, key, location, numel), each storage's bytes in the
// uncompressed entry <prefix>/data/<key>; <prefix>/byteorder says "little" or "big" (absent: little).
// The legacy layout: pickles of the magic number, the protocol version, the system info and the
// object, then the list of storage keys, then each storage as an 8-byte element count and its bytes.
#include "reader.hpp"

#include <zip.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>

#include "burn/record/file.hpp"
#include "burn/tensor/shape.hpp"
#include "unpickler.hpp"

namespace burn::import::pytorch {

namespace {

using record::EntryInfo;
using record::EntryKind;
using record::Metadata;
using record::RecordReader;
using record::Value;

constexpr const char* kReaderOp = "pytorch";
// The first pickle of a legacy file: PROTO 2, LONG1 of 10 bytes 0x1950a86a20f9469cfc6c, STOP.
constexpr uint8_t kLegacyMagic[] = {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46,
                                    0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, '.'};
constexpr int64_t kLegacyProtocol = 1001;
// Fuzz builds skip the CRC of data.pkl so that mutated pickles reach the unpickler.
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
constexpr bool kFuzzing = true;
#else
constexpr bool kFuzzing = false;
#endif

DType burn_dtype(TorchDType d) {
  switch (d) {
    case TorchDType::F64: return DType::F64;
    case TorchDType::F32: return DType::F32;
    case TorchDType::F16: return DType::F16;
    case TorchDType::BF16: return DType::BF16;
    case TorchDType::I64: return DType::I64;
    case TorchDType::I32:
    case TorchDType::I16: return DType::I32;  // burn has no i16: widened, losslessly
    case TorchDType::I8: return DType::I8;
    case TorchDType::U8: return DType::U8;
    case TorchDType::Bool: return DType::Bool;
  }
  return DType::F32;
}

struct Storage {
  std::string key;
  TorchDType dtype = TorchDType::F32;
  uint64_t numel = 0;      // elements stored
  int64_t zip_index = -1;  // zip: the entry
  bool direct = false;     // legacy, and stored zip entries: the bytes lie at `offset` in the file
  uint64_t offset = 0;
};

uint64_t get_le(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Where a leaf's value comes from.
struct Source {
  const PyObj* obj = nullptr;
  size_t storage = 0;  // tensors: index into the reader's storages
  uint64_t base = 0;   // tensors: elements before the view's storage (legacy storage views)
};

struct Node {
  std::string path;
  EntryKind kind = EntryKind::Group;
  Source source;
  std::vector<size_t> children;
};

bool contiguous(const std::vector<int64_t>& size, const std::vector<int64_t>& stride) {
  int64_t expect = 1;
  for (size_t i = size.size(); i-- > 0;) {
    if (size[i] != 1 && stride[i] != expect) return false;
    expect *= size[i];
  }
  return true;
}

// Copies the strided view (element strides, from src's first element) to dst, row-major.
template <size_t W>
void gather_w(const uint8_t* src, uint8_t* dst, const int64_t* size, const int64_t* stride, size_t rank) {
  if (rank == 1) {
    const int64_t n = size[0], s = stride[0] * static_cast<int64_t>(W);
    for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * static_cast<int64_t>(W), src + i * s, W);
    return;
  }
  int64_t inner = 1;
  for (size_t d = 1; d < rank; ++d) inner *= size[d];
  for (int64_t i = 0; i < size[0]; ++i) {
    gather_w<W>(src + i * stride[0] * static_cast<int64_t>(W), dst + i * inner * static_cast<int64_t>(W), size + 1,
                stride + 1, rank - 1);
  }
}

void gather(const uint8_t* src, uint8_t* dst, size_t w, const std::vector<int64_t>& size,
            const std::vector<int64_t>& stride) {
  if (size.empty()) {
    std::memcpy(dst, src, w);
    return;
  }
  switch (w) {
    case 1: return gather_w<1>(src, dst, size.data(), stride.data(), size.size());
    case 2: return gather_w<2>(src, dst, size.data(), stride.data(), size.size());
    case 4: return gather_w<4>(src, dst, size.data(), stride.data(), size.size());
    default: return gather_w<8>(src, dst, size.data(), stride.data(), size.size());
  }
}

void byteswap(uint8_t* p, size_t n, size_t w) {
  if (w == 1) return;
  for (size_t i = 0; i < n; ++i, p += w) std::reverse(p, p + w);
}

class TorchReader final : public RecordReader {
 public:
  TorchReader(std::string path, const std::string& top_level_key) : path_(std::move(path)) {
    uint8_t head[4] = {};
    {
      record::InputFile probe(path_, kReaderOp);
      if (probe.size() >= 4) probe.read_at(head, 4, 0, "");
    }
    if (std::memcmp(head, "PK\x03\x04", 4) == 0 || std::memcmp(head, "PK\x05\x06", 4) == 0) {
      open_zip();
    } else {
      open_legacy();
    }
    const PyObj* root = pickle_.root;
    if (!top_level_key.empty()) root = below_key(root, top_level_key);
    build(root);
    metadata_.producer = "PyTorch (" + layout_ + ")";
    metadata_.set("pytorch.layout", layout_);
    if (!top_level_key.empty()) metadata_.set("pytorch.top_level_key", top_level_key);
    if (!skipped_.empty()) {
      std::string all;
      for (size_t i = 0; i < skipped_.size() && i < 200; ++i) all += (i ? "\n" : "") + skipped_[i];
      if (skipped_.size() > 200) all += "\n... and " + std::to_string(skipped_.size() - 200) + " more";
      metadata_.set("pytorch.skipped", all);
    }
  }

  const std::string& path() const override { return path_; }
  const Metadata& metadata() const override { return metadata_; }
  const std::vector<EntryInfo>& entries() const override { return infos_; }

 protected:
  Value read_leaf(const EntryInfo& info) override {
    // `info` is normally an element of infos_; otherwise it is looked up by path.
    const auto at = reinterpret_cast<uintptr_t>(&info), first = reinterpret_cast<uintptr_t>(infos_.data());
    size_t i = at >= first ? (at - first) / sizeof(EntryInfo) : infos_.size();
    if (i >= infos_.size() || &infos_[i] != &info) {
      const EntryInfo* found = find(info.path);
      if (!found) throw fail(info.path, "no such entry");
      i = static_cast<size_t>(found - infos_.data());
    }
    const Source& src = sources_[i];
    switch (infos_[i].kind) {
      case EntryKind::Tensor: return Value(read_tensor_data(infos_[i], src));
      case EntryKind::Int: return Value(src.obj->i);
      case EntryKind::Float: return Value(src.obj->f);
      case EntryKind::Bool: return Value(src.obj->i != 0);
      case EntryKind::String: return Value(src.obj->s);
      case EntryKind::Group: break;
    }
    throw fail(info.path, "is a group, not a leaf");
  }

 private:
  RecordError fail(std::string_view entry, const std::string& problem) const {
    return record::record_error(kReaderOp, path_, entry, problem);
  }

  // ---- the zip layout ----
  void open_zip() {
    layout_ = "zip";
    int err = 0;
    archive_.reset(zip_open(path_.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &err));
    zip_ = archive_.get();
    if (!zip_) {
      zip_error_t ze;
      zip_error_init_with_code(&ze, err);
      const std::string why = zip_error_strerror(&ze);
      zip_error_fini(&ze);
      throw fail("", "not a readable zip archive: " + why);
    }
    file_.emplace(path_, kReaderOp);
    const zip_int64_t n = zip_get_num_entries(zip_, 0);
    zip_int64_t pkl = -1;
    for (zip_int64_t i = 0; i < n && pkl < 0; ++i) {
      const char* name = zip_get_name(zip_, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW);
      if (!name) continue;
      const std::string_view s(name);
      if (s == "data.pkl" || (s.ends_with("/data.pkl") && s.find('/') == s.size() - 9)) {
        pkl = i;
        prefix_ = std::string(s.substr(0, s.size() - 8));
      }
    }
    if (pkl < 0) throw fail("", "a zip archive without <name>/data.pkl: not a torch.save file");
    const std::string pkl_name = prefix_ + "data.pkl";
    pkl_bytes_ = read_whole(pkl, pkl_name, kMaxPickleBytes);
    if (const zip_int64_t bo = zip_name_locate(zip_, (prefix_ + "byteorder").c_str(), ZIP_FL_ENC_RAW); bo >= 0) {
      const std::vector<uint8_t> b = read_whole(bo, prefix_ + "byteorder", 16);
      const std::string order(b.begin(), b.end());
      if (order != "little" && order != "big") throw fail(prefix_ + "byteorder", "byte order '" + order + "'");
      big_endian_ = order == "big";
    }
    if (const zip_int64_t v = zip_name_locate(zip_, (prefix_ + "version").c_str(), ZIP_FL_ENC_RAW); v >= 0) {
      const std::vector<uint8_t> b = read_whole(v, prefix_ + "version", 64);
      std::string version(b.begin(), b.end());
      while (!version.empty() && (version.back() == '\n' || version.back() == '\r')) version.pop_back();
      if (!record::valid_utf8(version)) version = "?";
      metadata_.set("pytorch.archive_version", version);
      layout_ += ", archive version " + version;
    }
    pickle_ = unpickle(pkl_bytes_, path_, pkl_name);
  }

  uint64_t zip_size(zip_int64_t index, const std::string& name) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(zip_, static_cast<zip_uint64_t>(index), 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE)) {
      throw fail(name, std::string("cannot stat the zip entry: ") + zip_strerror(zip_));
    }
    return st.size;
  }

  std::vector<uint8_t> read_whole(zip_int64_t index, const std::string& name, uint64_t limit) {
    const uint64_t size = zip_size(index, name);
    if (size > limit) {
      throw fail(
          name, "the entry claims " + std::to_string(size) + " bytes (at most " + std::to_string(limit) + " are read)");
    }
    std::vector<uint8_t> out(static_cast<size_t>(size));
    read_zip(index, name, 0, out.size(), out.data(), !kFuzzing);
    return out;
  }

  // n bytes at `offset` of the entry into dst; `whole` reads to the end so libzip checks the CRC.
  void read_zip(zip_int64_t index, const std::string& name, uint64_t offset, size_t n, uint8_t* dst, bool whole) {
    const auto open = [&] {
      zip_file_t* f = zip_fopen_index(zip_, static_cast<zip_uint64_t>(index), 0);
      if (!f) throw fail(name, std::string("cannot open the zip entry: ") + zip_strerror(zip_));
      return f;
    };
    struct Closer {
      zip_file_t* f;
      ~Closer() {
        if (f) zip_fclose(f);
      }
    } closer{open()};
    zip_file_t* f = closer.f;
    if (offset > 0 && zip_fseek(f, static_cast<zip_int64_t>(offset), SEEK_SET) != 0) {
      // A compressed entry cannot seek (and the failed seek spoils the handle): reopen it and read
      // up to the offset instead.
      zip_fclose(f);
      closer.f = nullptr;
      f = closer.f = open();
      std::vector<uint8_t> skip(std::min<uint64_t>(offset, 1 << 20));
      for (uint64_t left = offset; left > 0;) {
        const zip_int64_t got = zip_fread(f, skip.data(), std::min<uint64_t>(left, skip.size()));
        if (got <= 0) throw fail(name, std::string("the zip entry ends early: ") + zip_file_strerror(f));
        left -= static_cast<uint64_t>(got);
      }
    }
    for (size_t done = 0; done < n;) {
      const zip_int64_t got = zip_fread(f, dst + done, n - done);
      if (got <= 0) {
        throw fail(name, "the zip entry ends after " + std::to_string(offset + done) + " of " +
                             std::to_string(offset + n) + " bytes" +
                             (got < 0 ? ": " + std::string(zip_file_strerror(f)) : ""));
      }
      done += static_cast<size_t>(got);
    }
    if (whole) {
      uint8_t extra = 0;
      const zip_int64_t got = zip_fread(f, &extra, 1);  // end of data: libzip compares the CRC here
      if (got != 0) {
        throw fail(name, got < 0 ? std::string("damaged zip entry: ") + zip_file_strerror(f)
                                 : "the zip entry is longer than its declared size");
      }
    }
  }

  // Where the bytes of an uncompressed (stored) entry lie in the file, so that a storage is read with
  // one pread straight into the tensor: libzip offers no offsets, and its reads pass every byte
  // through a CRC-32 that costs more than the read itself (storages are not CRC-checked; data.pkl is).
  // From the central directory (zip64 included) and the entry's local header, all bounds-checked;
  // when anything does not add up, libzip reads the entry.
  void locate_stored(Storage& s, const std::string& name) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(zip_, static_cast<zip_uint64_t>(s.zip_index), 0, &st) != 0 ||
        !(st.valid & ZIP_STAT_COMP_METHOD) || st.comp_method != ZIP_CM_STORE ||
        ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE)) {
      return;
    }
    if (!central_parsed_) parse_central_directory();
    const auto at = static_cast<size_t>(s.zip_index);
    if (at >= local_headers_.size()) return;
    uint8_t h[30];
    const uint64_t local = local_headers_[at];
    uint64_t end = 0;
    if (!record::checked_add(local, 30, &end) || end > file_->size()) return;
    file_->read_at(h, 30, local, name);
    if (get_le(h, 4) != 0x04034b50 || get_le(h + 26, 2) != name.size()) return;
    std::string local_name(name.size(), '\0');
    file_->read_at(local_name.data(), local_name.size(), local + 30, name);
    if (local_name != name) return;
    const uint64_t data = local + 30 + get_le(h + 26, 2) + get_le(h + 28, 2);
    if (!record::checked_add(data, st.size, &end) || end > file_->size()) {
      throw fail(name, "its " + std::to_string(st.size) + " bytes at " + std::to_string(data) +
                           " run past the end of the file");
    }
    s.direct = true;
    s.offset = data;
  }

  // The local header offset of every central directory record, in libzip's index order.
  void parse_central_directory() {
    central_parsed_ = true;
    const uint64_t size = file_->size();
    const uint64_t tail_len = std::min<uint64_t>(size, 65535 + 22);
    std::vector<uint8_t> tail(static_cast<size_t>(tail_len));
    file_->read_at(tail.data(), tail.size(), size - tail_len, "central directory");
    size_t eocd = std::string::npos;
    for (size_t i = tail.size() >= 22 ? tail.size() - 22 + 1 : 0; i-- > 0;) {
      if (get_le(&tail[i], 4) == 0x06054b50) {
        eocd = i;
        break;
      }
    }
    if (eocd == std::string::npos) return;
    uint64_t count = get_le(&tail[eocd + 10], 2), cd_size = get_le(&tail[eocd + 12], 4),
             cd_off = get_le(&tail[eocd + 16], 4);
    if ((count == 0xffff || cd_size == 0xffffffff || cd_off == 0xffffffff) && eocd >= 20 &&
        get_le(&tail[eocd - 20], 4) == 0x07064b50) {
      const uint64_t z64 = get_le(&tail[eocd - 20 + 8], 8);
      uint8_t r[56];
      uint64_t end = 0;
      if (!record::checked_add(z64, sizeof r, &end) || end > size) return;
      file_->read_at(r, sizeof r, z64, "zip64 end of central directory");
      if (get_le(r, 4) != 0x06064b50) return;
      count = get_le(r + 32, 8);
      cd_size = get_le(r + 40, 8);
      cd_off = get_le(r + 48, 8);
    }
    uint64_t end = 0;
    if (!record::checked_add(cd_off, cd_size, &end) || end > size || count > cd_size / 46) return;
    std::vector<uint8_t> cd(static_cast<size_t>(cd_size));
    file_->read_at(cd.data(), cd.size(), cd_off, "central directory");
    std::vector<uint64_t> offsets;
    size_t p = 0;
    for (uint64_t i = 0; i < count; ++i) {
      if (p + 46 > cd.size() || get_le(&cd[p], 4) != 0x02014b50) return;
      const size_t name_len = get_le(&cd[p + 28], 2), extra_len = get_le(&cd[p + 30], 2),
                   comment_len = get_le(&cd[p + 32], 2);
      if (p + 46 + name_len + extra_len + comment_len > cd.size()) return;
      uint64_t local = get_le(&cd[p + 42], 4);
      if (local == 0xffffffff) {
        // The zip64 extra field holds, in order, the sizes that overflowed and then the offset.
        local = std::numeric_limits<uint64_t>::max();
        size_t skip = (get_le(&cd[p + 24], 4) == 0xffffffff ? 8 : 0) + (get_le(&cd[p + 20], 4) == 0xffffffff ? 8 : 0);
        for (size_t e = p + 46 + name_len; e + 4 <= p + 46 + name_len + extra_len;) {
          const size_t id = get_le(&cd[e], 2), len = get_le(&cd[e + 2], 2);
          if (e + 4 + len > p + 46 + name_len + extra_len) break;
          if (id == 0x0001 && skip + 8 <= len) local = get_le(&cd[e + 4 + skip], 8);
          e += 4 + len;
        }
      }
      offsets.push_back(local);
      p += 46 + name_len + extra_len + comment_len;
    }
    local_headers_ = std::move(offsets);
  }

  // ---- the legacy layout ----
  void open_legacy() {
    file_.emplace(path_, kReaderOp);
    const uint64_t size = file_->size();
    if (size < sizeof kLegacyMagic)
      throw fail("", "a file of " + std::to_string(size) + " bytes is not a torch.save file");
    uint8_t magic[sizeof kLegacyMagic];
    file_->read_at(magic, sizeof magic, 0, "magic number");
    if (std::memcmp(magic, kLegacyMagic, sizeof magic) != 0) {
      throw fail("", "neither a zip archive nor a legacy torch.save file (no magic number)");
    }
    layout_ = "legacy";
    uint64_t pos = sizeof kLegacyMagic;
    // The pickles' lengths are not stored: read a growing window until one parses to its STOP.
    const auto next = [&](const char* what) {
      uint64_t window = 1 << 16;
      while (true) {
        const uint64_t end = std::min<uint64_t>({pos + window, size, pos + kMaxPickleBytes});
        if (head_.size() < end) {
          const size_t have = head_.size();
          head_.resize(static_cast<size_t>(end));
          file_->read_at(head_.data() + have, head_.size() - have, have, what);
        }
        bool truncated = false;
        try {
          Pickle p = unpickle(std::span<const uint8_t>(head_).subspan(pos), path_, what, &truncated);
          pos += p.consumed;
          return p;
        } catch (const RecordError&) {
          if (!truncated || end == size || end == pos + kMaxPickleBytes) throw;
          window *= 4;
        }
      }
    };
    const Pickle protocol = next("protocol version");
    if (protocol.root->kind != PyKind::Int || protocol.root->i != kLegacyProtocol) {
      throw fail("protocol version", "not the legacy protocol " + std::to_string(kLegacyProtocol));
    }
    const Pickle info = next("sys info");
    if (info.root->kind == PyKind::Dict) {
      for (size_t i = 0; i + 1 < info.root->items.size(); i += 2) {
        const PyObj* k = info.root->items[i];
        if (k->kind == PyKind::String && k->s == "little_endian") big_endian_ = info.root->items[i + 1]->i == 0;
      }
    }
    pickle_ = next("data.pkl");
    const Pickle keys = next("storage keys");
    if (keys.root->kind != PyKind::List) throw fail("storage keys", "not a list");
    // The element type of each stored storage, from the references in the data pickle.
    std::unordered_map<std::string, const PyObj*> refs;
    for (const PyObj& o : pickle_.arena) {
      if (o.kind == PyKind::Storage) refs.emplace(o.s, &o);
    }
    for (const PyObj* k : keys.root->items) {
      if (k->kind != PyKind::String)
        throw fail("storage keys", std::string("a key that is a ") + py_kind_name(k->kind));
      const auto ref = refs.find(k->s);
      if (ref == refs.end()) {
        throw fail("storage " + k->s, "listed, but no tensor refers to it (its element size is unknown)");
      }
      Storage s;
      s.key = k->s;
      s.dtype = ref->second->dtype;
      uint8_t count[8];
      file_->read_at(count, 8, pos, "storage " + s.key);
      if (big_endian_) std::reverse(count, count + 8);
      for (int b = 7; b >= 0; --b) s.numel = (s.numel << 8) | count[b];
      uint64_t bytes = 0, end = 0;
      if (!record::checked_mul(s.numel, torch_dtype_size(s.dtype), &bytes) ||
          !record::checked_add(pos + 8, bytes, &end) || end > size) {
        throw fail("storage " + s.key, std::to_string(s.numel) + " " + torch_dtype_name(s.dtype) +
                                           " elements at byte " + std::to_string(pos + 8) +
                                           " run past the end of the file (" + std::to_string(size) + " bytes)");
      }
      s.offset = pos + 8;
      s.direct = true;
      pos = end;
      if (!storage_by_key_.emplace(s.key, storages_.size()).second) throw fail("storage " + s.key, "listed twice");
      storages_.push_back(std::move(s));
    }
    head_.clear();
    head_.shrink_to_fit();
  }

  // ---- the record's structure ----
  const PyObj* below_key(const PyObj* root, const std::string& key) {
    if (root->kind != PyKind::Dict) {
      throw fail(key,
                 std::string("top_level_key given, but the file holds a ") + py_kind_name(root->kind) + ", not a dict");
    }
    std::string known;
    for (size_t i = 0; i + 1 < root->items.size(); i += 2) {
      const PyObj* k = root->items[i];
      if (k->kind != PyKind::String) continue;
      if (k->s == key) return root->items[i + 1];
      if (known.size() < 200) known += (known.empty() ? "" : ", ") + k->s;
    }
    throw fail(key, "no such key at the top level (keys: " + known + ")");
  }

  void skip(const std::string& path, const std::string& why) {
    skipped_.push_back((path.empty() ? "<root>" : path) + ": " + why);
  }

  void build(const PyObj* root) {
    nodes_.emplace_back();  // the root group, not an entry
    if (root->kind == PyKind::Dict || root->kind == PyKind::List || root->kind == PyKind::Tuple) {
      fill(0, root);
    } else {
      place(0, root->kind == PyKind::Tensor ? "tensor" : "value", root);
    }
    // Pre-order, a group's children in insertion order.
    std::vector<size_t> todo(nodes_[0].children.rbegin(), nodes_[0].children.rend());
    while (!todo.empty()) {
      const size_t n = todo.back();
      todo.pop_back();
      Node& node = nodes_[n];
      EntryInfo info;
      info.path = node.path;
      info.kind = node.kind;
      if (node.kind == EntryKind::Tensor) {
        const PyObj* t = node.source.obj;
        info.dtype = burn_dtype(t->dtype);
        info.shape = Shape(t->size);
        info.bytes = static_cast<uint64_t>(info.shape.num_elements()) * dtype_size(info.dtype);
      } else if (node.kind == EntryKind::Int || node.kind == EntryKind::Float) {
        info.bytes = 8;
      } else if (node.kind == EntryKind::Bool) {
        info.bytes = 1;
      } else if (node.kind == EntryKind::String) {
        info.bytes = node.source.obj->s.size();
      }
      infos_.push_back(std::move(info));
      sources_.push_back(node.source);
      todo.insert(todo.end(), node.children.rbegin(), node.children.rend());
    }
    nodes_.clear();
    by_path_.clear();
  }

  // The children of a dict (its keys, dotted keys split into groups) or a list/tuple ("0", "1", ...).
  void fill(size_t node, const PyObj* v) {
    if (v->kind == PyKind::Dict) {
      for (size_t i = 0; i + 1 < v->items.size(); i += 2) {
        const PyObj* k = v->items[i];
        if (k->kind == PyKind::String) {
          place(node, k->s, v->items[i + 1]);
        } else if (k->kind == PyKind::Int) {
          place(node, std::to_string(k->i), v->items[i + 1]);
        } else {
          skip(nodes_[node].path + "[" + py_kind_name(k->kind) + " key]", "only str and int keys become names");
        }
      }
    } else {
      for (size_t i = 0; i < v->items.size(); ++i) place(node, std::to_string(i), v->items[i]);
    }
  }

  size_t add_node(size_t parent, std::string path, EntryKind kind) {
    if (nodes_.size() > kMaxEntries) throw fail(path, "more than " + std::to_string(kMaxEntries) + " entries");
    const size_t id = nodes_.size();
    by_path_.emplace(path, id);
    Node& n = nodes_.emplace_back();
    n.path = std::move(path);
    n.kind = kind;
    nodes_[parent].children.push_back(id);
    return id;
  }

  void place(size_t parent, const std::string& name, const PyObj* v) {
    if (++visits_ > kMaxVisits) {
      throw fail(nodes_[parent].path,
                 "more than " + std::to_string(kMaxVisits) + " values (shared objects count each time)");
    }
    const std::string full = nodes_[parent].path.empty() ? name : nodes_[parent].path + "." + name;
    try {
      record::check_path(full, kReaderOp);
    } catch (const RecordError& e) {
      const std::string what = e.what();
      return skip(full.substr(0, 256), what.substr(std::min(what.size(), what.find("] ") + 2)));
    }
    EntryKind kind = EntryKind::Group;
    switch (v->kind) {
      case PyKind::Dict:
      case PyKind::List:
      case PyKind::Tuple: kind = EntryKind::Group; break;
      case PyKind::Tensor: kind = EntryKind::Tensor; break;
      case PyKind::Int: kind = EntryKind::Int; break;
      case PyKind::Float: kind = EntryKind::Float; break;
      case PyKind::Bool: kind = EntryKind::Bool; break;
      case PyKind::String:
        if (!record::valid_utf8(v->s)) return skip(full, "a string that is not UTF-8");
        kind = EntryKind::String;
        break;
      default: return skip(full, std::string("a ") + py_kind_name(v->kind) + " is not a record value");
    }
    // Walk (and make) the groups of a dotted name.
    size_t at = parent;
    size_t start = 0;
    while (true) {
      const size_t dot = name.find('.', start);
      const bool last = dot == std::string::npos;
      const std::string path = full.substr(0, full.size() - name.size() + (last ? name.size() : dot));
      const auto it = by_path_.find(path);
      if (!last || kind == EntryKind::Group) {
        if (it == by_path_.end()) {
          at = add_node(at, path, EntryKind::Group);
        } else if (nodes_[it->second].kind != EntryKind::Group) {
          return skip(full, "'" + nodes_[it->second].path + "' is already a " +
                                std::string(record::entry_kind_name(nodes_[it->second].kind)));
        } else {
          at = it->second;
        }
        if (last) return fill(at, v);
      } else {
        if (it != by_path_.end()) return skip(full, "the name is already used");
        Source src;
        src.obj = v;
        if (kind == EntryKind::Tensor) check_tensor(full, v, src);
        const size_t id = add_node(at, path, kind);
        nodes_[id].source = src;
        return;
      }
      start = dot + 1;
    }
  }

  // The storage a tensor views (located and sized on first use), and the view inside its bounds.
  void check_tensor(const std::string& path, const PyObj* t, Source& src) {
    const PyObj* st = t->items[0];
    src.storage = storage_index(path, st);
    const Storage& s = storages_[src.storage];
    if (s.dtype != st->dtype) {
      throw fail(path, "storage '" + s.key + "' is read as " + torch_dtype_name(st->dtype) + " and as " +
                           torch_dtype_name(s.dtype));
    }
    src.base = st->view_offset;
    const uint64_t visible = st->numel;
    if (t->offset < 0) throw fail(path, "negative storage offset " + std::to_string(t->offset));
    int64_t last = t->offset;
    bool empty = false;
    for (size_t d = 0; d < t->size.size(); ++d) {
      if (t->size[d] < 0)
        throw fail(path, "negative size " + std::to_string(t->size[d]) + " in dim " + std::to_string(d));
      if (t->stride[d] < 0) {
        throw fail(path, "negative stride " + std::to_string(t->stride[d]) + " in dim " + std::to_string(d));
      }
      if (t->size[d] == 0) empty = true;
    }
    try {
      (void)checked_num_elements(Shape(t->size), kReaderOp);
      if (!empty) {
        for (size_t d = 0; d < t->size.size(); ++d)
          last = checked_add(last, checked_mul(t->size[d] - 1, t->stride[d], kReaderOp), kReaderOp);
      }
    } catch (const ShapeError&) {
      throw fail(path, "the size " + Shape(t->size).to_string() + " with strides overflows int64");
    }
    uint64_t bytes = 0;
    if (!record::checked_mul(static_cast<uint64_t>(checked_num_elements(Shape(t->size), kReaderOp)),
                             dtype_size(burn_dtype(t->dtype)), &bytes)) {
      throw fail(path, "the size " + Shape(t->size).to_string() + " overflows in bytes");
    }
    if (!empty && static_cast<uint64_t>(last) >= visible) {
      throw fail(path, "the view (offset " + std::to_string(t->offset) + ", size " + Shape(t->size).to_string() +
                           ", stride " + Shape(t->stride).to_string() + ") reaches element " + std::to_string(last) +
                           " of storage '" + s.key + "', which holds " + std::to_string(visible));
    }
  }

  size_t storage_index(const std::string& path, const PyObj* st) {
    if (const auto it = storage_by_key_.find(st->s); it != storage_by_key_.end()) {
      if (zip_ && storages_[it->second].numel != static_cast<uint64_t>(st->i)) {
        throw fail(path, "storage '" + st->s + "' is referenced with " + std::to_string(st->i) + " and " +
                             std::to_string(storages_[it->second].numel) + " elements");
      }
      if (!zip_ && st->view_offset + st->numel > storages_[it->second].numel) {
        throw fail(path, "storage '" + st->s + "' holds " + std::to_string(storages_[it->second].numel) +
                             " elements, the pickle says " + std::to_string(st->view_offset + st->numel));
      }
      return it->second;
    }
    if (!zip_) throw fail(path, "storage '" + st->s + "' is not among the file's storages");
    Storage s;
    s.key = st->s;
    s.dtype = st->dtype;
    s.numel = static_cast<uint64_t>(st->i);
    const std::string name = prefix_ + "data/" + s.key;
    s.zip_index = zip_name_locate(zip_, name.c_str(), ZIP_FL_ENC_RAW);
    if (s.zip_index < 0) throw fail(path, "its storage '" + name + "' is missing from the archive");
    const uint64_t size = zip_size(s.zip_index, name);
    uint64_t want = 0;
    if (!record::checked_mul(s.numel, torch_dtype_size(s.dtype), &want) || size != want) {
      throw fail(path, "storage '" + name + "' holds " + std::to_string(size) + " bytes, the pickle says " +
                           std::to_string(s.numel) + " " + torch_dtype_name(s.dtype) + " elements");
    }
    locate_stored(s, name);
    storage_by_key_.emplace(s.key, storages_.size());
    storages_.push_back(std::move(s));
    return storages_.size() - 1;
  }

  // ---- tensor data ----
  void read_storage(const Storage& s, const std::string& entry, uint64_t offset, size_t n, uint8_t* dst) {
    if (s.direct) {
      file_->read_at(dst, n, s.offset + offset, entry);
    } else {
      const uint64_t total = s.numel * torch_dtype_size(s.dtype);
      read_zip(s.zip_index, prefix_ + "data/" + s.key, offset, n, dst, offset == 0 && n == total);
    }
  }

  TensorData read_tensor_data(const EntryInfo& info, const Source& src) {
    const PyObj* t = src.obj;
    const Storage& s = storages_[src.storage];
    const size_t w = torch_dtype_size(s.dtype);
    TensorData out = TensorData::uninitialized(info.shape, info.dtype);
    const size_t n = static_cast<size_t>(info.shape.num_elements());
    if (n == 0) return out;
    const bool widen = s.dtype == TorchDType::I16;
    HostBytes narrow;
    if (widen) narrow.resize(n * w);
    uint8_t* dst = widen ? narrow.data() : static_cast<uint8_t*>(out.raw());
    const uint64_t first = src.base + static_cast<uint64_t>(t->offset);
    if (contiguous(t->size, t->stride)) {
      read_storage(s, info.path, first * w, n * w, dst);  // straight into the tensor
    } else {
      // The span the view touches, then a strided gather (bounds checked at open).
      uint64_t last = 0;
      for (size_t d = 0; d < t->size.size(); ++d) last += static_cast<uint64_t>((t->size[d] - 1) * t->stride[d]);
      const uint64_t span = (last + 1) * w;
      if (span > max_alloc_bytes()) {
        throw OutOfMemory(kReaderOp,
                          path_ + ": entry '" + info.path + "': a view spanning " + std::to_string(span) + " bytes");
      }
      HostBytes buf(static_cast<size_t>(span));
      read_storage(s, info.path, first * w, buf.size(), buf.data());
      gather(buf.data(), dst, w, t->size, t->stride);
    }
    if (big_endian_) byteswap(dst, n, w);
    if (widen) {
      auto* o = static_cast<int32_t*>(out.raw());
      for (size_t i = 0; i < n; ++i) {
        int16_t v;
        std::memcpy(&v, dst + 2 * i, 2);
        o[i] = v;
      }
    }
    if (s.dtype == TorchDType::Bool) {
      for (size_t i = 0; i < n; ++i) dst[i] = dst[i] != 0;
    }
    return out;
  }

  std::string path_;
  std::string layout_;
  Metadata metadata_;
  // Freed by a member (not the destructor), so that a constructor that throws frees it too.
  std::unique_ptr<zip_t, decltype(&zip_discard)> archive_{nullptr, &zip_discard};
  zip_t* zip_ = nullptr;                   // archive_.get()
  std::optional<record::InputFile> file_;  // the legacy layout, and stored zip entries
  bool central_parsed_ = false;
  std::vector<uint64_t> local_headers_;  // zip: local header offsets by entry index
  std::string prefix_;                   // zip: "archive/"
  bool big_endian_ = false;
  std::vector<uint8_t> pkl_bytes_, head_;
  Pickle pickle_;
  std::vector<Storage> storages_;
  std::unordered_map<std::string, size_t> storage_by_key_;
  std::vector<Node> nodes_;                          // while building
  std::unordered_map<std::string, size_t> by_path_;  // while building: nodes_ by path
  size_t visits_ = 0;
  std::vector<std::string> skipped_;
  std::vector<EntryInfo> infos_;
  std::vector<Source> sources_;  // parallel to infos_
};

}  // namespace

std::unique_ptr<RecordReader> open_file(const std::string& path, const std::string& top_level_key) {
  return std::make_unique<TorchReader>(path, top_level_key);
}

bool looks_like_pytorch(std::span<const uint8_t> head) {
  if (head.size() >= sizeof kLegacyMagic && std::memcmp(head.data(), kLegacyMagic, sizeof kLegacyMagic) == 0) {
    return true;
  }
  if (head.size() < 30 || std::memcmp(head.data(), "PK\x03\x04", 4) != 0) return false;
  // torch writes <prefix>/data.pkl first; its name follows the 30-byte local header.
  const size_t len = head[26] | (head[27] << 8);
  if (30 + len > head.size()) return false;
  const std::string_view name(reinterpret_cast<const char*>(head.data()) + 30, len);
  return name == "data.pkl" || name.ends_with("/data.pkl");
}

}  // namespace burn::import::pytorch
