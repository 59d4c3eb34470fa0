// Little-endian encoding and a bounds-checked parser for the recorder plugins' binary indexes (the
// zstd recorder's index, the hdf5 recorder's burn.index attribute).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "burn/record/file.hpp"

namespace burn::record::plugin_detail {

inline void put_u8(std::string& out, uint8_t v) { out += static_cast<char>(v); }
inline void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}
inline void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}
inline void put_str(std::string& out, std::string_view s) {
  put_u32(out, static_cast<uint32_t>(s.size()));
  out.append(s);
}
inline uint32_t get_u32(const unsigned char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline uint64_t get_u64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Parses an index with every length checked against what is left; errors name the file and entry.
class IndexParser {
 public:
  IndexParser(std::string_view op, const std::string& file, std::string_view bytes)
      : op_(op), file_(file), p_(reinterpret_cast<const unsigned char*>(bytes.data())), left_(bytes.size()) {}

  const unsigned char* take(size_t n, std::string_view entry, const char* what) {
    if (n > left_) {
      throw record_error(op_, file_, entry,
                         std::string("the index ends inside ") + what + " (needs " + std::to_string(n) + " bytes, " +
                             std::to_string(left_) + " left)");
    }
    const unsigned char* at = p_;
    p_ += n;
    left_ -= n;
    return at;
  }
  uint8_t u8(std::string_view entry, const char* what) { return *take(1, entry, what); }
  uint32_t u32(std::string_view entry, const char* what) { return get_u32(take(4, entry, what)); }
  uint64_t u64(std::string_view entry, const char* what) { return get_u64(take(8, entry, what)); }
  std::string str(std::string_view entry, const char* what, size_t limit) {
    const uint32_t n = u32(entry, what);
    if (n > limit) {
      throw record_error(
          op_, file_, entry,
          std::string(what) + " of " + std::to_string(n) + " bytes exceeds the limit of " + std::to_string(limit));
    }
    const unsigned char* s = take(n, entry, what);
    return std::string(reinterpret_cast<const char*>(s), n);
  }
  size_t left() const { return left_; }

 private:
  std::string_view op_;
  const std::string& file_;
  const unsigned char* p_;
  size_t left_;
};

}  // namespace burn::record::plugin_detail
