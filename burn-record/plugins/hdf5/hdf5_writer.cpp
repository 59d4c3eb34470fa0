// The hdf5 recorder's writer: groups, chunked datasets, attributes and the entry index, written
// atomically (a temporary file renamed over the target after fsync).
#include <fcntl.h>
#include <hdf5.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "../bytes.hpp"
#include "../pool.hpp"
#include "burn/record/file.hpp"
#include "burn/record/recorder.hpp"
#include "hdf5_common.hpp"
#include "hdf5_index.hpp"

namespace {

using namespace burn;
using namespace burn::record;
using namespace burn::record::plugin_detail;
using namespace burn::record::hdf5_detail;

class Writer {
 public:
  Writer(const std::string& path, const SaveOptions& options) : path_(path) {
    level_ = options.compression_level < 0 ? 0 : options.compression_level;
    if (level_ > 9) throw fail("", "deflate level " + std::to_string(level_) + " exceeds 9");
    // v1.8+ objects: checksummed metadata, and groups that keep their links' creation order.
    Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST);
    Handle fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
    H5Pset_link_creation_order(fcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    H5Pset_attr_creation_order(fcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    file_ = Handle(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()), H5Fclose);
    if (!file_.valid()) throw fail("", "cannot create the file: " + hdf5_reason());
    // The default (sec2) driver's handle is its file descriptor, used to start write-back early.
    void* handle = nullptr;
    if (H5Pget_driver(fapl.get()) == H5FD_SEC2 && H5Fget_vfd_handle(file_.get(), fapl.get(), &handle) >= 0 && handle) {
      fd_ = *static_cast<int*>(handle);
    }
    gcpl_ = Handle(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
    no_cache_ = no_chunk_cache();
    H5Pset_link_creation_order(gcpl_.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    H5Pset_attr_creation_order(gcpl_.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
  }

  void metadata(const Metadata& m) {
    metadata_ = m;
    const hid_t root = file_.get();
    text_attr(root, "burn.format", kFormat);
    int_attr(root, "burn.layout_version", kLayoutVersion);
    int_attr(root, "burn.format_version", m.format_version);
    text_attr(root, "burn.burn_version", m.burn_version);
    text_attr(root, "burn.producer", m.producer);
    text_attr(root, "burn.dtype_policy", m.dtype_policy);
    for (const auto& [k, v] : m.extra) text_attr(root, "meta." + k, v);
  }

  void record(const Record& r) {
    group(file_.get(), r, "");
    std::vector<EntryInfo> infos;
    for (const auto& f : r.flatten()) {
      EntryInfo e;
      e.path = f.path;
      e.kind = f.value->kind();
      if (e.kind == EntryKind::Tensor) {
        e.dtype = f.value->tensor().dtype();
        e.shape = f.value->tensor().shape();
      }
      infos.push_back(std::move(e));
    }
    uint_attr(file_.get(), "burn.structure_xxh3", structure_digest(metadata_, infos));
    write_index();
  }

  void group(hid_t parent, const Record& r, const std::string& prefix) {
    for (const auto& e : r.entries()) {
      const std::string path = prefix.empty() ? e.name : prefix + "." + e.name;
      const Value& v = e.value;
      if (v.kind() == EntryKind::Group) {
        Handle g(H5Gcreate2(parent, e.name.c_str(), H5P_DEFAULT, gcpl_.get(), H5P_DEFAULT), H5Gclose);
        if (!g.valid()) throw fail(path, "cannot create the group: " + hdf5_reason());
        index_.emplace_back().info = {path, EntryKind::Group, DType::F32, Shape{}, 0};
        group(g.get(), v.group(), path);
      } else if (v.kind() == EntryKind::Tensor) {
        tensor(parent, e.name, path, v.tensor());
      } else {
        scalar(parent, e.name, path, v);
      }
    }
  }

  void close() {
    if (H5Fflush(file_.get(), H5F_SCOPE_GLOBAL) < 0) throw fail("", "flush failed: " + hdf5_reason());
    if (H5Fclose(file_.release()) < 0) throw fail("", "close failed: " + hdf5_reason());
  }

 private:
  RecordError fail(std::string_view entry, const std::string& problem) const {
    return record_error(kOp, path_, entry, problem);
  }

  // Chunk dims holding at most kChunkBytes: the trailing dims whole, the leading ones cut.
  static std::vector<hsize_t> chunk_dims(const std::vector<hsize_t>& dims, size_t elem) {
    std::vector<hsize_t> c = dims;
    uint64_t bytes = elem;
    for (hsize_t d : c) bytes *= d;
    for (size_t i = 0; i < c.size() && bytes > kChunkBytes; ++i) {
      while (c[i] > 1 && bytes > kChunkBytes) {
        const hsize_t half = (c[i] + 1) / 2;
        bytes = bytes / c[i] * half;
        c[i] = half;
      }
    }
    return c;
  }

  void tensor(hid_t parent, const std::string& name, const std::string& path, const TensorData& t) {
    std::vector<hsize_t> dims(t.shape().dims().begin(), t.shape().dims().end());
    if (dims.size() > kMaxRank)
      throw fail(path, "rank " + std::to_string(dims.size()) + " exceeds " + std::to_string(kMaxRank));
    Handle space(
        dims.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
        H5Sclose);
    Handle type = type_of(t.dtype());
    Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_attr_creation_order(dcpl.get(), H5P_CRT_ORDER_TRACKED);
    // Chunked unless there is nothing to chunk (rank 0, or a zero dim: HDF5 chunks are never empty).
    const bool chunked = !dims.empty() && t.num_elements() > 0;
    if (chunked) {
      const auto chunk = chunk_dims(dims, dtype_size(t.dtype()));
      H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data());
      if (level_ > 0) {
        if (dtype_size(t.dtype()) > 1) H5Pset_shuffle(dcpl.get());  // exponent bytes together, as in .bpz
        H5Pset_deflate(dcpl.get(), static_cast<unsigned>(level_));
      }
    }
    Handle ds(H5Dcreate2(parent, name.c_str(), type.get(), space.get(), H5P_DEFAULT, dcpl.get(), no_cache_.get()),
              H5Dclose);
    if (!ds.valid()) throw fail(path, "cannot create the dataset: " + hdf5_reason());
    if (t.num_elements() > 0 && H5Dwrite(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, t.raw()) < 0) {
      throw fail(path, "write failed: " + hdf5_reason());
    }
    // Our checksum of the raw little-endian bytes, verified on load (HDF5 checks its metadata).
    IndexEntry& e = index_.emplace_back();
    e.info = {path, EntryKind::Tensor, t.dtype(), t.shape(), t.bytes().size()};
    e.flags = kHasHash;
    e.hash = XXH3_64bits(t.raw(), t.bytes().size());
    uint_attr(ds.get(), "burn_xxh3", e.hash);
    // Unfiltered data lies in the file as in memory: its places go in the index for direct reads.
    const auto fail_here = [&](const std::string& problem) { return fail(path, problem); };
    if (t.num_elements() == 0 ||
        ((!chunked || level_ == 0) &&
         locate_extents(ds.get(), dcpl.get(), chunked ? H5D_CHUNKED : H5D_CONTIGUOUS, dims, dtype_size(t.dtype()),
                        t.bytes().size(), std::numeric_limits<uint64_t>::max(), e.extents, fail_here))) {
      e.flags |= kDirect;
    } else {
      e.extents.clear();
    }
    write_behind(t.bytes().size());
  }

  // Starts the disk writes of the data written so far every 16 MiB (without waiting), so that the
  // fsync of the commit waits for the last few MiB instead of the whole file.
  void write_behind(uint64_t bytes) {
#ifdef __linux__
    written_ += bytes;
    if (fd_ >= 0 && written_ - started_ >= (16u << 20)) {
      ::sync_file_range(fd_, 0, 0, SYNC_FILE_RANGE_WRITE);
      started_ = written_;
    }
#else
    (void)bytes;
#endif
  }

  void scalar(hid_t parent, const std::string& name, const std::string& path, const Value& v) {
    Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    Handle type;
    const void* data = nullptr;
    int64_t i = 0;
    double f = 0;
    int8_t b = 0;
    std::string text;
    switch (v.kind()) {
      case EntryKind::Int:
        type = Handle(H5Tcopy(H5T_STD_I64LE), H5Tclose);
        i = v.as_int();
        data = &i;
        break;
      case EntryKind::Float:
        type = Handle(H5Tcopy(H5T_IEEE_F64LE), H5Tclose);
        f = v.as_float();
        data = &f;
        break;
      case EntryKind::Bool:
        type = Handle(make_bool(), H5Tclose);
        b = v.as_bool() ? 1 : 0;
        data = &b;
        break;
      case EntryKind::String:
        check_text(v.as_string(), path);
        type = Handle(make_text(v.as_string().size()), H5Tclose);
        text = v.as_string();
        text.resize(std::max<size_t>(1, text.size()), '\0');
        data = text.data();
        break;
      default: return;
    }
    Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_attr_creation_order(dcpl.get(), H5P_CRT_ORDER_TRACKED);
    Handle ds(H5Dcreate2(parent, name.c_str(), type.get(), space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
              H5Dclose);
    if (!ds.valid()) throw fail(path, "cannot create the dataset: " + hdf5_reason());
    if (H5Dwrite(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
      throw fail(path, "write failed: " + hdf5_reason());
    }
    text_attr(ds.get(), "burn_kind", std::string(entry_kind_name(v.kind())));
    const std::string bytes = scalar_bytes(v);
    IndexEntry& e = index_.emplace_back();
    e.info = {path, v.kind(), DType::F32, Shape{}, 0};
    e.info.bytes = v.kind() == EntryKind::Bool ? 1 : v.kind() == EntryKind::String ? 0 : 8;
    e.flags = kHasHash;
    e.hash = XXH3_64bits(bytes.data(), bytes.size());
    uint_attr(ds.get(), "burn_xxh3", e.hash);
  }

  // The entry index (root attribute burn.index), written last: the objects are flushed first so that
  // their headers are final on disk, and each entry takes its link's address and creation order and
  // its header's checksum. Without the sec2 driver (addresses are offsets only there) there is none.
  void write_index() {
    if (fd_ < 0) return;
    if (H5Fflush(file_.get(), H5F_SCOPE_GLOBAL) < 0) throw fail("", "flush failed: " + hdf5_reason());
    struct stat st {};
    if (::fstat(fd_, &st) != 0) return;
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    std::unordered_map<std::string, std::unordered_map<std::string, Link>> groups;  // by parent path
    for (IndexEntry& e : index_) {
      const size_t dot = e.info.path.rfind('.');
      const std::string parent = dot == std::string::npos ? "" : e.info.path.substr(0, dot);
      auto it = groups.find(parent);
      if (it == groups.end()) {
        auto links = links_by_name(file_.get(), h5_path(parent));
        if (!links) throw fail(parent, "cannot list the group: " + hdf5_reason());
        it = groups.emplace(parent, std::unordered_map<std::string, Link>{}).first;
        for (Link& l : *links) it->second.emplace(l.name, std::move(l));
      }
      const auto link = it->second.find(e.info.path.substr(dot == std::string::npos ? 0 : dot + 1));
      if (link == it->second.end() || !link->second.corder_valid) return;  // cannot happen: no index then
      e.addr = link->second.addr;
      e.corder = link->second.corder;
      const auto header = header_checksum(fd_, e.addr, size);
      if (!header) return;
      e.header = *header;
    }
    const std::string bytes = encode_index(index_);
    const hsize_t n = bytes.size();
    Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose);
    Handle a(H5Acreate2(file_.get(), kIndexAttr, H5T_STD_U8LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (!a.valid() || H5Awrite(a.get(), H5T_NATIVE_UINT8, bytes.data()) < 0) {
      throw fail("", std::string("cannot write attribute '") + kIndexAttr + "': " + hdf5_reason());
    }
  }

  void check_text(const std::string& s, std::string_view entry) const {
    // A NUL ends the text when read (padding is NULs), and h5py decodes it as UTF-8.
    if (s.find('\0') != std::string::npos || !valid_utf8(s)) {
      throw fail(entry, "text with a NUL byte or invalid UTF-8 cannot be stored as an HDF5 string");
    }
  }

  void text_attr(hid_t obj, const std::string& name, const std::string& value) {
    check_text(value, name);
    Handle type(make_text(value.size()), H5Tclose);
    Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    Handle a(H5Acreate2(obj, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    std::string padded = value;
    padded.resize(std::max<size_t>(1, padded.size()), '\0');
    if (!a.valid() || H5Awrite(a.get(), type.get(), padded.data()) < 0)
      throw fail("", "cannot write attribute '" + name + "': " + hdf5_reason());
  }

  void int_attr(hid_t obj, const char* name, int64_t value) {
    Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    Handle a(H5Acreate2(obj, name, H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (!a.valid() || H5Awrite(a.get(), H5T_NATIVE_INT64, &value) < 0) {
      throw fail("", std::string("cannot write attribute '") + name + "': " + hdf5_reason());
    }
  }

  void uint_attr(hid_t obj, const char* name, uint64_t value) {
    Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    Handle a(H5Acreate2(obj, name, H5T_STD_U64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (!a.valid() || H5Awrite(a.get(), H5T_NATIVE_UINT64, &value) < 0) {
      throw fail("", std::string("cannot write attribute '") + name + "': " + hdf5_reason());
    }
  }

  std::string path_;
  int level_ = 0;
  int fd_ = -1;  // HDF5's descriptor of the file, or -1
  uint64_t written_ = 0, started_ = 0;
  Metadata metadata_;
  std::vector<IndexEntry> index_;  // in record order
  Handle file_, gcpl_, no_cache_;
};

}  // namespace

namespace burn::record::hdf5_detail {

void write_file(const std::string& path, const Record& record, const Metadata& metadata, const SaveOptions& options) {
  QuietErrors quiet;
  Writer w(path, options);
  w.metadata(metadata);
  w.record(record);
  w.close();
}

}  // namespace burn::record::hdf5_detail
