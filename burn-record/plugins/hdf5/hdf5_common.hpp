// What the hdf5 recorder's reader and writer share: HDF5 handles and error text, the dtype mapping,
// the structure digest, and where an unfiltered dataset's bytes lie in the file. Private to the plugin.
#pragma once

#include <hdf5.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "burn/record/file.hpp"
#include "burn/record/recorder.hpp"
#include "hdf5_index.hpp"

namespace burn::record::hdf5_detail {

constexpr const char* kFormat = "burn-record-hdf5";
constexpr int64_t kLayoutVersion = 1;
constexpr uint64_t kChunkBytes = 1u << 20;  // target bytes per HDF5 chunk
// Direct reads go in pieces this large: small enough for the hash to find them in the cache.
constexpr uint64_t kPieceBytes = 512u << 10;
// Datasets with more chunks are read by HDF5 (256 chunks cost about 1 ms to locate; 1024, 10-30 ms).
constexpr uint64_t kMaxDirectChunks = 256;

// Silences HDF5's printing of its error stack for the life of the object (our errors say it).
class QuietErrors {
 public:
  QuietErrors() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

// Owns one hid_t and closes it with the matching H5*close.
class Handle {
 public:
  Handle() = default;
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Handle(Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = H5I_INVALID_HID; }
  Handle& operator=(Handle&& o) noexcept {
    std::swap(id_, o.id_);
    std::swap(close_, o.close_);
    return *this;
  }
  ~Handle() {
    if (id_ >= 0 && close_) {
      QuietErrors quiet;  // also when unwinding from an error, after the caller's QuietErrors has ended
      close_(id_);
    }
  }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  hid_t release() {
    const hid_t id = id_;
    id_ = H5I_INVALID_HID;
    return id;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  herr_t (*close_)(hid_t) = nullptr;
};

// The innermost message of HDF5's error stack ("can't open object", ...), for our RecordError.
std::string hdf5_reason();

// Why H5Fopen failed, in our words where HDF5's are its internals': a file shorter than its superblock
// says is reported as libhdf5 1.10 words it, "truncated file: eof = 96, sblock->base_addr = 0,
// stored_eof = 32526".
std::string open_failure(const std::string& reason);

void after_failed_read();

hid_t make_f16();

hid_t make_bf16();

hid_t make_bool();

// Text is stored as fixed-length UTF-8 strings, never variable-length ones: those live in HDF5's
// global heap, which has no checksum, and libhdf5 1.10 crashes reading a damaged one.
hid_t make_text(size_t bytes);

// The file type of a dtype (also the memory type: little-endian is this machine's order).
Handle type_of(DType d);

// XXH3 of the metadata and the list of entries (paths, kinds, dtypes, shapes) in order, stored as
// the root attribute burn.structure_xxh3: a damaged group or heap that drops, renames or reorders
// entries, or a changed attribute, is detected even where HDF5 has no checksum of its own.
uint64_t structure_digest(const Metadata& m, const std::vector<EntryInfo>& entries);

// The bytes a scalar's burn_xxh3 covers: 8 little-endian bytes for numbers, 1 for a bool, the text.
std::string scalar_bytes(const Value& v);

// A dataset access list without a chunk cache: whole chunks then go straight between the file and
// our buffer instead of through HDF5's cache (a copy each way; a third of a load's time).
Handle no_chunk_cache();

// The file places of an unfiltered dataset of `bytes` bytes stored as it is in memory: a contiguous
// dataset, or chunks that are each one run of the tensor (every dim of the chunk 1 before some dim
// j and whole after it: what the writer makes). False leaves the read to HDF5 (other chunk shapes,
// unallocated storage). Every chunk's size is checked here, and all of them against `limit` (the
// file's size) before any is listed; places against the file and each other by the reader.
template <class Fail>
bool locate_extents(hid_t ds, hid_t dcpl, H5D_layout_t layout, const std::vector<hsize_t>& dims, uint64_t elem,
                    uint64_t bytes, uint64_t limit, std::vector<Extent>& out, const Fail& fail) {
  if (layout == H5D_CONTIGUOUS) {
    const haddr_t addr = H5Dget_offset(ds);
    if (addr == HADDR_UNDEF) return false;  // never written: HDF5 serves the fill value
    // A layout that claims less than the shape needs is refused by the reader's check after this.
    if (H5Dget_storage_size(ds) < bytes) return false;
    out.push_back({addr, bytes, 0, bytes});
    return true;
  }
  if (layout != H5D_CHUNKED || dims.empty()) return false;
  const size_t rank = dims.size();
  std::vector<hsize_t> cdims(rank);
  if (H5Pget_chunk(dcpl, static_cast<int>(rank), cdims.data()) != static_cast<int>(rank)) return false;
  size_t j = 0;  // the last dim where the chunk is not whole
  for (size_t i = 0; i < rank; ++i) {
    if (cdims[i] == 0) return false;
    if (cdims[i] != dims[i]) j = i;
  }
  for (size_t i = 0; i < j; ++i) {
    if (cdims[i] != 1) return false;
  }
  uint64_t inner = elem, outer = 1, stored = 0, total = 0;
  for (size_t i = j + 1; i < rank; ++i) inner *= dims[i];  // <= bytes: no overflow
  const uint64_t per = (dims[j] + cdims[j] - 1) / cdims[j];
  for (size_t i = 0; i < j; ++i) outer *= dims[i];
  // libhdf5 1.10 finds a chunk by walking the whole chunk index: listing n chunks costs n^2.
  if (outer * per > kMaxDirectChunks) return false;
  // Every chunk is stored whole: all of them must fit in the file before any is listed.
  if (!checked_mul(cdims[j], inner, &stored) || !checked_mul(outer, per, &total) ||
      !checked_mul(total, stored, &total) || total > limit) {
    throw fail("its " + std::to_string(outer * per) + " chunks of " + std::to_string(stored) +
               " bytes cannot fit in the file (" + std::to_string(limit) + " bytes)");
  }
  std::vector<hsize_t> at(rank, 0);
  for (uint64_t q = 0; q < outer; ++q) {
    uint64_t rest = q;
    for (size_t i = j; i-- > 0;) {
      at[i] = rest % dims[i];
      rest /= dims[i];
    }
    for (uint64_t k = 0; k < per; ++k) {
      at[j] = k * cdims[j];
      unsigned mask = 0;
      haddr_t addr = HADDR_UNDEF;
      hsize_t size = 0;
      if (H5Dget_chunk_info_by_coord(ds, at.data(), &mask, &addr, &size) < 0) {
        throw fail("cannot locate its chunk " + std::to_string(q * per + k) + ": " + hdf5_reason());
      }
      if (addr == HADDR_UNDEF) {  // a chunk never written: HDF5 serves the fill value
        out.clear();
        return false;
      }
      if (size != stored) {
        throw fail("its chunk " + std::to_string(q * per + k) + " stores " + std::to_string(size) +
                   " bytes; an unfiltered chunk of its shape has " + std::to_string(stored));
      }
      const uint64_t rows = std::min<uint64_t>(cdims[j], dims[j] - at[j]);
      out.push_back({addr, rows * inner, (q * dims[j] + at[j]) * inner, stored});
    }
  }
  return true;
}

// The two halves of the recorder (hdf5_writer.cpp, hdf5_reader.cpp).
void write_file(const std::string& path, const Record& record, const Metadata& metadata, const SaveOptions& options);
std::unique_ptr<RecordReader> open_file(const std::string& path);

}  // namespace burn::record::hdf5_detail
