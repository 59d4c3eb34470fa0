// A test plugin of a non-backend kind (recorder), with a hand-written descriptor: create() returns a
// std::string holding TEST_OBJECT_TEXT, which the host test reads back through create_object().
#include <string>

#include "burn/tensor/plugin.hpp"

#ifndef TEST_PLUGIN_NAME
#error "TEST_PLUGIN_NAME is required"
#endif
#ifndef TEST_PLUGIN_SCORE
#define TEST_PLUGIN_SCORE 1
#endif
#ifndef TEST_OBJECT_TEXT
#define TEST_OBJECT_TEXT "kind test object"
#endif

namespace {

int32_t score() noexcept { return TEST_PLUGIN_SCORE; }

void* create(char*, size_t) noexcept {
  try {
    return new std::string(TEST_OBJECT_TEXT);
  } catch (...) {
    return nullptr;
  }
}

void destroy(void* p) noexcept { delete static_cast<std::string*>(p); }

// op_table_hash is 0: only backends follow the op table.
const BurnPluginDescriptor descriptor = {sizeof(BurnPluginDescriptor),
                                         BURN_PLUGIN_ABI_VERSION,
                                         BURN_PLUGIN_RECORDER,
                                         TEST_PLUGIN_NAME,
                                         "0.0.2",
                                         BURN_TENSOR_VERSION,
                                         BURN_TOOLCHAIN_TAG,
                                         &score,
                                         &create,
                                         &destroy,
                                         0};

}  // namespace

extern "C" __attribute__((visibility("default"))) const BurnPluginDescriptor* burn_plugin_entry() {
  return &descriptor;
}
