// Parsing and validating a safetensors file, then reading one tensor at a time.
#include "safetensors_reader.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <nlohmann/json.hpp>

#include "burn/import/reader.hpp"
#include "burn/record/file.hpp"

namespace burn::import::safetensors {

using record::EntryInfo;
using record::EntryKind;
using record::RecordReader;

static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian");

namespace {

constexpr const char* kOp = "import.safetensors";

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

struct Slot {
  const FileDType* dtype;
  uint64_t begin, end;  // relative to the buffer
};

class SafetensorsReader final : public RecordReader {
 public:
  explicit SafetensorsReader(std::string path) : file_(path, kOp), path_(std::move(path)), index_(kOp, path_) {
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
    parse(header, size - buffer_start_);
    metadata_.producer = "safetensors";
  }

  const std::string& path() const override { return path_; }
  const record::Metadata& metadata() const override { return metadata_; }
  const std::vector<EntryInfo>& entries() const override { return index_.entries(); }

 protected:
  record::Value read_leaf(const EntryInfo& info) override {
    const size_t i = static_cast<size_t>(&info - index_.entries().data());
    const Slot& s = slots_.at(i);
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
    return record::Value(std::move(t));
  }

 private:
  RecordError fail(std::string_view entry, const std::string& problem) const {
    return record::record_error(kOp, path_, entry, problem);
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
          metadata_.extra.emplace_back(k, s.get<std::string>());
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
          throw Unsupported(kOp, path_ + ": entry '" + name + "': dtype " + dname + " has no burn counterpart");
        throw fail(name, "unknown dtype '" + dname + "' (known: F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL U16 U32)");
      }
      if (!sh->is_array()) throw fail(name, "shape is a " + kind_of(*sh) + ", not an array");
      if (sh->size() > record::kMaxRank)
        throw fail(name, "rank " + std::to_string(sh->size()) + " exceeds " + std::to_string(record::kMaxRank));
      std::vector<int64_t> dims;
      uint64_t count = 1, counted = 1;  // elements; counted: zero dims as 1, as burn's shapes check
      for (const auto& d : *sh) {
        const uint64_t x = non_negative(d, name, "dim");
        if (x > static_cast<uint64_t>(INT64_MAX) || !record::checked_mul(counted, std::max<uint64_t>(x, 1), &counted) ||
            counted > static_cast<uint64_t>(INT64_MAX))
          throw fail(name, "shape " + sh->dump() + " has more elements than fit in 64 bits");
        count *= x;
        dims.push_back(static_cast<int64_t>(x));
      }
      uint64_t bytes = 0, out_bytes = 0;
      if (!record::checked_mul(count, fd->size, &bytes) || !record::checked_mul(count, dtype_size(fd->as), &out_bytes))
        throw fail(name, "shape " + sh->dump() + " of " + dname + " is more bytes than fit in 64 bits");
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
      pending.push_back({{name, EntryKind::Tensor, fd->as, Shape(std::move(dims)), out_bytes}, {fd, begin, end}});
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
    // In the file's data order, which is the order the writer stored them.
    for (auto& p : pending) {
      const size_t i = index_.add(std::move(p.info));
      slots_.resize(i + 1, Slot{nullptr, 0, 0});
      slots_[i] = p.slot;
    }
  }

  record::InputFile file_;
  std::string path_;
  record::Metadata metadata_;
  EntryIndex index_;
  std::vector<Slot> slots_;  // per entry of index_ (groups: a null dtype)
  uint64_t buffer_start_ = 0;
};

}  // namespace

std::unique_ptr<RecordReader> open_file(const std::string& path) { return std::make_unique<SafetensorsReader>(path); }

}  // namespace burn::import::safetensors
