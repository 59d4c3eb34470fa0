// Device: a backend chain chosen at run time, from a spec string ("cpu", "trace<cpu>",
// "autodiff<fusion<cpu>>") or by wrapping (Device::get("cpu").trace()).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "burn/tensor/backend.hpp"

namespace burn {

// How an autodiff device trades memory for compute (Burn's CheckpointStrategy).
enum class Checkpointing : uint8_t {
  None,      // keep every tensor the backward pass needs: "autodiff<...>"
  Balanced,  // drop the outputs of memory-bound ops and recompute them in backward: "autodiff-balanced<...>"
};

class BURN_TENSOR_API Device {
 public:
  // No device: what a default-constructed tensor holds. name() is "none"; ops on it throw.
  Device() = default;
  // The same spec always returns the same device (one backend instance per spec per process).
  // Throws DeviceError for a malformed spec, PluginError for an unknown backend or decorator.
  static Device get(std::string_view spec);
  // The default device: $BURN_DEVICE when set, else "cpu".
  static Device default_device();
  // A device over a backend made by the caller (tests, embedding a custom backend).
  static Device from_backend(BackendPtr backend);

  Device wrap(std::string_view decorator) const;  // Device::get(decorator + "<" + name() + ">")
  Device trace() const { return wrap("trace"); }
  Device fused() const { return wrap("fusion"); }
  Device autodiff(Checkpointing c = Checkpointing::None) const {
    return wrap(c == Checkpointing::Balanced ? "autodiff-balanced" : "autodiff");
  }

  const BackendPtr& backend() const { return backend_; }
  Backend* operator->() const { return backend_.get(); }
  std::string name() const;
  void seed(uint64_t seed) const { backend_->seed(seed); }
  void sync() const { backend_->sync(); }

  bool operator==(const Device& o) const { return backend_ == o.backend_; }
  bool operator!=(const Device& o) const { return backend_ != o.backend_; }

 private:
  explicit Device(BackendPtr b) : backend_(std::move(b)) {}
  BackendPtr backend_;
};

// A parsed spec: "a<b<c>>" is {a, {b, {c}}}. Exposed for the command-line tools.
struct BURN_TENSOR_API DeviceSpec {
  std::string name;
  std::vector<DeviceSpec> inner;  // empty for a leaf backend, one element for a decorator
  std::string to_string() const;
};
BURN_TENSOR_API DeviceSpec parse_device_spec(std::string_view spec);

// Decorators register a factory under a name; burn-tensor registers "trace", the autodiff and
// fusion components register theirs when they are linked in. The summary (one line: what it does,
// which component) is what `burn devices` shows next to the spec form "name<B>".
using DecoratorFactory = std::function<BackendPtr(BackendPtr inner)>;
BURN_TENSOR_API void register_decorator(const std::string& name, DecoratorFactory factory, std::string summary = {});
BURN_TENSOR_API std::vector<std::string> registered_decorators();
BURN_TENSOR_API std::string decorator_summary(const std::string& name);  // "" if none or unregistered

// A decorator over an address instead of a backend: "remote<tcp://host:port>" calls the factory
// registered as "remote" with "tcp://host:port". A spec leaf "scheme://..." is an address; it runs to
// the closing '>'. Loaded on demand like the other decorators (libburn-<name>.so).
using AddressDecoratorFactory = std::function<BackendPtr(const std::string& address)>;
BURN_TENSOR_API void register_address_decorator(const std::string& name, AddressDecoratorFactory factory,
                                                std::string summary = {});
BURN_TENSOR_API std::vector<std::string> registered_address_decorators();

}  // namespace burn
