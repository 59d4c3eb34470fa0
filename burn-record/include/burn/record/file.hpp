// File helpers shared by every recorder: the atomic temporary file behind save(), bounds-checked
// reads, checked size arithmetic and the one way to word a RecordError.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "burn/record/export.hpp"
#include "burn/tensor/error.hpp"

namespace burn::record {

// "[op] <file>: entry '<entry>': <problem>" (the entry part only when `entry` is not empty).
BURN_RECORD_API RecordError record_error(std::string_view op, const std::string& file, std::string_view entry,
                                         const std::string& problem);

// A new temporary file next to `target` (".<name>.tmp-XXXXXX", same folder, so the rename is atomic),
// removed again unless commit() succeeds. commit(): fsync the file, give it the usual permissions
// (0666 less the umask), rename it over the target, fsync the folder. A regular file it replaces on
// a local filesystem is held open across the rename and closed by a background thread afterwards,
// so that freeing the old file's blocks is not part of the save (detail::drain_deferred_closes()
// waits for that).
class BURN_RECORD_API AtomicFile {
 public:
  explicit AtomicFile(std::string target);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  const std::string& path() const { return temp_; }
  const std::string& target() const { return target_; }
  void commit();

 private:
  std::string target_;
  std::string temp_;
  bool committed_ = false;
};

// Where a save is when the test hook runs (tests kill the process at each of them).
enum class SavePhase : uint8_t { TempCreated, Written, Synced, Renamed };
namespace detail {
// Test-only: called at each phase of every save in this process (nullptr: none).
BURN_RECORD_API void set_save_hook(void (*hook)(SavePhase));
BURN_RECORD_API void run_save_hook(SavePhase phase);
// Blocks until every replaced file handed to the background closer is closed (its blocks freed, if
// that was its last link). Saves never need it; tests counting descriptors or disk space do.
BURN_RECORD_API void drain_deferred_closes();
}  // namespace detail

// A file being written sequentially or at offsets; errors name the file and the errno text.
class BURN_RECORD_API OutputFile {
 public:
  OutputFile(std::string path, std::string op);  // truncates
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  void write(const void* data, size_t n);  // at the current end
  void write_at(const void* data, size_t n, uint64_t offset);
  uint64_t size() const { return size_; }
  void close();  // flushes; errors from close() are reported

 private:
  std::string path_, op_;
  int fd_ = -1;
  uint64_t size_ = 0;
  uint64_t started_ = 0;  // bytes whose write-back to disk write() has started
};

// A file opened for reading; every read is checked against the file's length before anything is
// allocated for it, and a short read is an error naming the file and the entry.
class BURN_RECORD_API InputFile {
 public:
  InputFile(std::string path, std::string op);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // Reads exactly n bytes at offset into dst; RecordError when [offset, offset + n) is not inside the file.
  void read_at(void* dst, size_t n, uint64_t offset, std::string_view entry) const;

 private:
  std::string path_, op_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// True when s is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, at most U+10FFFF).
BURN_RECORD_API bool valid_utf8(std::string_view s);

// a + b and a * b, or nullopt-like false on overflow (for sizes read from files).
inline bool checked_add(uint64_t a, uint64_t b, uint64_t* out) { return !__builtin_add_overflow(a, b, out); }
inline bool checked_mul(uint64_t a, uint64_t b, uint64_t* out) { return !__builtin_mul_overflow(a, b, out); }

// The sizes of a tensor entry whose shape a file states: its dims, its element count (0 when a dim is 0), its bytes
// in the file (count x the file's element size) and in memory (count x the element size of the dtype it loads as).
struct EntrySizes {
  std::vector<int64_t> dims;
  uint64_t elements = 0, file_bytes = 0, tensor_bytes = 0;
};
enum class SizeFault : uint8_t { None, Elements, Bytes };
// Overflow-checked, for readers to call before they allocate: Elements when a dim or the product of the dims
// (zero dims counted as 1, as burn's shapes check) exceeds INT64_MAX, Bytes when a byte count exceeds 64 bits.
inline SizeFault entry_sizes(std::span<const uint64_t> dims, uint64_t file_elem_size, uint64_t tensor_elem_size,
                             EntrySizes* out) {
  uint64_t count = 1, counted = 1;
  for (uint64_t d : dims) {
    if (d > static_cast<uint64_t>(INT64_MAX) || !checked_mul(counted, d == 0 ? 1 : d, &counted) ||
        counted > static_cast<uint64_t>(INT64_MAX))
      return SizeFault::Elements;
    count *= d;
    out->dims.push_back(static_cast<int64_t>(d));
  }
  out->elements = count;
  if (!checked_mul(count, file_elem_size, &out->file_bytes) ||
      !checked_mul(count, tensor_elem_size, &out->tensor_bytes))
    return SizeFault::Bytes;
  return SizeFault::None;
}

}  // namespace burn::record
