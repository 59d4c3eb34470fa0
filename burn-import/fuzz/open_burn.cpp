// fuzz-burn: the readers of the `burn` importer: burnpack by its magic, NamedMpk (plain and gzip) otherwise.
#include <cstdio>
#include <cstring>

#include "burn_format.hpp"
#include "fuzz_open.hpp"

std::unique_ptr<burn::record::RecordReader> open_for_fuzz(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  char magic[4] = {};
  const size_t n = f ? std::fread(magic, 1, 4, f) : 0;
  if (f) std::fclose(f);
  if (n == 4 && std::memcmp(magic, "NRUB", 4) == 0) return burn::record::burn_format::open_bpk(path, "import.burnpack");
  return burn::record::burn_format::open_mpk(path, "import.burn");
}
