// BURN_VULKAN_FAULT: which failures the runtime pretends the driver gave.
#include "runtime/fault_injection.hpp"

#include "burn/gpu/fault_list.hpp"

namespace burn::vulkan {

namespace {

const char* name_of(Fault f) {
  switch (f) {
    case Fault::instance: return "instance";
    case Fault::device: return "device";
    case Fault::device_lost: return "device-lost";
    case Fault::device_lost_wait: return "device-lost-wait";
    case Fault::alloc: return "alloc";
    case Fault::compile: return "compile";
  }
  return "";
}

}  // namespace

bool fault_injected(Fault f) { return gpu::fault_listed("BURN_VULKAN_FAULT", name_of(f)); }

std::string injected_note() { return gpu::injected_note("BURN_VULKAN_FAULT"); }

}  // namespace burn::vulkan
