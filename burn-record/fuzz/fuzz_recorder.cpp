// The libFuzzer entry of every recorder fuzzer: the input becomes a file, which the recorder compiled
// into this binary opens and reads in full; every group holding a quant_scheme then goes through the
// quantized-tensor checks a load runs before it allocates. A RecordError (any burn::Error) is the right
// answer to bad input; anything else that escapes, and any sanitizer report, is a bug.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "burn/record/quant.hpp"
#include "burn/record/recorder.hpp"

extern "C" const BurnPluginDescriptor* burn_plugin_entry();

namespace {

// Made once and kept for the whole run (reachable, so not reported as a leak).
BurnRecorderObject* g_object = nullptr;

burn::record::Recorder& recorder() {
  if (!g_object) {
    char err[256] = {};
    g_object = static_cast<BurnRecorderObject*>(burn_plugin_entry()->create(err, sizeof err));
    if (!g_object) {
      std::fprintf(stderr, "fuzz: the recorder could not be created: %s\n", err);
      std::abort();
    }
  }
  return *g_object->recorder;
}

// One file per process, in memory where /dev/shm exists.
const std::string& input_path() {
  static const std::string path = [] {
    const char* dir = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    return std::string(dir) + "/burn-fuzz-" + std::to_string(::getpid()) + BURN_FUZZ_EXTENSION;
  }();
  return path;
}

// The checks of every quantized tensor in `r`, each entry on its own.
void check_quantized_entries(const burn::record::Record& r) {
  for (const auto& e : r.flatten()) {
    if (!burn::record::is_quantized(*e.value)) continue;
    try {
      (void)burn::record::check_quantized(*e.value, e.path, "fuzz");
    } catch (const burn::Error&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::FILE* f = std::fopen(input_path().c_str(), "wb");
  if (!f) std::abort();
  if (size > 0) std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    auto reader = recorder().open(input_path());
    // Each entry on its own, then the whole record: both paths of every reader.
    for (const auto& e : reader->entries()) {
      try {
        (void)reader->read(e.path);
      } catch (const burn::Error&) {
      }
    }
    check_quantized_entries(reader->read_all());
  } catch (const burn::Error&) {
  }
  return 0;
}
