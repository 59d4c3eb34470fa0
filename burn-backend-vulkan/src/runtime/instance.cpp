// Creating the instance, listing and profiling devices, choosing one.
#include "runtime/instance.hpp"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "burn/tensor/error.hpp"
#include "burn/tensor/log.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/vk_error.hpp"

namespace burn::vulkan {

namespace {

bool env_on(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

bool has_layer(const char* name) {
  uint32_t n = 0;
  vkEnumerateInstanceLayerProperties(&n, nullptr);
  std::vector<VkLayerProperties> layers(n);
  vkEnumerateInstanceLayerProperties(&n, layers.data());
  return std::any_of(layers.begin(), layers.end(),
                     [&](const VkLayerProperties& l) { return std::strcmp(l.layerName, name) == 0; });
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The shared objects mapped into the process now (by path).
std::set<std::string> loaded_modules() {
  std::set<std::string> out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        if (info->dlpi_name && info->dlpi_name[0]) static_cast<std::set<std::string>*>(data)->insert(info->dlpi_name);
        return 0;
      },
      &out);
  return out;
}

// The drivers the loader opened for this instance stay mapped until the process exits: Mesa's keep
// per-process state past vkDestroyInstance that unloading leaks, and a leak report of theirs needs their
// symbols (the asan preset suppresses lavapipe's own by module name, which an unloaded module has not).
void keep_mapped(const std::set<std::string>& before) {
  for (const std::string& m : loaded_modules())
    if (!before.count(m)) dlopen(m.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

}  // namespace

std::shared_ptr<Instance> Instance::get() {
  static std::mutex mutex;
  static std::weak_ptr<Instance> current;
  std::lock_guard lock(mutex);
  if (auto existing = current.lock()) return existing;
  std::shared_ptr<Instance> made(new Instance());
  current = made;
  return made;
}

Instance::Instance() {
  uint32_t loader_version = VK_API_VERSION_1_0;
  if (vkEnumerateInstanceVersion(&loader_version) != VK_SUCCESS || loader_version < VK_API_VERSION_1_2)
    throw Unsupported("vulkan", "the Vulkan loader offers API " + std::to_string(VK_API_VERSION_MAJOR(loader_version)) +
                                    "." + std::to_string(VK_API_VERSION_MINOR(loader_version)) + "; burn needs 1.2");

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "burn-cpp";
  app.pEngineName = "burn-cpp";
  app.apiVersion = std::min<uint32_t>(loader_version, VK_API_VERSION_1_3);

  std::vector<const char*> layers, extensions;
  const bool validate = env_on("BURN_VULKAN_VALIDATION");
  if (validate) {
    if (has_layer("VK_LAYER_KHRONOS_validation")) {
      layers.push_back("VK_LAYER_KHRONOS_validation");
      extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    } else {
      log::warn(
          "vulkan: BURN_VULKAN_VALIDATION is set but VK_LAYER_KHRONOS_validation is not installed "
          "(Debian: vulkan-validationlayers)");
    }
  }
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  info.enabledLayerCount = static_cast<uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  const std::set<std::string> modules_before = loaded_modules();
  const bool injected = fault_injected(Fault::instance);
  const VkResult r = injected ? VK_ERROR_INITIALIZATION_FAILED : vkCreateInstance(&info, nullptr, &instance_);
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
    throw Unsupported("vulkan",
                      "no Vulkan driver: the loader found no installable client driver (install a GPU "
                      "driver, or mesa-vulkan-drivers for lavapipe on the CPU; VK_ICD_FILENAMES may point "
                      "elsewhere)");
  // A driver that is installed but refuses to start (a broken install, a GPU the driver gave up on).
  if (r < 0)
    throw DeviceError("vulkan",
                      std::string("the Vulkan driver refused to create an instance: vkCreateInstance failed: ") +
                          result_name(r) + " (" + std::to_string(static_cast<int>(r)) + ")" +
                          (injected ? injected_note() : std::string()));

  if (!layers.empty()) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
    VkDebugUtilsMessengerCreateInfoEXT m{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    m.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    m.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                    VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    m.pfnUserCallback = &Instance::on_message;
    m.pUserData = this;
    if (create) check_vk(create(instance_, &m, nullptr, &messenger_), "vkCreateDebugUtilsMessengerEXT");
  }

  uint32_t n = 0;
  check_vk(vkEnumeratePhysicalDevices(instance_, &n, nullptr), "vkEnumeratePhysicalDevices");
  physical_.resize(n);
  check_vk(vkEnumeratePhysicalDevices(instance_, &n, physical_.data()), "vkEnumeratePhysicalDevices");
  physical_.resize(n);
  for (uint32_t i = 0; i < n; ++i) profiles_.push_back(profile_device(instance_, physical_[i], i));
  keep_mapped(modules_before);
}

Instance::~Instance() {
  if (messenger_) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy) destroy(instance_, messenger_, nullptr);
  }
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

VKAPI_ATTR VkBool32 VKAPI_CALL Instance::on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                    VkDebugUtilsMessageTypeFlagsEXT,
                                                    const VkDebugUtilsMessengerCallbackDataEXT* data, void* self) {
  static_cast<Instance*>(self)->validation_messages_.fetch_add(1);
  const bool error = severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  log::write(error ? log::Level::error : log::Level::warn,
             std::string("Vulkan validation: ") + (data && data->pMessage ? data->pMessage : "(no message)"));
  return VK_FALSE;
}

int32_t Instance::best_score() const {
  int32_t best = 0;
  for (const auto& p : profiles_) best = std::max(best, device_score(p));
  return best;
}

const DeviceProfile& Instance::choose(std::string_view arg) const {
  std::string want(arg);
  std::string source = "device '" + want + "'";
  if (want.empty()) {
    if (const char* env = std::getenv("BURN_VULKAN_DEVICE"); env && *env) {
      want = env;
      source = "BURN_VULKAN_DEVICE='" + want + "'";
    }
  }
  auto list = [&] {
    std::string s;
    for (const auto& p : profiles_) s += "\n  " + p.describe();
    return s.empty() ? std::string(" (none: no Vulkan driver reports a device)") : s;
  };
  const DeviceProfile* found = nullptr;
  if (want.empty()) {
    for (const auto& p : profiles_)
      if (device_score(p) > 0 && (!found || device_score(p) > device_score(*found))) found = &p;
    if (!found) throw DeviceError("vulkan", "no usable Vulkan device; devices:" + list());
    return *found;
  }
  const bool digits = std::all_of(want.begin(), want.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits) {
    const unsigned long index = want.size() > 9 ? ~0ul : std::stoul(want);
    if (index < profiles_.size()) found = &profiles_[index];
  } else {
    for (const auto& p : profiles_)
      if (lower(p.name).find(lower(want)) != std::string::npos) {
        found = &p;
        break;
      }
  }
  if (!found) throw DeviceError("vulkan", source + " matches no Vulkan device; devices:" + list());
  if (!found->usable()) throw DeviceError("vulkan", source + " is not usable:" + list());
  return *found;
}

}  // namespace burn::vulkan
