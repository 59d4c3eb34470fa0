// Test-only fault injection (BURN_VULKAN_FAULT, docs/environment.md): makes the runtime act as if the
// driver failed at one point, for the faults lavapipe cannot be made to give (a refusing driver, a lost
// device, a full heap, a kernel that does not compile). Read at each check, so a test can set and unset it
// around one call. Errors from an injected fault say so.
#pragma once

#include <string>

namespace burn::vulkan {

enum class Fault {
  instance,          // vkCreateInstance fails with VK_ERROR_INITIALIZATION_FAILED
  device,            // vkCreateDevice fails with VK_ERROR_INITIALIZATION_FAILED
  device_lost,       // vkQueueSubmit returns VK_ERROR_DEVICE_LOST (nothing is submitted)
  device_lost_wait,  // the submission runs, then the wait for it returns VK_ERROR_DEVICE_LOST
  alloc,             // vkAllocateMemory of a block of its own (a request above 16 MiB) is out of device memory
  compile,           // every kernel compiled from now on gets a line glslang rejects
};

// Whether $BURN_VULKAN_FAULT (a `,`-separated list: instance, device, device-lost, device-lost-wait, alloc,
// compile) names `f`.
bool fault_injected(Fault f);

// " (injected by BURN_VULKAN_FAULT=...)": appended to the message of an injected fault.
std::string injected_note();

}  // namespace burn::vulkan
