// Param: a module's tensor with a stable id and a require-grad flag (Burn's Param). Trainable
// parameters and buffers (batch norm's running statistics: saved, moved, never trained) are both
// Params; the role tells them apart.
#pragma once

#include <cstdint>
#include <string>

#include "burn/nn/export.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn::nn {

// Made at init from a thread-safe random source, kept by copies and in records, so optimizer state
// keyed by it survives save/load.
using ParamId = uint64_t;
BURN_NN_API ParamId new_param_id();

enum class ParamRole : uint8_t { Trainable, Buffer };

// What every walker of a module sees of a parameter; not a template, so walkers live in .cpp files.
class BURN_NN_API ParamBase {
 public:
  ParamId id() const { return id_; }
  void set_id(ParamId id) { id_ = id; }
  ParamRole role() const { return role_; }
  bool is_buffer() const { return role_ == ParamRole::Buffer; }
  // Whether an autodiff device tracks this parameter (false for buffers and frozen parameters).
  bool require_grad() const { return require_grad_; }
  size_t rank() const { return rank_; }
  Kind kind() const { return kind_; }
  bool initialized() const { return static_cast<bool>(handle_.prim); }
  const TensorHandle& handle() const { return handle_; }
  // Replaces the tensor; ShapeError when its rank or kind differ. On an autodiff device a trainable
  // parameter becomes a leaf that requires grad again (after an optimizer step, a load, a move).
  void set_handle(TensorHandle h);
  // Turns tracking on or off (freezing), re-marking the tensor on autodiff devices.
  void set_require_grad(bool require);
  const Shape& shape() const;
  DType dtype() const;
  int64_t num_elements() const { return shape().num_elements(); }

 protected:
  ParamBase(size_t rank, Kind kind, ParamRole role) : rank_(rank), kind_(kind), role_(role) {}
  ParamBase(TensorHandle h, size_t rank, Kind kind, ParamRole role);

 private:
  TensorHandle handle_;
  ParamId id_ = 0;
  size_t rank_;
  Kind kind_;
  ParamRole role_;
  bool require_grad_ = true;
};

template <typename T>
class Param;

// A typed parameter: `Param<Tensor<2>> weight;` read with weight.val().
template <size_t D, typename K>
class Param<Tensor<D, K>> : public ParamBase {
 public:
  Param() : ParamBase(D, K::kind, ParamRole::Trainable) {}
  explicit Param(const Tensor<D, K>& t, ParamRole role = ParamRole::Trainable)
      : ParamBase(t.handle(), D, K::kind, role) {}
  Tensor<D, K> val() const { return Tensor<D, K>(handle()); }
  void set(const Tensor<D, K>& t) { set_handle(t.handle()); }
};

// A non-trainable tensor saved with the module (running statistics).
template <size_t D, typename K = Float>
Param<Tensor<D, K>> buffer(const Tensor<D, K>& t) {
  return Param<Tensor<D, K>>(t, ParamRole::Buffer);
}

}  // namespace burn::nn
