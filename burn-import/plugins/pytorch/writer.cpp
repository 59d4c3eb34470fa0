// torch.save's zip layout for a record (writer.hpp): the pickle by hand (protocol 2, no memo), the
// archive through libzip with every entry stored and a fixed time, so the same record gives the same bytes.
#include "writer.hpp"

#include <zip.h>

#include <bit>
#include <cstring>
#include <memory>
#include <vector>

#include "burn/record/file.hpp"
#include "unpickler.hpp"

namespace burn::import::pytorch {

static_assert(std::endian::native == std::endian::little, "storages are written as they lie in memory");

namespace {

constexpr const char* kWriterOp = "pytorch";
constexpr const char* kArchive = "archive/";
// 2000-01-01 12:00 UTC as every entry's time: the bytes then depend on the record only (zip stores
// local time: the tests and fixture generators run with TZ=UTC).
constexpr time_t kEntryTime = 946728000;

TorchDType torch_dtype_of(DType d) {
  switch (d) {
    case DType::F64: return TorchDType::F64;
    case DType::F32: return TorchDType::F32;
    case DType::F16: return TorchDType::F16;
    case DType::BF16: return TorchDType::BF16;
    case DType::I64: return TorchDType::I64;
    case DType::I32: return TorchDType::I32;
    case DType::I8: return TorchDType::I8;
    case DType::U8: return TorchDType::U8;
    case DType::Bool: return TorchDType::Bool;
  }
  return TorchDType::F32;
}

// Pickle opcodes of protocol 2 (Python's pickletools names) that torch.load(weights_only=True) accepts.
class PickleWriter {
 public:
  void proto() { out_ += "\x80\x02"; }
  void stop() { out_ += '.'; }
  void mark() { out_ += '('; }
  void tuple() { out_ += 't'; }
  void empty_tuple() { out_ += ')'; }
  void empty_dict() { out_ += '}'; }
  void reduce() { out_ += 'R'; }
  void setitems() { out_ += 'u'; }
  void binpersid() { out_ += 'Q'; }
  void boolean(bool b) { out_ += b ? '\x88' : '\x89'; }
  // GLOBAL "module\nname\n", from a dotted "module.name".
  void global(std::string_view dotted) {
    const size_t dot = dotted.rfind('.');
    out_ += 'c';
    out_.append(dotted.substr(0, dot));
    out_ += '\n';
    out_.append(dotted.substr(dot + 1));
    out_ += '\n';
  }
  void string(std::string_view s) {
    out_ += 'X';
    put_le(s.size(), 4);
    out_.append(s);
  }
  void integer(int64_t v) {
    if (v >= 0 && v < 256) {
      out_ += 'K';
      put_le(static_cast<uint64_t>(v), 1);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      out_ += 'J';
      put_le(static_cast<uint32_t>(static_cast<int32_t>(v)), 4);
    } else {
      out_ += '\x8a';  // LONG1: 8 bytes of two's complement, little-endian
      out_ += '\x08';
      put_le(static_cast<uint64_t>(v), 8);
    }
  }
  void real(double d) {
    out_ += 'G';  // BINFLOAT: big-endian IEEE binary64
    const uint64_t bits = std::bit_cast<uint64_t>(d);
    for (int i = 7; i >= 0; --i) out_ += static_cast<char>((bits >> (8 * i)) & 0xff);
  }
  // collections.OrderedDict() on the stack.
  void ordered_dict() {
    global("collections.OrderedDict");
    empty_tuple();
    reduce();
  }
  std::string take() { return std::move(out_); }

 private:
  void put_le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_ += static_cast<char>((v >> (8 * i)) & 0xff);
  }
  std::string out_;
};

// torch._utils._rebuild_tensor_v2(storage, 0, size, stride, False, OrderedDict()) for a contiguous
// tensor whose storage is the persistent id ('storage', torch.<T>Storage, key, 'cpu', numel).
void tensor(PickleWriter& p, const TensorData& t, const std::string& key) {
  p.global("torch._utils._rebuild_tensor_v2");
  p.mark();
  p.mark();
  p.string("storage");
  p.global(torch_storage_name(torch_dtype_of(t.dtype())));
  p.string(key);
  p.string("cpu");
  p.integer(t.shape().num_elements());
  p.tuple();
  p.binpersid();
  p.integer(0);
  const auto& dims = t.shape().dims();
  p.mark();
  for (int64_t d : dims) p.integer(d);
  p.tuple();
  p.mark();
  int64_t stride = 1;
  std::vector<int64_t> strides(dims.size());
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= std::max<int64_t>(dims[i], 1);
  }
  for (int64_t s : strides) p.integer(s);
  p.tuple();
  p.boolean(false);
  p.ordered_dict();
  p.tuple();
  p.reduce();
}

struct ZipCloser {
  void operator()(zip_t* z) const {
    if (z) zip_discard(z);
  }
};

}  // namespace

std::string state_dict_pickle(const record::Record& record) {
  PickleWriter p;
  p.proto();
  p.ordered_dict();
  p.mark();
  size_t storages = 0;
  for (const record::FlatEntry& e : record.flatten()) {
    const record::Value& v = *e.value;
    if (v.kind() == record::EntryKind::Group && !v.group().empty()) continue;
    p.string(e.path);
    switch (v.kind()) {
      case record::EntryKind::Tensor: tensor(p, v.tensor(), std::to_string(storages++)); break;
      case record::EntryKind::Group: p.empty_dict(); break;
      case record::EntryKind::Int: p.integer(v.as_int()); break;
      case record::EntryKind::Float: p.real(v.as_float()); break;
      case record::EntryKind::Bool: p.boolean(v.as_bool()); break;
      case record::EntryKind::String: p.string(v.as_string()); break;
    }
  }
  p.setitems();
  p.stop();
  return p.take();
}

void write_file(const std::string& path, const record::Record& record) {
  for (const record::FlatEntry& e : record.flatten()) {
    if (!record::valid_utf8(e.path))
      throw record::record_error(kWriterOp, path, e.path, "the name is not valid UTF-8 (a pickle's str needs it)");
    if (e.value->kind() == record::EntryKind::String && !record::valid_utf8(e.value->as_string()))
      throw record::record_error(kWriterOp, path, e.path, "the string is not valid UTF-8 (a pickle's str needs it)");
  }
  const std::string pickle = state_dict_pickle(record);
  int err = 0;
  std::unique_ptr<zip_t, ZipCloser> zip(zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err));
  auto zip_fail = [&](std::string_view entry, const std::string& what) {
    return record::record_error(kWriterOp, path, entry, what + ": " + zip_strerror(zip.get()));
  };
  if (!zip) {
    zip_error_t ze;
    zip_error_init_with_code(&ze, err);
    const std::string why = zip_error_strerror(&ze);
    zip_error_fini(&ze);
    throw record::record_error(kWriterOp, path, "", "cannot create the zip archive: " + why);
  }
  // Entries in torch.save's order: data.pkl, byteorder, the storages, version.
  auto add = [&](const std::string& name, const void* data, size_t size, std::string_view entry) {
    zip_source_t* src = zip_source_buffer(zip.get(), size ? data : nullptr, size, 0);
    if (!src) throw zip_fail(entry, "cannot add '" + name + "'");
    const zip_int64_t i = zip_file_add(zip.get(), (kArchive + name).c_str(), src, ZIP_FL_ENC_UTF_8);
    if (i < 0) {
      zip_source_free(src);
      throw zip_fail(entry, "cannot add '" + name + "'");
    }
    if (zip_set_file_compression(zip.get(), static_cast<zip_uint64_t>(i), ZIP_CM_STORE, 0) != 0 ||
        zip_file_set_mtime(zip.get(), static_cast<zip_uint64_t>(i), kEntryTime, 0) != 0)
      throw zip_fail(entry, "cannot set up '" + name + "'");
  };
  static constexpr char kByteOrder[] = "little";
  static constexpr char kVersion[] = "3\n";
  add("data.pkl", pickle.data(), pickle.size(), "");
  add("byteorder", kByteOrder, std::strlen(kByteOrder), "");
  size_t storages = 0;
  for (const record::FlatEntry& e : record.flatten()) {
    if (e.value->kind() != record::EntryKind::Tensor) continue;
    const TensorData& t = e.value->tensor();
    add("data/" + std::to_string(storages++), t.raw(), t.bytes().size(), e.path);
  }
  add("version", kVersion, std::strlen(kVersion), "");
  if (zip_close(zip.get()) != 0) throw zip_fail("", "cannot write the zip archive");
  (void)zip.release();  // closed
}

}  // namespace burn::import::pytorch
