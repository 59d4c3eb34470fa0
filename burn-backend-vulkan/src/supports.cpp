// VulkanBackend::supports(op, dtype), asked of the launchers' own checks rather than of a second table:
// each op of the plugin runs its *_defines or spec function (or the expression table) with the device's
// features and name, without a device, and is supported when that raises neither DTypeError nor
// Unsupported. burn-tensor's composite bodies (the DEFAULT ops the plugin does not implement) run on the
// dtypes of the ops they are built from. tests/supports_test.cpp calls every op on every dtype to check
// the answers.
#include <algorithm>
#include <iterator>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "burn/gpu/exprs.hpp"
#include "burn/tensor/error.hpp"
#include "dispatch.hpp"
#include "ops/creation.hpp"
#include "ops/elementwise.hpp"
#include "ops/indexing.hpp"
#include "ops/matmul.hpp"
#include "ops/nn_common.hpp"
#include "ops/reduce.hpp"
#include "vulkan_backend.hpp"

namespace burn::vulkan {

using gpu::elementwise_expr;
using gpu::Expr;
using gpu::scalar_bits;
using gpu::scalar_decoder;

namespace {

constexpr OpId kOwnOps[] = {BURN_VULKAN_OPS(BURN_OP_ID_OF)};

bool own(OpId op) { return std::find(std::begin(kOwnOps), std::end(kOwnOps), op) != std::end(kOwnOps); }

// The launcher check of op `op` (one of the plugin's) for dtype `d`: DTypeError or Unsupported when the
// launcher would refuse it.
void check_launcher(OpId op, DType d, const DeviceFeatures& f, const std::string& device) {
  const char* name = op_info(op).name;
  switch (op) {
    // Views, and the copy and fill kernels, which move every dtype the device has.
    case OpId::empty:
    case OpId::full:
    case OpId::from_data:
    case OpId::into_data:
    case OpId::cast:
    case OpId::reshape:
    case OpId::permute:
    case OpId::expand:
    case OpId::flip:
    case OpId::slice:
    case OpId::slice_assign:
    case OpId::cat:
    case OpId::repeat_dim: return;
    case OpId::gather:
    case OpId::select:
    case OpId::embedding: gather_defines(d, DType::I64, {0, 0}, 1, false, f, device, name); return;
    case OpId::scatter_add:
    case OpId::select_add:
    case OpId::embedding_backward: scatter_defines(d, DType::I64, {0, 0, 0}, 1, false, f, device, name); return;
    case OpId::argwhere: argwhere_defines(ArgwherePass::count, d, 0, 1, false, f, device); return;
    case OpId::arange:
      arange_length(0, 1, 1, d, name);
      arange_defines(d, f, device);
      return;
    case OpId::random: check_random_dtype(d, f, device); return;
    case OpId::matmul: check_gemm_dtype(d, f, device); return;
    case OpId::sort:
    case OpId::argsort:
    case OpId::topk: check_sortable(d, f, device, name); return;
    case OpId::cumsum:
    case OpId::cumprod:
    case OpId::cummax:
    case OpId::cummin: reduce_spec(scan_fold(op), d, f, device, name); return;
    default: break;
  }
  const OpGroup g = op_info(op).group;
  if (g == OpGroup::conv || g == OpGroup::pool || g == OpGroup::resample || g == OpGroup::norm ||
      g == OpGroup::attention || op == OpId::softmax || op == OpId::log_softmax) {
    nn::require_float(d, name);  // the module kernels (ops/nn.hpp) take float tensors only
    return;
  }
  if (op_info(op).group == OpGroup::reduce) {
    reduce_spec(op, d, f, device, name);
    return;
  }
  // Every other op of the plugin is an expression (exprs.cpp) run by the elementwise launcher.
  const std::optional<Expr> e = elementwise_expr(op, d);
  if (!e) throw Unsupported(name, "dtype " + std::string(dtype_name(d)) + " on Vulkan device " + device);
  elementwise_defines(op, d, std::vector<int>(static_cast<size_t>(e->arity), 0), 1, false, f, device);
}

// The ops of the plugin a composite body of burn-tensor/src/defaults calls that bound the dtypes it runs
// on: it runs on a dtype exactly when they all do (none: views and copies only, every dtype). Nothing for
// an op no entry covers, which is then not claimed.
std::optional<std::vector<OpId>> composite_parts(OpId op) {
  switch (op) {
    // Float-only bodies (require_float) of float math.
    case OpId::hypot: return std::vector{OpId::sqrt};
    case OpId::asinh:
    case OpId::acosh:
    case OpId::atanh: return std::vector{OpId::log, OpId::sqrt};
    // deform_conv2d samples its taps with floor and multiplies the columns; unfold and the pixel shuffles
    // move elements only; fold sums overlapping blocks.
    case OpId::deform_conv2d: return std::vector{OpId::floor, OpId::matmul};
    case OpId::unfold:
    case OpId::pixel_shuffle:
    case OpId::pixel_unshuffle: return std::vector<OpId>{};
    case OpId::fold: return std::vector{OpId::add};
    case OpId::grid_sample_2d: return std::vector{OpId::floor};
    default: return std::nullopt;
  }
}

bool derive(OpId op, DType d, const DeviceFeatures& f, const std::string& device) {
  if (op == OpId::quantized_linear) {
    // burn-tensor's composite (src/defaults/quant.cpp): x of a float dtype quantized in f32, the i8 weight and the
    // sums in f64, the result cast back to x's dtype.
    const bool x_ok = d == DType::F32 || d == DType::F16 || d == DType::BF16;
    return x_ok && derive(OpId::cast, d, f, device) && derive(OpId::cast, DType::I8, f, device) &&
           derive(OpId::round, DType::F32, f, device) && derive(OpId::mask_where, DType::F32, f, device) &&
           derive(OpId::min_dim, DType::F32, f, device) && derive(OpId::matmul, DType::F64, f, device) &&
           derive(OpId::mul, DType::F64, f, device) && derive(OpId::cast, DType::F64, f, device) &&
           derive(OpId::mask_where, d, f, device);
  }
  if (op == OpId::matmul_integer) {
    // burn-tensor's composite: the u8/i8 operands and i32 zero points in f64, an f64 matmul, the wrap to int32 by
    // floor, the result cast to i32.
    return (d == DType::U8 || d == DType::I8) && derive(OpId::cast, d, f, device) &&
           derive(OpId::cast, DType::I32, f, device) && derive(OpId::cast, DType::F64, f, device) &&
           derive(OpId::matmul, DType::F64, f, device) && derive(OpId::sub, DType::F64, f, device) &&
           derive(OpId::floor, DType::F64, f, device);
  }
  try {
    glsl_type(d, f, device, op_info(op).name);  // a dtype the device lacks: nothing runs on it
    if (own(op)) {
      check_launcher(op, d, f, device);
      return true;
    }
  } catch (const DTypeError&) {
    return false;
  } catch (const Unsupported&) {
    return false;
  }
  const std::optional<std::vector<OpId>> parts = composite_parts(op);
  return parts && std::all_of(parts->begin(), parts->end(), [&](OpId p) { return derive(p, d, f, device); });
}

}  // namespace

bool VulkanBackend::supports(OpId op, DType dtype) const {
  // The answers depend only on the device: derived once, on the first question.
  std::call_once(supports_once_, [&] {
    supports_.assign(kOpCount, 0);
    for (size_t i = 0; i < kOpCount; ++i)
      for (DType d : kAllDTypes)
        if (derive(static_cast<OpId>(i), d, ctx_->profile().features, ctx_->profile().name))
          supports_[i] |= static_cast<uint16_t>(1u << static_cast<unsigned>(d));
  });
  return (supports_[static_cast<size_t>(op)] >> static_cast<unsigned>(dtype)) & 1u;
}

}  // namespace burn::vulkan
