// A test plugin with a hand-written descriptor, so one field at a time can be made wrong
// (ABI version, struct size, toolchain tag, burn-tensor major, op table fingerprint) through compile definitions;
// TEST_NOTE_NAME and TEST_NOTE_KIND add a .burn_plugin section (none by default, as a hand-written plugin has).
#include "burn/tensor/plugin.hpp"

#ifndef TEST_PLUGIN_NAME
#error "TEST_PLUGIN_NAME is required"
#endif
#ifndef TEST_STRUCT_SIZE
#define TEST_STRUCT_SIZE sizeof(BurnPluginDescriptor)
#endif
#ifndef TEST_ABI_VERSION
#define TEST_ABI_VERSION BURN_PLUGIN_ABI_VERSION
#endif
#ifndef TEST_TOOLCHAIN
#define TEST_TOOLCHAIN BURN_TOOLCHAIN_TAG
#endif
#ifndef TEST_OP_TABLE_HASH
#define TEST_OP_TABLE_HASH burn::kOpTableHash
#endif
#ifndef TEST_TENSOR_VERSION
#define TEST_TENSOR_VERSION BURN_TENSOR_VERSION
#endif

namespace {

int32_t score() noexcept { return 1; }

void* create(char* err, size_t err_len) noexcept {
  if (err && err_len) std::snprintf(err, err_len, "hand-written test plugin: no backend");
  return nullptr;
}

void destroy(void*) noexcept {}

const BurnPluginDescriptor descriptor = {static_cast<uint32_t>(TEST_STRUCT_SIZE),
                                         TEST_ABI_VERSION,
                                         BURN_PLUGIN_BACKEND,
                                         TEST_PLUGIN_NAME,
                                         "0.0.1",
                                         TEST_TENSOR_VERSION,
                                         TEST_TOOLCHAIN,
                                         &score,
                                         &create,
                                         &destroy,
                                         TEST_OP_TABLE_HASH};

#ifdef TEST_NOTE_NAME
// A .burn_plugin section that disagrees with the descriptor: registered under the section's kind and name,
// rejected when opened.
__attribute__((section(BURN_PLUGIN_NOTE_SECTION), used)) constexpr BurnPluginNote note =
    burn::detail::plugin_note(TEST_NOTE_KIND, TEST_NOTE_NAME);
#endif

}  // namespace

extern "C" __attribute__((visibility("default"))) const BurnPluginDescriptor* burn_plugin_entry() {
  return &descriptor;
}
