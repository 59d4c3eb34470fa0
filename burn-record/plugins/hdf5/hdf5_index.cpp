// The hdf5 recorder's entry index (root attribute burn.index): encoding, parsing, and the check
// against the file's links and object headers. See hdf5_index.hpp.
#include "hdf5_index.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "../bytes.hpp"
#include "burn/record/file.hpp"

namespace burn::record::hdf5_detail {

using namespace burn::record::plugin_detail;

std::optional<uint32_t> header_checksum(int fd, uint64_t addr, uint64_t file_size) {
  unsigned char h[40] = {};
  if (addr >= file_size) return std::nullopt;
  const size_t n = static_cast<size_t>(std::min<uint64_t>(sizeof h, file_size - addr));
  if (n < 8 || ::pread(fd, h, n, static_cast<off_t>(addr)) != static_cast<ssize_t>(n)) return std::nullopt;
  if (std::memcmp(h, "OHDR", 4) != 0 || h[4] != 2) return std::nullopt;
  const uint8_t flags = h[5];
  size_t at = 6;
  if (flags & 0x20) at += 16;  // access, modification, change and birth times
  if (flags & 0x10) at += 4;   // attribute storage phase change values
  const size_t width = size_t{1} << (flags & 3);
  if (at + width > n) return std::nullopt;
  uint64_t size = 0;
  for (size_t i = 0; i < width; ++i) size |= uint64_t{h[at + i]} << (8 * i);
  uint64_t sum_at = 0, end = 0;
  if (!checked_add(addr + at + width, size, &sum_at) || !checked_add(sum_at, 4, &end) || end > file_size) {
    return std::nullopt;
  }
  unsigned char c[4];
  if (::pread(fd, c, 4, static_cast<off_t>(sum_at)) != 4) return std::nullopt;
  return get_u32(c);
}

herr_t collect_link(hid_t, const char* name, const H5L_info_t* info, void* out) {
  static_cast<std::vector<Link>*>(out)->push_back({name, info->type,
                                                   info->type == H5L_TYPE_HARD ? info->u.address : HADDR_UNDEF,
                                                   info->corder_valid != 0, info->corder});
  return 0;
}

std::string h5_path(const std::string& path) {
  std::string out = "/" + path;
  std::replace(out.begin(), out.end(), '.', '/');
  return out;
}

std::optional<std::vector<Link>> links_by_name(hid_t file, const std::string& h5path) {
  std::vector<Link> out;
  hsize_t idx = 0;
  if (H5Literate_by_name(file, h5path.c_str(), H5_INDEX_NAME, H5_ITER_INC, &idx, collect_link, &out, H5P_DEFAULT) < 0) {
    return std::nullopt;
  }
  return out;
}

void check_entry_name(const std::string& file, const std::string& path) {
  try {
    check_path(path, kOp);
  } catch (const RecordError& e) {
    const std::string what = e.what();
    throw record_error(kOp, file, path, "invalid name: " + what.substr(std::min(what.size(), what.find("] ") + 2)));
  }
}

std::string encode_index(const std::vector<IndexEntry>& entries) {
  std::string out;
  put_u32(out, kIndexVersion);
  put_u32(out, static_cast<uint32_t>(entries.size()));
  for (const IndexEntry& e : entries) {
    put_str(out, e.info.path);
    put_u8(out, static_cast<uint8_t>(e.info.kind));
    put_u8(out, e.info.kind == EntryKind::Tensor ? static_cast<uint8_t>(e.info.dtype) : 0);
    put_u8(out, e.info.kind == EntryKind::Tensor ? static_cast<uint8_t>(e.info.shape.rank()) : 0);
    put_u8(out, e.flags);
    if (e.info.kind == EntryKind::Tensor) {
      for (int64_t d : e.info.shape) put_u64(out, static_cast<uint64_t>(d));
    }
    put_u64(out, e.hash);
    put_u64(out, e.addr);
    put_u64(out, static_cast<uint64_t>(e.corder));
    put_u32(out, e.header);
    put_u32(out, static_cast<uint32_t>(e.extents.size()));
    for (const Extent& x : e.extents) {
      put_u64(out, x.file);
      put_u64(out, x.bytes);
      put_u64(out, x.dst);
      put_u64(out, x.stored);
    }
  }
  put_u64(out, XXH3_64bits(out.data(), out.size()));
  return out;
}

bool parse_index(const std::string& file, const std::string& bytes, std::vector<IndexEntry>& entries,
                 std::string& why) {
  auto fail = [&](std::string_view entry, const std::string& problem) {
    return record_error(kOp, file, entry, problem);
  };
  const std::string attr = std::string("attribute ") + kIndexAttr;
  if (bytes.size() < 16) throw fail("", attr + " is " + std::to_string(bytes.size()) + " bytes, too short (damaged?)");
  const size_t body = bytes.size() - 8;
  if (!kFuzzing && XXH3_64bits(bytes.data(), body) != get_u64(reinterpret_cast<const unsigned char*>(&bytes[body]))) {
    throw fail("", attr + ": checksum mismatch (the entry index is damaged)");
  }
  IndexParser in(kOp, file, std::string_view(bytes).substr(0, body));
  if (const uint32_t v = in.u32("", "the index version"); v != kIndexVersion) {
    why = "its version is " + std::to_string(v) + ", this reader knows " + std::to_string(kIndexVersion);
    return false;
  }
  const uint32_t count = in.u32("", "the entry count");
  std::unordered_set<std::string> seen, groups;
  for (uint32_t i = 0; i < count; ++i) {
    IndexEntry e;
    EntryInfo& info = e.info;
    info.path = in.str("", "an entry path", kMaxNameLength);
    const std::string& p = info.path;
    check_entry_name(file, p);
    if (!seen.insert(p).second) throw fail(p, attr + " lists it twice");
    const size_t dot = p.rfind('.');
    if (dot != std::string::npos && !groups.count(p.substr(0, dot))) {
      throw fail(p, attr + " lists it before its group, or without it");
    }
    const uint8_t kind = in.u8(p, "a kind"), dtype = in.u8(p, "a dtype"), rank = in.u8(p, "a rank");
    const uint8_t flags = in.u8(p, "the flags");
    if (kind > static_cast<uint8_t>(EntryKind::String)) throw fail(p, attr + " gives it kind " + std::to_string(kind));
    info.kind = static_cast<EntryKind>(kind);
    const bool tensor = info.kind == EntryKind::Tensor;
    if (tensor ? dtype >= std::size(kAllDTypes) || rank > kMaxRank : dtype != 0 || rank != 0) {
      throw fail(p, attr + " gives it dtype " + std::to_string(dtype) + " and rank " + std::to_string(rank));
    }
    if ((flags & ~(kHasHash | kDirect)) != 0 || ((flags & kDirect) && !tensor) ||
        (info.kind == EntryKind::Group && flags != 0)) {
      throw fail(p, attr + " gives it flags " + std::to_string(flags));
    }
    info.dtype = static_cast<DType>(dtype);
    if (tensor) {
      uint64_t size = dtype_size(info.dtype);
      std::vector<int64_t> shape;
      for (uint8_t d = 0; d < rank; ++d) {
        const uint64_t dim = in.u64(p, "a dim");
        if (dim > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) || !checked_mul(size, dim, &size)) {
          throw fail(p, "the byte size of its shape in " + attr + " overflows");
        }
        shape.push_back(static_cast<int64_t>(dim));
      }
      info.shape = Shape(std::move(shape));
      info.bytes = size;
    } else {
      info.bytes = info.kind == EntryKind::Bool                                   ? 1
                   : info.kind == EntryKind::Int || info.kind == EntryKind::Float ? 8
                                                                                  : 0;
    }
    e.flags = flags;
    const bool direct = flags & kDirect;
    e.hash = in.u64(p, "a hash");
    e.addr = in.u64(p, "an address");
    e.corder = static_cast<int64_t>(in.u64(p, "a creation order"));
    e.header = in.u32(p, "a header checksum");
    const uint32_t n_extents = in.u32(p, "a count of places");
    if (n_extents > 0 && (!direct || n_extents > in.left() / 32)) {
      throw fail(p, attr + " gives it " + std::to_string(n_extents) + " places");
    }
    uint64_t covered = 0;
    for (uint32_t k = 0; k < n_extents; ++k) {
      Extent x;
      x.file = in.u64(p, "a place");
      x.bytes = in.u64(p, "a place");
      x.dst = in.u64(p, "a place");
      x.stored = in.u64(p, "a place");
      // Places tile the tensor in order: each starts where the previous one ended.
      if (x.bytes == 0 || x.bytes > x.stored || x.dst != covered || !checked_add(covered, x.bytes, &covered)) {
        throw fail(p, attr + " gives it a place of " + std::to_string(x.bytes) + " bytes at tensor byte " +
                          std::to_string(x.dst) + " (stored " + std::to_string(x.stored) + "), after " +
                          std::to_string(covered) + " bytes");
      }
      e.extents.push_back(x);
    }
    if (direct && covered != info.bytes) {
      throw fail(
          p, attr + " places cover " + std::to_string(covered) + " bytes, its shape has " + std::to_string(info.bytes));
    }
    if (info.kind == EntryKind::Group) groups.insert(p);
    entries.push_back(std::move(e));
  }
  if (in.left() != 0) throw fail("", attr + " has " + std::to_string(in.left()) + " bytes after its last entry");
  return true;
}

bool index_matches(hid_t file, int fd, uint64_t file_size, const std::vector<IndexEntry>& entries, std::string& why) {
  std::unordered_map<std::string, std::vector<const IndexEntry*>> children{{"", {}}};
  for (const IndexEntry& n : entries) {
    const size_t dot = n.info.path.rfind('.');
    children[dot == std::string::npos ? "" : n.info.path.substr(0, dot)].push_back(&n);
    if (n.info.kind == EntryKind::Group) children.try_emplace(n.info.path);
  }
  for (const auto& [group, kids] : children) {
    const auto found = links_by_name(file, h5_path(group));
    if (!found) {
      why = "the group '" + group + "' cannot be listed";
      return false;
    }
    if (found->size() != kids.size()) {
      why = "the group '" + group + "' has " + std::to_string(found->size()) + " links, the index lists " +
            std::to_string(kids.size());
      return false;
    }
    std::unordered_map<std::string_view, const Link*> by_name;
    for (const Link& l : *found) by_name.emplace(l.name, &l);
    for (const IndexEntry* k : kids) {
      const size_t dot = k->info.path.rfind('.');
      const auto it = by_name.find(std::string_view(k->info.path).substr(dot == std::string::npos ? 0 : dot + 1));
      if (it == by_name.end() || it->second->type != H5L_TYPE_HARD || it->second->addr != k->addr ||
          !it->second->corder_valid || it->second->corder != k->corder) {
        why = "entry '" + k->info.path + "' was removed, replaced or moved since the index was written";
        return false;
      }
    }
  }
  for (const IndexEntry& n : entries) {
    const auto header = header_checksum(fd, n.addr, file_size);
    if (!header || *header != n.header) {
      why = "the object of entry '" + n.info.path + "' changed since the index was written";
      return false;
    }
  }
  return true;
}

}  // namespace burn::record::hdf5_detail
