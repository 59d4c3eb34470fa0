// fuzz-burn: the NamedMpk reader of the `burn` importer (plain and gzip).
#include "fuzz_open.hpp"
#include "mpk_reader.hpp"

std::unique_ptr<burn::record::RecordReader> open_for_fuzz(const std::string& path) {
  return burn::import::burn_format::open_mpk(path);
}
