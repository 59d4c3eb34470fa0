// Param ids: unique per process and across the processes that save and load a checkpoint.
#include "burn/nn/param.hpp"

#include <atomic>
#include <chrono>
#include <random>

namespace burn::nn {

ParamId new_param_id() {
  // A random base per process plus a counter: unique within a process, and ids of two processes
  // (a checkpoint and the program loading it) do not collide by construction of the counter alone.
  static const uint64_t base = [] {
    std::random_device rd;
    const uint64_t r = (static_cast<uint64_t>(rd()) << 32) ^ rd();
    return r ^ static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }();
  static std::atomic<uint64_t> counter{0};
  // splitmix64 of base + n: distinct for distinct n, and spread over the 64 bits.
  uint64_t z = base + 0x9e3779b97f4a7c15ULL * (counter.fetch_add(1, std::memory_order_relaxed) + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

ParamBase::ParamBase(TensorHandle h, size_t rank, Kind kind, ParamRole role)
    : id_(new_param_id()), rank_(rank), kind_(kind), role_(role), require_grad_(role == ParamRole::Trainable) {
  set_handle(std::move(h));
}

void ParamBase::set_handle(TensorHandle h) {
  api::check_tensor(h, rank_, kind_, "Param");
  if (id_ == 0) id_ = new_param_id();
  // Only float parameters on an autodiff device are tracked; anywhere else require_grad is a no-op.
  if (kind_ == Kind::Float && autodiff_of(h.device)) {
    const bool tracked = require_grad_ && role_ == ParamRole::Trainable;
    if (tracked || api::is_require_grad(h)) h = api::set_require_grad(api::detach(h), tracked);
  }
  handle_ = std::move(h);
}

void ParamBase::set_require_grad(bool require) {
  if (role_ == ParamRole::Buffer) return;  // buffers are never trained
  require_grad_ = require;
  if (handle_.prim) set_handle(handle_);
}

const Shape& ParamBase::shape() const {
  if (!handle_.prim) throw ValueError("Param", "the parameter has no tensor yet (a default-constructed Param)");
  return handle_.prim->shape();
}

DType ParamBase::dtype() const {
  if (!handle_.prim) throw ValueError("Param", "the parameter has no tensor yet (a default-constructed Param)");
  return handle_.prim->dtype();
}

}  // namespace burn::nn
