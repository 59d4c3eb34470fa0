// The libFuzzer entry of every importer fuzzer: the input becomes a file, which the importer's
// reader (open_for_fuzz, one per fuzzer) opens and reads in full. A burn::Error is the right answer
// to bad input; anything else that escapes, and any sanitizer report, is a bug.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_open.hpp"

namespace {

// One file per process, in memory where /dev/shm exists.
const std::string& input_path() {
  static const std::string path = [] {
    const char* dir = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    return std::string(dir) + "/burn-import-fuzz-" + std::to_string(::getpid()) + BURN_FUZZ_EXTENSION;
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::FILE* f = std::fopen(input_path().c_str(), "wb");
  if (!f) std::abort();
  if (size > 0) std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    auto reader = open_for_fuzz(input_path());
    // Each entry on its own, then the whole record: both paths of every reader.
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
