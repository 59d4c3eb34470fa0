// The GPU backends' test-only fault injection lists (BURN_VULKAN_FAULT, BURN_OPENCL_FAULT): an environment
// variable holding a `,`-separated list of failure names. Read at each check, so a test can set and unset the
// variable around one call.
#pragma once

#include <string>
#include <string_view>

namespace burn::gpu {

// Whether $`variable` (a `,`-separated list, spaces around an item ignored) names `fault`.
bool fault_listed(const char* variable, std::string_view fault);

// " (injected by VARIABLE=value)": appended to the message of an injected fault.
std::string injected_note(const char* variable);

}  // namespace burn::gpu
