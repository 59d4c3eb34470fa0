// VulkanBackend::supports(op, dtype) against what the ops do: every op of the table is called on every
// dtype with small valid inputs, and supports() must be false exactly when the call raises DTypeError or
// Unsupported. Inputs are built from the op's signature in the op table (tensors of the dtype under test,
// i64 indices, bool masks, small dims and options), with the shapes of the ops that need more (conv,
// pools, norms, attention) set per op below.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "burn/tensor/error.hpp"
#include "runtime/instance.hpp"
#include "vulkan_backend.hpp"

namespace burn::vulkan {
namespace {

constexpr DType kDtypes[] = {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I64,
                             DType::I32, DType::I8,  DType::U8,  DType::Bool};

// The arguments of one call of one op on dtype `d`, by parameter type and name.
struct Args {
  Backend& b;
  OpId op;
  DType d;
  std::map<std::string, Shape, std::less<>> shapes;  // a tensor parameter's shape, default [2, 2]
  std::map<std::string, DType, std::less<>> dtypes;  // a tensor parameter's dtype, default `d`
  Shape shape{2, 2};                                 // a Shape parameter (reshape, expand, full, ...)
  Shape output_size{1, 1};
  Axes axes{1, 0};
  int64_t factor = 2;
  ConvOptions conv;
  ConvTransposeOptions conv_transpose;
  DeformConvOptions deform;
  UnfoldOptions unfold{{2, 2}, {}, {}, {}};
  PoolOptions pool{{2, 2}, {}, {}, {}, {}, false, true};
  InterpolateOptions interpolate;
  GridSampleOptions grid_sample;
  AttentionOptions attention;
  ConvGradMask conv_grads;

  // Ones of the parameter's dtype (zeros for indices, true for masks): no division by zero, every index
  // in range.
  Prim tensor(std::string_view name) {
    const auto s = shapes.find(name);
    const Shape sh = s == shapes.end() ? Shape{2, 2} : s->second;
    DType dt = d;
    if (name == "indices") dt = DType::I64;
    if (name == "mask") dt = DType::Bool;
    if (const auto t = dtypes.find(name); t != dtypes.end()) dt = t->second;
    const double v = name == "indices" ? 0.0 : 1.0;
    return b.from_data(
        TensorData::from_vector(std::vector<double>(static_cast<size_t>(sh.num_elements()), v), sh).convert(dt));
  }

  template <class T>
  T get(std::string_view name);
};

template <>
Prim Args::get<Prim>(std::string_view name) {
  return tensor(name);
}
template <>
Prims Args::get<Prims>(std::string_view) {
  return {tensor("x"), tensor("x")};
}
template <>
TensorData Args::get<TensorData>(std::string_view) {
  return TensorData::from_vector(std::vector<double>(4, 1.0), Shape{2, 2}).convert(d);
}
template <>
size_t Args::get<size_t>(std::string_view) {
  return 1;  // dim 1, normalized_dims 1
}
template <>
int64_t Args::get<int64_t>(std::string_view name) {
  if (name == "start") return 0;
  if (name == "end" || name == "times") return 2;
  if (name == "factor") return factor;
  return 1;  // step, correction, k, num_groups
}
template <>
Scalar Args::get<Scalar>(std::string_view) {
  return Scalar(1.0);
}
template <>
double Args::get<double>(std::string_view) {
  return 0.5;  // slopes, alphas, betas, eps, momentum
}
template <>
bool Args::get<bool>(std::string_view) {
  return false;
}
template <>
DType Args::get<DType>(std::string_view) {
  return d;
}
template <>
Shape Args::get<Shape>(std::string_view name) {
  return name == "output_size" ? output_size : shape;
}
template <>
Axes Args::get<Axes>(std::string_view) {
  return axes;
}
template <>
Slices Args::get<Slices>(std::string_view) {
  return {{0, 1, 1}};
}
template <>
Distribution Args::get<Distribution>(std::string_view) {
  return Distribution::uniform(0.0, 2.0);  // valid for every dtype (Default has no range for ints)
}
template <>
ConvOptions Args::get<ConvOptions>(std::string_view) {
  return conv;
}
template <>
ConvTransposeOptions Args::get<ConvTransposeOptions>(std::string_view) {
  return conv_transpose;
}
template <>
DeformConvOptions Args::get<DeformConvOptions>(std::string_view) {
  return deform;
}
template <>
UnfoldOptions Args::get<UnfoldOptions>(std::string_view) {
  return unfold;
}
template <>
PoolOptions Args::get<PoolOptions>(std::string_view) {
  return pool;
}
template <>
InterpolateOptions Args::get<InterpolateOptions>(std::string_view) {
  return interpolate;
}
template <>
GridSampleOptions Args::get<GridSampleOptions>(std::string_view) {
  return grid_sample;
}
template <>
ConvGradMask Args::get<ConvGradMask>(std::string_view) {
  return conv_grads;
}
template <>
AttentionOptions Args::get<AttentionOptions>(std::string_view) {
  return attention;
}

// The shapes and options of the ops whose signature alone does not give valid inputs.
void configure(Args& a) {
  const Shape image{1, 1, 4, 4}, pooled{1, 1, 2, 2};
  switch (a.op) {
    case OpId::reshape: a.shape = Shape{4}; break;
    case OpId::flip: a.axes = {0}; break;
    case OpId::slice_assign: a.shapes["value"] = Shape{1, 2}; break;
    case OpId::select:
    case OpId::select_add: a.shapes["indices"] = Shape{2}; break;
    case OpId::embedding_backward: a.shapes["grad_out"] = Shape{2, 2, 2}; break;
    case OpId::conv:
    case OpId::conv_backward:
      a.shapes = {{"x", image}, {"weight", Shape{1, 1, 3, 3}}, {"bias", Shape{1}}, {"grad_out", pooled}};
      break;
    case OpId::conv_transpose:
    case OpId::conv_transpose_backward:
      a.shapes = {{"x", pooled}, {"weight", Shape{1, 1, 3, 3}}, {"bias", Shape{1}}, {"grad_out", image}};
      break;
    case OpId::deform_conv2d:
      // offset [N, 2 kh kw, oh, ow] and mask [N, kh kw, oh, ow], both of the input's dtype.
      a.shapes = {{"x", image},
                  {"weight", Shape{1, 1, 3, 3}},
                  {"bias", Shape{1}},
                  {"offset", Shape{1, 18, 2, 2}},
                  {"mask", Shape{1, 9, 2, 2}}};
      a.dtypes["mask"] = a.d;
      break;
    case OpId::unfold: a.shapes["x"] = image; break;
    case OpId::fold:
      a.shapes["cols"] = Shape{1, 4, 9};  // [N, C kh kw, blocks] for a 4 x 4 output and a 2 x 2 kernel
      a.output_size = Shape{4, 4};
      break;
    case OpId::max_pool:
    case OpId::max_pool_with_indices:
    case OpId::avg_pool:
    case OpId::adaptive_avg_pool:
    case OpId::adaptive_max_pool:
    case OpId::max_pool_backward:
    case OpId::avg_pool_backward:
    case OpId::adaptive_avg_pool_backward:
    case OpId::adaptive_max_pool_backward:
      a.shapes = {{"x", image}, {"grad_out", pooled}, {"indices", pooled}};
      a.output_size = Shape{2, 2};
      break;
    case OpId::interpolate:
    case OpId::interpolate_backward:
      a.shapes = {{"x", pooled}, {"grad_out", image}};
      a.output_size = Shape{4, 4};
      break;
    case OpId::pixel_shuffle: a.shapes["x"] = Shape{1, 4, 2, 2}; break;
    case OpId::pixel_unshuffle: a.shapes["x"] = image; break;
    case OpId::grid_sample_2d: a.shapes = {{"x", image}, {"grid", Shape{1, 2, 2, 2}}}; break;
    case OpId::layer_norm:
    case OpId::layer_norm_backward:
    case OpId::rms_norm:
    case OpId::rms_norm_backward: a.shapes = {{"weight", Shape{2}}, {"bias", Shape{2}}}; break;
    case OpId::group_norm:
    case OpId::group_norm_backward:
    case OpId::batch_norm:
    case OpId::batch_norm_backward:
      a.shapes = {{"x", Shape{2, 2, 3}}, {"grad_out", Shape{2, 2, 3}}, {"weight", Shape{2}},
                  {"bias", Shape{2}},    {"running_mean", Shape{2}},   {"running_var", Shape{2}}};
      break;
    case OpId::attention:
      for (const char* n : {"query", "key", "value", "mask"}) a.shapes[n] = Shape{1, 1, 2, 2};
      break;
    case OpId::quantized_linear:
      a.shapes = {{"w_scales", Shape{2}}, {"w_zero_points", Shape{2}}, {"bias", Shape{2}}};
      a.dtypes = {{"w_values", DType::I8}, {"w_scales", DType::F32}, {"w_zero_points", DType::I32}};
      break;
    case OpId::matmul_integer:
      a.shapes = {{"a_zero_points", Shape{2}}, {"b_zero_points", Shape{2}}};
      a.dtypes = {{"a_zero_points", DType::I32}, {"b_zero_points", DType::I32}};
      break;
    default: break;
  }
}

enum class Outcome { ran, refused, other };

struct Result {
  Outcome outcome = Outcome::ran;
  std::string message;
};

// Calls `op` on `d` through the op table's signature; the device's faults surface at sync().
Result call(Backend& b, OpId op, DType d) {
  Args a{b, op, d};
  configure(a);
  try {
    switch (op) {
#define BURN_SUP_ARG(type, name) a.get<std::decay_t<type>>(#name)
#define BURN_SUP_CALL(group, name, tier, grad, bound, ret, ...) \
  case OpId::name: (void)b.name(BURN_PP_MAP(BURN_SUP_ARG, __VA_ARGS__)); break;
      BURN_OP_TABLE(BURN_SUP_CALL)
#undef BURN_SUP_CALL
#undef BURN_SUP_ARG
    }
    // cast to and from the dtype: the call above cast d to d (a no-op).
    if (op == OpId::cast) {
      (void)b.cast(a.tensor("x"), d == DType::F32 ? DType::I32 : DType::F32);
      Args from{b, op, DType::F32};
      (void)b.cast(from.tensor("x"), d);
    }
    b.sync();
    return {};
  } catch (const DTypeError& e) {
    return {Outcome::refused, e.what()};
  } catch (const Unsupported& e) {
    return {Outcome::refused, e.what()};
  } catch (const Error& e) {
    return {Outcome::other, e.what()};
  }
}

class VulkanSupports : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    try {
      auto inst = Instance::get();
      if (inst->best_score() == 0) return;
      vk_ = std::make_shared<VulkanBackend>(context_for(inst->choose("")), "vulkan");
    } catch (const std::exception&) {
      vk_.reset();
    }
  }
  static void TearDownTestSuite() { vk_.reset(); }
  void SetUp() override {
    if (!vk_) GTEST_SKIP() << "no usable Vulkan device (install mesa-vulkan-drivers for lavapipe)";
  }
  static std::shared_ptr<VulkanBackend> vk_;
};
std::shared_ptr<VulkanBackend> VulkanSupports::vk_;

TEST_F(VulkanSupports, AnswersWhatEveryOpDoesOnEveryDtype) {
  VulkanBackend& vk = *vk_;
  std::vector<std::string> wrong;
  for (const OpInfo& info : all_ops())
    for (DType d : kDtypes) {
      const Result r = call(vk, info.id, d);
      const std::string what = std::string(info.name) + " on " + std::string(dtype_name(d));
      const bool says = vk.supports(info.id, d);
      if (r.outcome == Outcome::other) {
        wrong.push_back(what + ": the test's inputs are not valid: " + r.message);
      } else if (says != (r.outcome == Outcome::ran)) {
        wrong.push_back(what + ": supports() says " + (says ? "yes" : "no") + " but the call " +
                        (r.outcome == Outcome::ran ? "ran" : "raised " + r.message));
      }
    }
  for (const std::string& w : wrong) ADD_FAILURE() << w;
}

}  // namespace
}  // namespace burn::vulkan
