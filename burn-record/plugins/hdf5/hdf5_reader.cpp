// The hdf5 recorder's reader: the file walked and checked against its entry index before any
// tensor is allocated, then lazy loads (direct reads of unfiltered chunks, HDF5 for the rest).
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

struct Node {
  EntryInfo info;
  std::string h5path;  // "/blocks/0/weight"
  bool has_hash = false;
  uint64_t hash = 0;
  bool direct = false;          // read with pread from `extents` (tiling the tensor), not through HDF5
  std::vector<Extent> extents;  // in tensor order
  bool indexed = false;         // from burn.index: a read through HDF5 first checks the dataset against it
};

// What a dataset's file type is in burn's terms; nullopt for a type we do not read.
std::optional<DType> dtype_of_type(hid_t t) {
  const H5T_class_t cls = H5Tget_class(t);
  const size_t size = H5Tget_size(t);
  if (cls == H5T_FLOAT) {
    size_t spos = 0, epos = 0, esize = 0, mpos = 0, msize = 0;
    H5Tget_fields(t, &spos, &epos, &esize, &mpos, &msize);
    if (size == 4 && esize == 8 && msize == 23) return DType::F32;
    if (size == 8 && esize == 11 && msize == 52) return DType::F64;
    if (size == 2 && esize == 5 && msize == 10 && H5Tget_ebias(t) == 15) return DType::F16;
    if (size == 2 && esize == 8 && msize == 7 && H5Tget_ebias(t) == 127) return DType::BF16;
    return std::nullopt;
  }
  if (cls == H5T_INTEGER) {
    const bool sign = H5Tget_sign(t) == H5T_SGN_2;
    if (sign && size == 8) return DType::I64;
    if (sign && size == 4) return DType::I32;
    if (sign && size == 1) return DType::I8;
    if (!sign && size == 1) return DType::U8;
    return std::nullopt;
  }
  if (cls == H5T_ENUM && size == 1) {
    // h5py's bool: two members, FALSE = 0 and TRUE = 1.
    if (H5Tget_nmembers(t) != 2) return std::nullopt;
    int8_t v = -1;
    char* name0 = H5Tget_member_name(t, 0);
    char* name1 = H5Tget_member_name(t, 1);
    const bool names = name0 && name1 && std::strcmp(name0, "FALSE") == 0 && std::strcmp(name1, "TRUE") == 0;
    H5free_memory(name0);
    H5free_memory(name1);
    if (!names || H5Tget_member_value(t, 0, &v) < 0 || v != 0 || H5Tget_member_value(t, 1, &v) < 0 || v != 1) {
      return std::nullopt;
    }
    return DType::Bool;
  }
  return std::nullopt;
}

class Hdf5Reader final : public RecordReader {
 public:
  explicit Hdf5Reader(std::string path) : path_(std::move(path)) {
    QuietErrors quiet;
    {
      InputFile probe(path_, kOp);  // a clear message for a missing, empty or non-regular file
      if (probe.size() == 0) throw fail("", "the file is empty");
    }
    if (H5Fis_hdf5(path_.c_str()) <= 0) throw fail("", "not an HDF5 file (no HDF5 signature)");
    Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    // Files are opened read-only; nothing here follows external links or external storage.
    file_ = Handle(H5Fopen(path_.c_str(), H5F_ACC_RDONLY, fapl.get()), H5Fclose);
    if (!file_.valid()) throw fail("", open_failure(hdf5_reason()));
    direct_setup();
    read_metadata();
    if (!use_index()) walk(file_.get(), "", "", 0);
    check_extents();
    const auto digest = u64_attr(file_.get(), "burn.structure_xxh3", "");
    if (burn_file_ && !digest) throw fail("", "the attribute burn.structure_xxh3 is missing (damaged?)");
    if (digest && !kFuzzing && *digest != structure_digest(metadata_, infos_)) {
      throw fail(
          "", "its groups, datasets or metadata differ from what was saved (burn.structure_xxh3 mismatch: damaged?)");
    }
  }

  const std::string& path() const override { return path_; }
  const Metadata& metadata() const override { return metadata_; }
  const std::vector<EntryInfo>& entries() const override { return infos_; }

 protected:
  Value read_leaf(const EntryInfo& info) override {
    try {
      return read_leaf_quietly(info);
    } catch (...) {
      after_failed_read();
      throw;
    }
  }

 private:
  Value read_leaf_quietly(const EntryInfo& info) {
    QuietErrors quiet;
    const Node& n = nodes_.at(static_cast<size_t>(&info - infos_.data()));
    if (n.direct) return Value(read_direct(n));
    Handle dapl = no_chunk_cache();
    Handle ds(H5Dopen2(file_.get(), n.h5path.c_str(), dapl.get()), H5Dclose);
    if (!ds.valid()) throw fail(info.path, "cannot open the dataset: " + hdf5_reason());
    if (n.indexed) check_against_index(ds.get(), n);
    switch (info.kind) {
      case EntryKind::Tensor: {
        TensorData t = TensorData::uninitialized(info.shape, info.dtype);  // H5Dread writes every element
        Handle mem = type_of(info.dtype);
        if (t.num_elements() > 0 && H5Dread(ds.get(), mem.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, t.raw()) < 0) {
          throw fail(info.path, "read failed: " + hdf5_reason());
        }
        if (n.has_hash && XXH3_64bits(t.raw(), t.bytes().size()) != n.hash && !kFuzzing) {
          throw fail(info.path, "checksum mismatch (the data is damaged)");
        }
        if (info.dtype == DType::Bool) {
          for (uint8_t b : t.bytes()) {
            if (b > 1) throw fail(info.path, "bool tensor holds byte " + std::to_string(b));
          }
        }
        return Value(std::move(t));
      }
      case EntryKind::Group: break;
      default: return checked(n, read_scalar(ds.get(), info));
    }
    throw fail(info.path, "not a leaf");
  }

  Value read_scalar(hid_t ds, const EntryInfo& info) {
    switch (info.kind) {
      case EntryKind::Int: {
        int64_t v = 0;
        if (H5Dread(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) < 0)
          throw fail(info.path, "read failed: " + hdf5_reason());
        return Value(v);
      }
      case EntryKind::Float: {
        double v = 0;
        if (H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) < 0)
          throw fail(info.path, "read failed: " + hdf5_reason());
        return Value(v);
      }
      case EntryKind::Bool: {
        Handle mem(make_bool(), H5Tclose);
        int8_t v = 0;
        if (H5Dread(ds, mem.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) < 0)
          throw fail(info.path, "read failed: " + hdf5_reason());
        if (v != 0 && v != 1) throw fail(info.path, "bool holds " + std::to_string(v));
        return Value(v == 1);
      }
      default: return Value(read_text(ds, info.path));
    }
  }

  Value checked(const Node& n, Value v) {
    if (n.has_hash && !kFuzzing) {
      const std::string bytes = scalar_bytes(v);
      if (XXH3_64bits(bytes.data(), bytes.size()) != n.hash)
        throw fail(n.info.path, "checksum mismatch (the value is damaged)");
    }
    return v;
  }

  RecordError fail(std::string_view entry, const std::string& problem) const {
    return record_error(kOp, path_, entry, problem);
  }

  // A scalar fixed-length string dataset or attribute, at most 16 MiB. Variable-length strings are
  // refused: their bytes sit in the global heap, which HDF5 does not checksum, and libhdf5 1.10
  // crashes on a damaged one (found by this recorder's tests).
  std::string read_string(hid_t obj, bool attribute, std::string_view what) {
    Handle ftype(attribute ? H5Aget_type(obj) : H5Dget_type(obj), H5Tclose);
    Handle space(attribute ? H5Aget_space(obj) : H5Dget_space(obj), H5Sclose);
    if (!ftype.valid() || H5Tget_class(ftype.get()) != H5T_STRING) throw fail(what, "is not a string");
    if (!space.valid() || H5Sget_simple_extent_type(space.get()) != H5S_SCALAR)
      throw fail(what, "is not a scalar string");
    if (H5Tis_variable_str(ftype.get()) != 0) {
      throw fail(what,
                 "is a variable-length string; only fixed-length strings are read (h5py: np.bytes_ or "
                 "h5py.string_dtype(length=n))");
    }
    const size_t n = H5Tget_size(ftype.get());
    if (n == 0 || n > (1u << 24)) throw fail(what, "a fixed-length string of " + std::to_string(n) + " bytes");
    std::string s(n, '\0');
    Handle mem(H5Tcopy(ftype.get()), H5Tclose);  // same size and character set: no conversion
    H5Tset_strpad(mem.get(), H5T_STR_NULLPAD);
    const herr_t rc = attribute ? H5Aread(obj, mem.get(), s.data())
                                : H5Dread(obj, mem.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, s.data());
    if (rc < 0) throw fail(what, "read failed: " + hdf5_reason());
    s.resize(strnlen(s.data(), n));
    return s;
  }

  std::string read_text(hid_t ds, std::string_view entry) { return read_string(ds, false, entry); }

  // Whether an attribute exists; a failure to tell (damaged attribute storage) is an error.
  bool has_attr(hid_t obj, const char* name, std::string_view entry) {
    const htri_t e = H5Aexists(obj, name);
    if (e < 0) throw fail(entry, std::string("cannot look for attribute '") + name + "': " + hdf5_reason());
    return e > 0;
  }

  std::optional<std::string> text_attr(hid_t obj, const char* name, std::string_view entry) {
    if (!has_attr(obj, name, entry)) return std::nullopt;
    Handle a(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
    if (!a.valid()) throw fail(entry, std::string("cannot open attribute '") + name + "': " + hdf5_reason());
    return read_string(a.get(), true, entry.empty() ? std::string_view(name) : entry);
  }

  std::optional<uint64_t> u64_attr(hid_t obj, const char* name, std::string_view entry) {
    if (!has_attr(obj, name, entry)) return std::nullopt;
    Handle a(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
    Handle space(H5Aget_space(a.get()), H5Sclose);
    Handle type(H5Aget_type(a.get()), H5Tclose);
    if (!space.valid() || H5Sget_simple_extent_type(space.get()) != H5S_SCALAR ||
        H5Tget_class(type.get()) != H5T_INTEGER) {
      throw fail(entry, std::string("attribute '") + name + "' is not a scalar integer");
    }
    uint64_t v = 0;
    if (H5Aread(a.get(), H5T_NATIVE_UINT64, &v) < 0)
      throw fail(entry, std::string("cannot read attribute '") + name + "'");
    return v;
  }

  void read_metadata() {
    const hid_t root = file_.get();
    // Files written by h5py or other tools have no burn attributes: they read with defaults.
    if (const auto f = text_attr(root, "burn.format", "")) {
      if (*f != kFormat) throw fail("", "attribute burn.format is '" + f->substr(0, 60) + "', not '" + kFormat + "'");
      burn_file_ = true;
    }
    if (const auto v = u64_attr(root, "burn.layout_version", ""); v && *v != static_cast<uint64_t>(kLayoutVersion)) {
      throw fail("", "layout version " + std::to_string(*v) + ", this reader knows " + std::to_string(kLayoutVersion));
    }
    if (const auto v = u64_attr(root, "burn.format_version", "")) {
      if (*v > std::numeric_limits<uint32_t>::max())
        throw fail("", "burn.format_version " + std::to_string(*v) + " is out of range");
      metadata_.format_version = static_cast<uint32_t>(*v);
    }
    if (auto v = text_attr(root, "burn.burn_version", "")) metadata_.burn_version = *v;
    if (auto v = text_attr(root, "burn.producer", "")) metadata_.producer = *v;
    if (auto v = text_attr(root, "burn.dtype_policy", "")) metadata_.dtype_policy = *v;
    // Free keys, in creation order where the file tracks it.
    std::vector<std::string> names;
    auto collect = [](hid_t, const char* name, const H5A_info_t*, void* out) -> herr_t {
      static_cast<std::vector<std::string>*>(out)->emplace_back(name);
      return 0;
    };
    hsize_t idx = 0;
    if (H5Aiterate2(root, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, collect, &names) < 0) {
      names.clear();
      idx = 0;
      H5Aiterate2(root, H5_INDEX_NAME, H5_ITER_INC, &idx, collect, &names);
    }
    for (const auto& n : names) {
      if (n.rfind("meta.", 0) == 0) metadata_.extra.emplace_back(n.substr(5), *text_attr(root, n.c_str(), n));
    }
  }

  // Every link of a group in creation order (name order for files that do not track it).
  std::vector<Link> links(hid_t group, std::string_view where) {
    std::vector<Link> out;
    hsize_t idx = 0;
    if (H5Literate(group, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, collect_link, &out) < 0) {
      out.clear();
      idx = 0;
      if (H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, &idx, collect_link, &out) < 0) {
        throw fail(where, "cannot list the group: " + hdf5_reason());
      }
    }
    return out;
  }

  void walk(hid_t group, const std::string& prefix, const std::string& h5prefix, size_t depth) {
    if (depth >= kMaxDepth) throw fail(prefix, "groups nest deeper than " + std::to_string(kMaxDepth) + " levels");
    for (const Link& link : links(group, prefix)) {
      const std::string& name = link.name;
      const H5L_type_t type = link.type;
      const haddr_t addr = link.addr;
      const std::string path = prefix.empty() ? name : prefix + "." + name;
      const std::string h5path = h5prefix + "/" + name;
      if (name.find('.') != std::string::npos) throw fail(path, "a name inside a group cannot contain '.'");
      check_entry_name(path_, path);
      // Soft and external links could point anywhere, even into another file: refused.
      if (type != H5L_TYPE_HARD) throw fail(path, "is a soft or external link; only hard links are read");
      // One open per object, its kind from the handle: H5Oget_info_by_name and a second open cost
      // a sixth of the walk.
      Handle obj(H5Oopen(group, name.c_str(), H5P_DEFAULT), H5Oclose);
      if (!obj.valid()) throw fail(path, "cannot open: " + hdf5_reason());
      Node node;
      node.info.path = path;
      node.h5path = h5path;
      const H5I_type_t kind = H5Iget_type(obj.get());
      if (kind == H5I_GROUP) {
        // A group reached twice (a hard link cycle) would recurse forever.
        if (!visited_.insert(addr).second) throw fail(path, "the same group is linked twice (a cycle)");
        node.info.kind = EntryKind::Group;
        push(std::move(node));
        walk(obj.get(), path, h5path, depth + 1);
      } else if (kind == H5I_DATASET) {
        inspect(obj.get(), node);
        push(std::move(node));
      } else {
        throw fail(path, "is neither a group nor a dataset");
      }
    }
  }

  // Takes the entries from burn.index when the file has one that agrees with its links and object
  // headers; false (the caller walks the file) when it has none or it is stale (the file was edited).
  // BURN_HDF5_INDEX=off never uses it, =require makes a file without a usable one an error (tests).
  bool use_index() {
    const char* env = std::getenv("BURN_HDF5_INDEX");
    const std::string_view mode = env ? env : "";
    if (mode == "off") return false;
    std::string why;
    std::vector<IndexEntry> entries;
    if (fd_ < 0) {
      why = "its HDF5 addresses are not file offsets";
    } else if (!has_attr(file_.get(), kIndexAttr, "")) {
      why = "the file has none (written by another tool or an older burn)";
    } else if (parse_index(path_, read_index_bytes(), entries, why) &&
               index_matches(file_.get(), fd_, file_size_, entries, why)) {
      for (IndexEntry& e : entries) {
        Node node;
        node.h5path = h5_path(e.info.path);
        node.info = std::move(e.info);
        node.has_hash = e.flags & kHasHash;
        node.hash = e.hash;
        node.direct = e.flags & kDirect;
        node.extents = std::move(e.extents);
        node.indexed = true;
        push(std::move(node));
      }
      return true;
    }
    if (mode == "require") throw fail("", std::string("the entry index ") + kIndexAttr + " is not used: " + why);
    return false;
  }

  std::string read_index_bytes() {
    Handle a(H5Aopen(file_.get(), kIndexAttr, H5P_DEFAULT), H5Aclose);
    Handle space(H5Aget_space(a.get()), H5Sclose);
    Handle type(H5Aget_type(a.get()), H5Tclose);
    hsize_t n = 0;
    if (!space.valid() || !type.valid() || H5Tget_class(type.get()) != H5T_INTEGER || H5Tget_size(type.get()) != 1 ||
        H5Sget_simple_extent_ndims(space.get()) != 1 || H5Sget_simple_extent_dims(space.get(), &n, nullptr) != 1) {
      throw fail("", std::string("attribute ") + kIndexAttr + " is not a list of bytes (damaged?)");
    }
    if (n > file_size_) {
      throw fail("", std::string("attribute ") + kIndexAttr + " claims " + std::to_string(n) +
                         " bytes, more than the file's " + std::to_string(file_size_));
    }
    std::string bytes(static_cast<size_t>(n), '\0');
    if (n > 0 && H5Aread(a.get(), H5T_NATIVE_UINT8, bytes.data()) < 0) {
      throw fail("", std::string("cannot read attribute ") + kIndexAttr + ": " + hdf5_reason());
    }
    return bytes;
  }

  // A dataset read through HDF5 on the index's word is checked first as the walk would have: its
  // kind, dtype, shape, hash and storage (inspect() refuses what the walk refuses).
  void check_against_index(hid_t ds, const Node& n) {
    Node fresh;
    fresh.info.path = n.info.path;
    inspect(ds, fresh);
    const EntryInfo& a = fresh.info;
    const EntryInfo& b = n.info;
    if (a.kind != b.kind || a.bytes != b.bytes || fresh.has_hash != n.has_hash || fresh.hash != n.hash ||
        (a.kind == EntryKind::Tensor && (a.dtype != b.dtype || a.shape != b.shape))) {
      throw fail(b.path, std::string("the dataset differs from its entry in attribute ") + kIndexAttr +
                             " (kind, dtype, shape or hash): the entry index is damaged");
    }
  }

  void push(Node node) {
    infos_.push_back(node.info);
    nodes_.push_back(std::move(node));
  }

  // Kind, dtype, shape and size of a dataset, checked against its storage before anything is read.
  void inspect(hid_t ds, Node& node) {
    EntryInfo& info = node.info;
    Handle dcpl(H5Dget_create_plist(ds), H5Pclose);
    if (!dcpl.valid()) throw fail(info.path, "cannot read its creation properties");
    // External raw storage names other files, virtual datasets other datasets: refused.
    if (H5Pget_external_count(dcpl.get()) != 0) throw fail(info.path, "stores its data in external files");
    const H5D_layout_t layout = H5Pget_layout(dcpl.get());
    if (layout != H5D_CONTIGUOUS && layout != H5D_CHUNKED && layout != H5D_COMPACT) {
      throw fail(info.path, "has a layout this reader does not accept (virtual?)");
    }
    const int nfilters = H5Pget_nfilters(dcpl.get());
    // Only filters whose output size is bounded: deflate (at most ~1032:1), shuffle, fletcher32.
    for (int i = 0; i < nfilters; ++i) {
      unsigned flags = 0, config = 0;
      size_t nelmts = 0;
      char fname[64] = {};
      const H5Z_filter_t id =
          H5Pget_filter2(dcpl.get(), static_cast<unsigned>(i), &flags, &nelmts, nullptr, sizeof fname, fname, &config);
      if (id != H5Z_FILTER_DEFLATE && id != H5Z_FILTER_SHUFFLE && id != H5Z_FILTER_FLETCHER32) {
        throw fail(info.path, "uses HDF5 filter " + std::to_string(id) + " ('" + std::string(fname) +
                                  "'); only deflate, shuffle and fletcher32 are read");
      }
    }
    Handle type(H5Dget_type(ds), H5Tclose);
    Handle space(H5Dget_space(ds), H5Sclose);
    if (!type.valid() || !space.valid()) throw fail(info.path, "cannot read its type or dataspace");
    const H5S_class_t sclass = H5Sget_simple_extent_type(space.get());
    if (const auto h = u64_attr(ds, "burn_xxh3", info.path)) {
      node.has_hash = true;
      node.hash = *h;
    }
    const auto kind = text_attr(ds, "burn_kind", info.path);
    if (kind && *kind != "tensor") {
      if (sclass != H5S_SCALAR) throw fail(info.path, "a " + kind->substr(0, 20) + " that is not a scalar dataset");
      const H5T_class_t cls = H5Tget_class(type.get());
      if (*kind == "int" && cls == H5T_INTEGER) {
        info.kind = EntryKind::Int;
        info.bytes = 8;
      } else if (*kind == "float" && cls == H5T_FLOAT) {
        info.kind = EntryKind::Float;
        info.bytes = 8;
      } else if (*kind == "bool" && dtype_of_type(type.get()) == DType::Bool) {
        info.kind = EntryKind::Bool;
        info.bytes = 1;
      } else if (*kind == "string" && cls == H5T_STRING) {
        info.kind = EntryKind::String;
      } else {
        throw fail(info.path, "burn_kind '" + kind->substr(0, 20) + "' does not match the dataset's type");
      }
      return;
    }
    if (H5Tget_class(type.get()) == H5T_STRING) {  // a string written by another tool
      if (sclass != H5S_SCALAR) throw fail(info.path, "arrays of strings are not read");
      info.kind = EntryKind::String;
      return;
    }
    const auto dtype = dtype_of_type(type.get());
    if (!dtype) throw fail(info.path, "its HDF5 datatype has no burn dtype");
    info.kind = EntryKind::Tensor;
    info.dtype = *dtype;
    if (sclass == H5S_NULL) throw fail(info.path, "has an empty (null) dataspace");
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank < 0 || rank > static_cast<int>(kMaxRank))
      throw fail(info.path, "rank " + std::to_string(rank) + " is not accepted");
    std::vector<hsize_t> dims(static_cast<size_t>(rank));
    if (rank > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    uint64_t bytes = dtype_size(info.dtype);
    std::vector<int64_t> shape;
    for (hsize_t d : dims) {
      if (d > static_cast<hsize_t>(std::numeric_limits<int64_t>::max()) || !checked_mul(bytes, d, &bytes)) {
        throw fail(info.path, "the byte size of its shape overflows");
      }
      shape.push_back(static_cast<int64_t>(d));
    }
    info.shape = Shape(std::move(shape));
    info.bytes = bytes;
    if (bytes == 0 || (nfilters == 0 && plan_direct(ds, dcpl.get(), layout, type.get(), dims, node))) {
      node.direct = true;  // checked against the file and the other entries by check_extents()
      return;
    }
    // Without filters the data must all be in the file (a 2^40-element dataset in a small file is a
    // lie, refused before allocating); filtered data is bounded by its checksum and decompression.
    if (bytes > 0) {
      const hsize_t stored = H5Dget_storage_size(ds);
      const hsize_t elem = H5Tget_size(type.get());
      uint64_t need = elem;
      for (hsize_t d : dims) {
        if (!checked_mul(need, d, &need)) need = std::numeric_limits<uint64_t>::max();
      }
      if (nfilters == 0 && stored < need) {
        throw fail(info.path, "stores " + std::to_string(stored) + " bytes, its shape needs " + std::to_string(need));
      }
      // Deflate expands at most about 1032 times: more than that is a lie (or a bomb).
      uint64_t bound = 0;
      if (nfilters > 0 && (!checked_mul(stored, 1032, &bound) || need > bound + (1u << 20))) {
        throw fail(info.path, "claims " + std::to_string(need) + " bytes from " + std::to_string(stored) +
                                  " compressed bytes, more than deflate can expand to");
      }
    }
  }

  // Direct reads need HDF5's own descriptor (the file it opened, even if the path was replaced
  // since) and a superblock at byte 0 with base address 0, so that HDF5's addresses are offsets.
  void direct_setup() {
    Handle fapl(H5Fget_access_plist(file_.get()), H5Pclose);
    void* handle = nullptr;
    if (!fapl.valid() || H5Pget_driver(fapl.get()) != H5FD_SEC2 ||
        H5Fget_vfd_handle(file_.get(), fapl.get(), &handle) < 0 || !handle) {
      return;
    }
    const int fd = *static_cast<int*>(handle);
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
    unsigned char sb[48] = {};
    if (::pread(fd, sb, sizeof sb, 0) != static_cast<ssize_t>(sizeof sb)) return;
    static const unsigned char kSignature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    if (std::memcmp(sb, kSignature, 8) != 0) return;  // a user block: addresses are relative to it
    // Where the base address sits in each superblock version, and the size of addresses.
    size_t at = 0, width = 0;
    if (sb[8] == 0 || sb[8] == 1) {
      at = sb[8] == 0 ? 24 : 28;
      width = sb[13];
    } else if (sb[8] == 2 || sb[8] == 3) {
      at = 12;
      width = sb[9];
    } else {
      return;
    }
    if (width == 0 || width > 8 || at + width > sizeof sb) return;
    for (size_t i = 0; i < width; ++i) {
      if (sb[at + i] != 0) return;
    }
    fd_ = fd;
    file_size_ = static_cast<uint64_t>(st.st_size);
  }

  hid_t mem_type(DType d) {
    Handle& h = mem_types_[static_cast<size_t>(d)];
    if (!h.valid()) h = type_of(d);
    return h.get();
  }

  // The file places of a tensor whose bytes are stored as they are in memory: a contiguous dataset,
  // or unfiltered chunks that are each one run of the tensor (every dim of the chunk 1 before some
  // dim j and whole after it: what this recorder writes). False leaves the read to HDF5 (other
  // chunk shapes, unallocated storage, another byte order or type). Every chunk's size is checked
  // here; offsets against the file and each other in check_extents().
  bool plan_direct(hid_t ds, hid_t dcpl, H5D_layout_t layout, hid_t type, const std::vector<hsize_t>& dims,
                   Node& node) {
    EntryInfo& info = node.info;
    if (fd_ < 0 || H5Tequal(type, mem_type(info.dtype)) <= 0) return false;
    return locate_extents(ds, dcpl, layout, dims, dtype_size(info.dtype), info.bytes, file_size_, node.extents,
                          [&](const std::string& problem) { return fail(info.path, problem); });
  }

  // Every direct extent lies inside the file and no two overlap (a damaged chunk index could send
  // two tensors, or two chunks of one, to the same bytes).
  void check_extents() {
    struct Span {
      uint64_t begin, end;
      size_t node;
    };
    std::vector<Span> spans;
    for (size_t n = 0; n < nodes_.size(); ++n) {
      for (const Extent& e : nodes_[n].extents) {
        uint64_t end = 0;
        if (!checked_add(e.file, e.stored, &end) || end > file_size_) {
          throw fail(nodes_[n].info.path, "its data at bytes [" + std::to_string(e.file) + ", " +
                                              std::to_string(e.file) + " + " + std::to_string(e.stored) +
                                              ") lies outside the file (" + std::to_string(file_size_) + " bytes)");
        }
        spans.push_back({e.file, end, n});
      }
    }
    std::sort(spans.begin(), spans.end(),
              [](const Span& a, const Span& b) { return a.begin != b.begin ? a.begin < b.begin : a.node < b.node; });
    for (size_t i = 1; i < spans.size(); ++i) {
      if (spans[i].begin < spans[i - 1].end) {
        const Span& a = spans[i - 1];
        const Span& b = spans[i];
        throw fail(
            nodes_[b.node].info.path,
            "its data at bytes [" + std::to_string(b.begin) + ", " + std::to_string(b.end) + ") overlaps " +
                (a.node == b.node ? "another of its chunks" : "the data of entry '" + nodes_[a.node].info.path + "'") +
                " at [" + std::to_string(a.begin) + ", " + std::to_string(a.end) + ")");
      }
    }
  }

  // A direct tensor, read in pieces by the pool's threads with pread. The calling thread hashes the
  // pieces in order as they arrive and reads the next unclaimed one whenever the next to hash is
  // not ready, so reading and hashing share both threads and the hash finds its bytes in cache.
  TensorData read_direct(const Node& n) {
    const EntryInfo& info = n.info;
    TensorData t = TensorData::uninitialized(info.shape, info.dtype);  // the extents cover every byte
    auto* dst = static_cast<unsigned char*>(t.raw());
    struct Piece {
      uint64_t file, bytes, dst;
    };
    std::vector<Piece> pieces;
    for (const Extent& e : n.extents) {
      for (uint64_t at = 0; at < e.bytes; at += kPieceBytes) {
        pieces.push_back({e.file + at, std::min(kPieceBytes, e.bytes - at), e.dst + at});
      }
    }
    const bool hash = n.has_hash && !kFuzzing;
    XXH3_state_t state;
    if (hash) XXH3_64bits_reset(&state);
    auto read_piece = [&](const Piece& p) {
      auto* out = dst + p.dst;
      uint64_t left = p.bytes, at = p.file;
      while (left > 0) {
        const ssize_t r = ::pread(fd_, out, left, static_cast<off_t>(at));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
          throw fail(info.path, r == 0 ? "the file ended early (it shrank while open)"
                                       : std::string("read failed: ") + std::strerror(errno));
        }
        out += r;
        at += static_cast<uint64_t>(r);
        left -= static_cast<uint64_t>(r);
      }
    };
    if (pieces.size() == 1) {
      read_piece(pieces[0]);
      if (hash) XXH3_64bits_update(&state, dst + pieces[0].dst, pieces[0].bytes);
    } else if (!pieces.empty()) {
      if (!pool_) pool_ = std::make_unique<Pool>(thread_count(0));
      // ready[i]: 0 unclaimed, 1 being read, 2 read, 3 failed.
      std::unique_ptr<std::atomic<uint8_t>[]> ready(new std::atomic<uint8_t>[pieces.size()]);
      for (size_t i = 0; i < pieces.size(); ++i) ready[i].store(0);
      std::atomic<size_t> next{0};
      auto claim_and_read = [&]() -> bool {
        const size_t i = next.fetch_add(1);
        if (i >= pieces.size()) return false;
        ready[i].store(1);
        try {
          read_piece(pieces[i]);
        } catch (...) {
          ready[i].store(3);
          ready[i].notify_all();
          throw;
        }
        ready[i].store(2);
        ready[i].notify_all();
        return true;
      };
      pool_->run(pool_->threads(), [&](size_t item, size_t) {
        if (item != 0 || !hash) {
          while (claim_and_read()) {
          }
          return;
        }
        for (size_t h = 0; h < pieces.size(); ++h) {
          for (;;) {
            const uint8_t s = ready[h].load();
            if (s == 2) break;
            if (s == 3) return;  // the reader's error is the one reported
            if (s == 0 && claim_and_read()) continue;
            ready[h].wait(s);
          }
          XXH3_64bits_update(&state, dst + pieces[h].dst, pieces[h].bytes);
        }
      });
    }
    if (hash && XXH3_64bits_digest(&state) != n.hash) throw fail(info.path, "checksum mismatch (the data is damaged)");
    if (info.dtype == DType::Bool) {
      for (uint8_t b : t.bytes()) {
        if (b > 1) throw fail(info.path, "bool tensor holds byte " + std::to_string(b));
      }
    }
    return t;
  }

  std::string path_;
  Handle file_;
  bool burn_file_ = false;  // written by this recorder: its burn.* attributes are required
  Metadata metadata_;
  std::vector<EntryInfo> infos_;
  std::vector<Node> nodes_;    // parallel to infos_
  std::set<haddr_t> visited_;  // groups seen, by address
  int fd_ = -1;                // HDF5's descriptor of the file (sec2 driver), or -1: no direct reads
  uint64_t file_size_ = 0;
  std::array<Handle, 9> mem_types_;  // by dtype, made on first use
  std::unique_ptr<Pool> pool_;
};

}  // namespace

namespace burn::record::hdf5_detail {

std::unique_ptr<RecordReader> open_file(const std::string& path) {
  try {
    return std::make_unique<Hdf5Reader>(path);
  } catch (...) {
    after_failed_read();
    throw;
  }
}

}  // namespace burn::record::hdf5_detail
