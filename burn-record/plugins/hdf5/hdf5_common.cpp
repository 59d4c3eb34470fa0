// The hdf5 recorder's shared helpers: HDF5's error text, the dtype mapping, the structure digest.
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

namespace burn::record::hdf5_detail {

// The innermost message of HDF5's error stack ("can't open object", ...), for our RecordError.
std::string hdf5_reason() {
  std::string reason;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* e, void* out) -> herr_t {
        if (n == 0 && e->desc) *static_cast<std::string*>(out) = e->desc;
        return 0;
      },
      &reason);
  return reason.empty() ? "HDF5 gave no reason" : reason;
}

// Why H5Fopen failed, in our words where HDF5's are its internals': a file shorter than its superblock
// says is reported as libhdf5 1.10 words it, "truncated file: eof = 96, sblock->base_addr = 0,
// stored_eof = 32526".
std::string open_failure(const std::string& reason) {
  unsigned long long eof = 0, base = 0, stored = 0;
  if (std::sscanf(reason.c_str(), "truncated file: eof = %llu, sblock->base_addr = %llu, stored_eof = %llu", &eof,
                  &base, &stored) == 3) {
    return "the HDF5 superblock says " + std::to_string(base + stored) + " bytes, the file has " + std::to_string(eof) +
           " (truncated)";
  }
  return "cannot open: " + reason;
}

// libhdf5 1.10 loses blocks of its own free lists on some damaged files, although every id we open is
// closed (~Handle, on every error path). Its shutdown at exit then cannot converge and prints "HDF5:
// infinite loop closing library" and a line of "FL,FL,..." on stderr, after our RecordError already
// said what was wrong. It prints them only while automatic error printing is on, so after the first
// failed read that printing is turned off at exit, just before libhdf5's own exit handler runs
// (registered when the library was initialised, earlier: atexit handlers run in reverse order).
static void quiet_hdf5_shutdown() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

void after_failed_read() {
  static std::once_flag once;
  std::call_once(once, [] { std::atexit(quiet_hdf5_shutdown); });
}

hid_t make_f16() {
  // IEEE half as h5py makes it: sign bit 15, exponent 10..14 (bias 15), mantissa 0..9.
  const hid_t t = H5Tcopy(H5T_IEEE_F32LE);
  H5Tset_fields(t, 15, 10, 5, 0, 10);
  H5Tset_size(t, 2);
  H5Tset_ebias(t, 15);
  return t;
}

hid_t make_bf16() {
  // bfloat16: f32's sign and 8-bit exponent (bias 127) with a 7-bit mantissa. h5py reads it as
  // float32 (the smallest numpy float holding it), with the exact values.
  const hid_t t = H5Tcopy(H5T_IEEE_F32LE);
  H5Tset_fields(t, 15, 7, 8, 0, 7);
  H5Tset_size(t, 2);
  H5Tset_ebias(t, 127);
  return t;
}

hid_t make_bool() {
  // h5py's bool: an enum over int8 with FALSE = 0, TRUE = 1.
  const hid_t t = H5Tenum_create(H5T_NATIVE_INT8);
  int8_t v = 0;
  H5Tenum_insert(t, "FALSE", &v);
  v = 1;
  H5Tenum_insert(t, "TRUE", &v);
  return t;
}

// Text is stored as fixed-length UTF-8 strings, never variable-length ones: those live in HDF5's
// global heap, which has no checksum, and libhdf5 1.10 crashes reading a damaged one.
hid_t make_text(size_t bytes) {
  const hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, std::max<size_t>(1, bytes));  // HDF5 has no empty fixed-length string
  H5Tset_strpad(t, H5T_STR_NULLPAD);
  H5Tset_cset(t, H5T_CSET_UTF8);
  return t;
}

// The file type of a dtype (also the memory type: little-endian is this machine's order).
Handle type_of(DType d) {
  switch (d) {
    case DType::F32: return Handle(H5Tcopy(H5T_IEEE_F32LE), H5Tclose);
    case DType::F64: return Handle(H5Tcopy(H5T_IEEE_F64LE), H5Tclose);
    case DType::F16: return Handle(make_f16(), H5Tclose);
    case DType::BF16: return Handle(make_bf16(), H5Tclose);
    case DType::I64: return Handle(H5Tcopy(H5T_STD_I64LE), H5Tclose);
    case DType::I32: return Handle(H5Tcopy(H5T_STD_I32LE), H5Tclose);
    case DType::I8: return Handle(H5Tcopy(H5T_STD_I8LE), H5Tclose);
    case DType::U8: return Handle(H5Tcopy(H5T_STD_U8LE), H5Tclose);
    case DType::Bool: return Handle(make_bool(), H5Tclose);
  }
  return {};
}

// XXH3 of the metadata and the list of entries (paths, kinds, dtypes, shapes) in order, stored as
// the root attribute burn.structure_xxh3: a damaged group or heap that drops, renames or reorders
// entries, or a changed attribute, is detected even where HDF5 has no checksum of its own.
uint64_t structure_digest(const Metadata& m, const std::vector<EntryInfo>& entries) {
  std::string s;
  auto str = [&](std::string_view v) {
    s.append(v);
    s += '\0';
  };
  auto u64 = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i) s += static_cast<char>(v >> (8 * i));
  };
  u64(m.format_version);
  str(m.burn_version);
  str(m.producer);
  str(m.dtype_policy);
  for (const auto& [k, v] : m.extra) {
    str(k);
    str(v);
  }
  for (const auto& e : entries) {
    str(e.path);
    str(entry_kind_name(e.kind));
    if (e.kind == EntryKind::Tensor) {
      str(dtype_name(e.dtype));
      u64(e.shape.rank());
      for (int64_t d : e.shape) u64(static_cast<uint64_t>(d));
    }
  }
  return XXH3_64bits(s.data(), s.size());
}

// The bytes a scalar's burn_xxh3 covers: 8 little-endian bytes for numbers, 1 for a bool, the text.
std::string scalar_bytes(const Value& v) {
  std::string s;
  uint64_t bits = 0;
  switch (v.kind()) {
    case EntryKind::Int: bits = static_cast<uint64_t>(v.as_int()); break;
    case EntryKind::Float: {
      const double d = v.as_float();
      std::memcpy(&bits, &d, 8);
      break;
    }
    case EntryKind::Bool: return std::string(1, v.as_bool() ? '\1' : '\0');
    case EntryKind::String: return v.as_string();
    default: return s;
  }
  for (int i = 0; i < 8; ++i) s += static_cast<char>(bits >> (8 * i));
  return s;
}

// A dataset access list without a chunk cache: whole chunks then go straight between the file and
// our buffer instead of through HDF5's cache (a copy each way; a third of a load's time).
Handle no_chunk_cache() {
  Handle dapl(H5Pcreate(H5P_DATASET_ACCESS), H5Pclose);
  H5Pset_chunk_cache(dapl.get(), H5D_CHUNK_CACHE_NSLOTS_DEFAULT, 0, H5D_CHUNK_CACHE_W0_DEFAULT);
  return dapl;
}

}  // namespace burn::record::hdf5_detail
