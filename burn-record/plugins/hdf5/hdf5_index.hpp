// The hdf5 recorder's entry index, the root attribute burn.index: what an entry is in it, its
// encoding, its parsing and its check against the file; plus the links and object headers it is
// checked against. Layout in burn-record/README.md ("The hdf5 layout"). Private to the plugin (and
// compiled into the fuzz-hdf5 target with it).
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "burn/record/recorder.hpp"

namespace burn::record::hdf5_detail {

// The op of every RecordError of this recorder.
inline constexpr const char* kOp = "hdf5";

// Fuzz builds skip checksum comparisons so the fuzzer reaches the checks behind them.
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
inline constexpr bool kFuzzing = true;
#else
inline constexpr bool kFuzzing = false;
#endif

// Bytes of a tensor stored as-is in the file: `bytes` at file offset `file` are the tensor's bytes
// from `dst`; `stored` is what the file holds there (a clipped edge chunk is stored whole).
struct Extent {
  uint64_t file = 0, bytes = 0, dst = 0, stored = 0;
};

// One link of a group: its name, type, target address (hard links) and creation order.
struct Link {
  std::string name;
  H5L_type_t type;
  haddr_t addr;
  bool corder_valid;
  int64_t corder;
};

// An H5Literate callback appending each link to the std::vector<Link> at `out`.
herr_t collect_link(hid_t, const char* name, const H5L_info_t* info, void* out);

// The HDF5 path of a dotted entry path: "blocks.0.w" -> "/blocks/0/w"; "" -> "/".
std::string h5_path(const std::string& path);

// The links of the group at `h5path` ("/" or "/a/b"), in name order; nullopt if it cannot be listed.
std::optional<std::vector<Link>> links_by_name(hid_t file, const std::string& h5path);

// The checksum that ends the first chunk of the v2 object header at file offset `addr`, read with
// pread; nullopt when there is none there (a v1 header, or bytes that are not a header). It covers
// the object's type, shape, layout (where its data lies), times, the attributes kept in the header
// or their index, and a group's links or their index: a replaced object at a reused address shows.
std::optional<uint32_t> header_checksum(int fd, uint64_t addr, uint64_t file_size);

// The path limits every entry obeys, as a RecordError naming `file` and the entry (the walk's check
// too).
void check_entry_name(const std::string& file, const std::string& path);

// The root attribute burn.index lists every entry as saved: path, kind, dtype, shape, hash, the
// address, link creation order and header checksum of its object, and a direct tensor's places.
// A reader that finds it consistent with the file's links reads it instead of opening every object.
inline constexpr const char* kIndexAttr = "burn.index";
inline constexpr uint32_t kIndexVersion = 1;
inline constexpr uint8_t kHasHash = 1, kDirect = 2;

struct IndexEntry {
  EntryInfo info;
  uint8_t flags = 0;
  uint64_t hash = 0, addr = HADDR_UNDEF;
  int64_t corder = 0;
  uint32_t header = 0;
  std::vector<Extent> extents;
};

// The attribute's bytes: every entry, then the XXH3 of what precedes it.
std::string encode_index(const std::vector<IndexEntry>& entries);

// burn.index's entries (of the file `file`, for errors), every field checked (layout in
// encode_index); a direct tensor's places must tile its bytes (the reader then holds them to the
// file and each other). Damage is a RecordError; an index of a version this reader does not know is
// set aside (false, `why` says so).
bool parse_index(const std::string& file, const std::string& bytes, std::vector<IndexEntry>& entries, std::string& why);

// Whether the file is still what the index describes: every group (the root included) has exactly
// the links the index lists, to the same objects (address) made at the same point (creation order),
// and every object's header checksum is unchanged (read through `fd`, the file of `file_size`
// bytes). Reads no object through HDF5, only group links.
bool index_matches(hid_t file, int fd, uint64_t file_size, const std::vector<IndexEntry>& entries, std::string& why);

}  // namespace burn::record::hdf5_detail
