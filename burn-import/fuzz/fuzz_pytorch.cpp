// The libFuzzer entry of the pytorch importer: the input is unpickled on its own (the unpickler's
// bounds and refusals), then written as a file that the reader opens and reads entry by entry and
// whole (zip and legacy layouts, views, storages). A burn::Error is the right answer to bad input;
// anything else that escapes, and any sanitizer report, is a bug.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "burn/tensor/error.hpp"
#include "burn/tensor/shape.hpp"
#include "reader.hpp"
#include "unpickler.hpp"

namespace {

// One file per process, in memory where /dev/shm exists.
const std::string& input_path() {
  static const std::string path = [] {
    const char* dir = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    return std::string(dir) + "/burn-fuzz-pytorch-" + std::to_string(::getpid()) + ".pt";
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Views may describe huge tensors over tiny storages: keep allocations within the fuzzer's budget.
  burn::set_max_alloc_bytes(size_t{64} << 20);
  try {
    (void)burn::import::pytorch::unpickle({data, size}, "input", "pickle");
  } catch (const burn::Error&) {
  }
  std::FILE* f = std::fopen(input_path().c_str(), "wb");
  if (!f) std::abort();
  if (size > 0) std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    auto reader = burn::import::pytorch::open_file(input_path(), "");
    for (const auto& e : reader->entries()) {
      try {
        (void)reader->read(e.path);
      } catch (const burn::Error&) {
      }
    }
    (void)reader->read_all();
  } catch (const burn::Error&) {
  }
  return 0;
}
