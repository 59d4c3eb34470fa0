// File helpers shared by the sources.
#include "io.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "burn/data/dataset.hpp"

namespace burn::data::detail {

std::string quoted(const std::string& path) { return "'" + path + "'"; }

std::vector<uint8_t> read_file(const std::string& path, const char* op) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw DataError(op, quoted(path) + ": cannot open: " + std::strerror(errno));
  std::vector<uint8_t> out;
  uint8_t buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.insert(out.end(), buf, buf + n);
  bool failed = std::ferror(f);
  std::fclose(f);
  if (failed) throw DataError(op, quoted(path) + ": read error");
  return out;
}

}  // namespace burn::data::detail
