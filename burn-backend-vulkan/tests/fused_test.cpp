// The fused executor: hand-made programs (elementwise chains, reductions with prologue and epilogue,
// softmax and the norms, matmul with an epilogue) give, in one dispatch, what the eager Vulkan ops give one
// at a time and what the cpu plugin's executor gives: broadcast and strided inputs, a reduce over a non-last
// dim, f32, f64 and f16, both kernel modes (BURN_VULKAN_REDUCE: an invocation per line, a workgroup per line).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>

#include "burn/tensor/error.hpp"
#include "burn/tensor/fused.hpp"
#include "burn/tensor/plugin.hpp"
#include "device_support.hpp"
#include "fused/executor.hpp"
#include "runtime/instance.hpp"
#include "vulkan_backend.hpp"

namespace burn::vulkan {
namespace {

FusedInstr instr(OpId op, uint16_t a, uint16_t b = 0, uint8_t n = 1) {
  FusedInstr in;
  in.op = op;
  in.args[0] = a;
  in.args[1] = b;
  in.n_args = n;
  return in;
}

TEST(VulkanFused, AChainWithBroadcastAScalarAndABoolOutputIsOneDispatch) {
  auto ctx = context_or_null();
  if (!ctx) GTEST_SKIP() << "no usable Vulkan device";
  VulkanBackend be(ctx, "vulkan");
  auto* ex = static_cast<FusedExecutor*>(be.query_interface(kFusedElementwiseInterface));
  ASSERT_NE(ex, nullptr);
  const TensorData xd =
      TensorData::from_vector<float>({-1, 0, 1, 2, 3, 4, -2, 0.5f, 1.5f, 2.5f, -0.25f, 0.75f}, Shape{4, 3});
  const TensorData yd = TensorData::from_vector<float>({0.5f, -0.5f, 1}, Shape{3});
  Prim x = be.from_data(xd), y = be.from_data(yd);

  FusedProgram p;
  p.shape = Shape{4, 3};
  p.num_inputs = 2;
  p.reg_dtype = {DType::F32, DType::F32, DType::F32, DType::F32, DType::Bool};
  p.code.push_back(instr(OpId::add, 0, 1, 2));  // r2 = x + y
  p.code.push_back(instr(OpId::exp, 2));        // r3 = exp(r2)
  FusedInstr gt = instr(OpId::greater_elem, 3);
  gt.scalars[0] = Scalar(2.0);
  gt.n_args = 1;
  p.code.push_back(gt);  // r4 = r3 > 2
  p.outputs = {3, 4};
  ASSERT_TRUE(ex->can_run(p));

  auto* stats = static_cast<VulkanStatsSource*>(be.query_interface("vulkan-stats"));
  const uint64_t before = stats->stats().dispatches;
  Prims outs = ex->run(p, {x, y});
  EXPECT_EQ(stats->stats().dispatches - before, 1u);
  ASSERT_EQ(outs.size(), 2u);

  Prim e = be.exp(be.add(x, y));
  Prim g = be.greater_elem(e, Scalar(2.0));
  EXPECT_EQ(be.into_data(outs[0]).to_vec<float>(), be.into_data(e).to_vec<float>());
  EXPECT_EQ(be.into_data(outs[1]).to_vec<bool>(), be.into_data(g).to_vec<bool>());
}

// ---- reduce and anchor programs, against the eager ops and the cpu plugin ----

// A program under construction: inputs with their data, then instructions.
struct Built {
  FusedProgram p;
  std::vector<TensorData> data;
  std::vector<std::function<Prim(Backend&, Prim)>> views;  // applied to input k on every backend
  uint16_t input(const TensorData& d, std::function<Prim(Backend&, Prim)> view = nullptr) {
    data.push_back(d);
    views.push_back(std::move(view));
    p.reg_dtype.insert(p.reg_dtype.begin() + static_cast<long>(p.num_inputs), d.dtype());
    return static_cast<uint16_t>(p.num_inputs++);
  }
  uint16_t op(FusedInstr in, DType result) {
    in.out = static_cast<uint16_t>(p.reg_dtype.size());
    p.code.push_back(in);
    p.reg_dtype.push_back(result);
    return in.out;
  }
};

// The program op by op on `be`: what burn-fusion does without an executor.
Prims op_by_op(Backend& be, const FusedProgram& p, const Prims& inputs) {
  std::vector<Prim> r(inputs.begin(), inputs.end());
  auto arg = [&](const FusedInstr& in, size_t q) -> Prim {
    return q < in.n_args && in.args[q] != kNoRegister ? r[in.args[q]] : nullptr;
  };
  for (const FusedInstr& in : p.code) {
    Prim a = arg(in, 0), b = arg(in, 1);
    Prim y;
    switch (in.op) {
      case OpId::add: y = be.add(a, b); break;
      case OpId::sub: y = be.sub(a, b); break;
      case OpId::mul: y = be.mul(a, b); break;
      case OpId::exp: y = be.exp(a); break;
      case OpId::lower_equal: y = be.lower_equal(a, b); break;
      case OpId::cast: y = be.cast(a, in.param_dtype); break;
      case OpId::relu: y = be.relu(a); break;
      case OpId::gelu: y = be.gelu(a); break;
      case OpId::mul_scalar: y = be.mul_scalar(a, in.scalars[0]); break;
      case OpId::add_scalar: y = be.add_scalar(a, in.scalars[0]); break;
      case OpId::sum_dim: y = be.sum_dim(a, in.dim); break;
      case OpId::mean_dim: y = be.mean_dim(a, in.dim); break;
      case OpId::max_dim: y = be.max_dim(a, in.dim); break;
      case OpId::min_dim: y = be.min_dim(a, in.dim); break;
      case OpId::argmax: y = be.argmax(a, in.dim); break;
      case OpId::argmin: y = be.argmin(a, in.dim); break;
      case OpId::softmax: y = be.softmax(a, in.dim); break;
      case OpId::log_softmax: y = be.log_softmax(a, in.dim); break;
      case OpId::layer_norm: y = be.layer_norm(a, b, arg(in, 2), in.dim, in.params[0]); break;
      case OpId::rms_norm: y = be.rms_norm(a, b, in.dim, in.params[0]); break;
      case OpId::matmul: y = be.matmul(a, b); break;
      case OpId::conv: y = be.conv(a, b, arg(in, 2), in.conv); break;
      case OpId::conv_transpose: y = be.conv_transpose(a, b, arg(in, 2), in.conv_transpose); break;
      default: ADD_FAILURE() << "op_by_op: add " << op_info(in.op).name; return {};
    }
    r.push_back(y);
  }
  Prims out;
  for (uint16_t o : p.outputs) out.push_back(r[o]);
  return out;
}

TensorData random(DType d, const Shape& s, uint32_t seed, double lo = -2, double hi = 2) {
  std::mt19937 gen(seed);
  std::vector<double> v(static_cast<size_t>(s.num_elements()));
  if (d == DType::I64 || d == DType::I32) {
    std::uniform_int_distribution<int64_t> u(static_cast<int64_t>(lo), static_cast<int64_t>(hi));
    for (double& x : v) x = static_cast<double>(u(gen));
  } else {
    std::uniform_real_distribution<double> u(lo, hi);
    for (double& x : v) x = u(gen);
  }
  return TensorData::from_vector(v, s).convert(d);
}

// The tolerance of a fused result against the eager one (burn-backend-vulkan/README.md, "fusion<vulkan>").
double tolerance(DType d) { return d == DType::F16 ? 2e-3 : d == DType::F64 ? 1e-12 : 2e-6; }

void expect_close(const TensorData& got, const TensorData& want, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  const std::vector<double> g = got.convert(DType::F64).to_vec<double>(), w = want.convert(DType::F64).to_vec<double>();
  const double tol = tolerance(got.dtype());
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(w[i])) {
      EXPECT_TRUE(std::isnan(g[i])) << what << " at " << i;
      continue;
    }
    ASSERT_NEAR(g[i], w[i], tol * (1 + std::abs(w[i]))) << what << " at " << i << " of " << got.shape().to_string();
  }
}

// Run in both kernel modes of the fused reduce kernel (BURN_VULKAN_REDUCE).
class VulkanFusedPrograms : public ::testing::TestWithParam<const char*> {
 protected:
  static void SetUpTestSuite() {
    auto ctx = context_or_null();
    if (!ctx) return;
    vk_ = std::make_shared<VulkanBackend>(ctx, "vulkan");
    try {
      cpu_ = plugins::create_backend("cpu");
    } catch (const std::exception&) {
      cpu_.reset();
    }
  }
  static void TearDownTestSuite() {
    vk_.reset();
    cpu_.reset();
  }
  void SetUp() override {
    if (!vk_) GTEST_SKIP() << "no usable Vulkan device";
    setenv("BURN_VULKAN_REDUCE", GetParam(), 1);
  }
  void TearDown() override { unsetenv("BURN_VULKAN_REDUCE"); }
  static bool has(DType d) { return vk_->supports(OpId::add, d); }

  // Runs b's program fused on Vulkan (expecting `dispatches` dispatches), op by op on Vulkan and fused on
  // the cpu plugin (f16 as f32 there), and compares every output.
  static void check(Built& b, uint64_t dispatches = 1) {
    FusedExecutor* ex = static_cast<FusedExecutor*>(vk_->query_interface(kFusedElementwiseInterface));
    ASSERT_TRUE(ex->can_run(b.p)) << "the executor refuses the program";
    Prims in;
    for (size_t k = 0; k < b.data.size(); ++k) {
      Prim x = vk_->from_data(b.data[k]);
      in.push_back(b.views[k] ? b.views[k](*vk_, x) : x);
    }
    auto* stats = static_cast<VulkanStatsSource*>(vk_->query_interface("vulkan-stats"));
    const uint64_t before = stats->stats().dispatches;
    const Prims fused = ex->run(b.p, in);
    EXPECT_EQ(stats->stats().dispatches - before, dispatches);
    const Prims eager = op_by_op(*vk_, b.p, in);
    ASSERT_EQ(fused.size(), b.p.outputs.size());
    ASSERT_EQ(eager.size(), fused.size());
    for (size_t m = 0; m < fused.size(); ++m)
      expect_close(vk_->into_data(fused[m]), vk_->into_data(eager[m]), "output " + std::to_string(m) + " vs eager");
    if (!cpu_) return;
    // The cpu executor on the same program, f16 registers as f32.
    FusedProgram cp = b.p;
    for (DType& d : cp.reg_dtype)
      if (d == DType::F16) d = DType::F32;
    auto* cex = static_cast<FusedExecutor*>(cpu_->query_interface(kFusedElementwiseInterface));
    ASSERT_NE(cex, nullptr);
    Prims cin;
    for (size_t k = 0; k < b.data.size(); ++k) {
      const TensorData d = b.data[k].dtype() == DType::F16 ? b.data[k].convert(DType::F32) : b.data[k];
      Prim x = cpu_->from_data(d);
      cin.push_back(b.views[k] ? b.views[k](*cpu_, x) : x);
    }
    ASSERT_TRUE(cex->can_run(cp));
    const Prims ref = cex->run(cp, cin);
    for (size_t m = 0; m < fused.size(); ++m) {
      TensorData got = vk_->into_data(fused[m]);
      if (got.dtype() == DType::F16) {
        // f16 against an f32 computation: the f16 rounding of each stored step.
        const std::vector<double> g = got.convert(DType::F64).to_vec<double>();
        const std::vector<double> w = cpu_->into_data(ref[m]).convert(DType::F64).to_vec<double>();
        for (size_t i = 0; i < g.size(); ++i) ASSERT_NEAR(g[i], w[i], 2e-2 * (1 + std::abs(w[i]))) << "f16 at " << i;
        continue;
      }
      expect_close(got, cpu_->into_data(ref[m]), "output " + std::to_string(m) + " vs cpu");
    }
  }

  static std::shared_ptr<VulkanBackend> vk_;
  static BackendPtr cpu_;
};
std::shared_ptr<VulkanBackend> VulkanFusedPrograms::vk_;
BackendPtr VulkanFusedPrograms::cpu_;

FusedInstr red(OpId op, uint16_t a, uint32_t dim) {
  FusedInstr in = instr(op, a);
  in.dim = dim;
  return in;
}
FusedInstr scalar_op(OpId op, uint16_t a, double s) {
  FusedInstr in = instr(op, a);
  in.scalars[0] = Scalar(s);
  return in;
}

// Prologue x * y (y broadcast), exp; every reduction to size 1 over a non-last dim; epilogue + z (z
// broadcast over the result's shape); the prologue register, the reduce and the epilogue all stored.
TEST_P(VulkanFusedPrograms, ReductionsWithPrologueAndEpilogueOverANonLastDim) {
  for (DType d : {DType::F32, DType::F64, DType::F16, DType::I32, DType::I64}) {
    if (!has(d)) continue;
    for (OpId op : {OpId::sum_dim, OpId::mean_dim, OpId::max_dim, OpId::min_dim, OpId::argmax, OpId::argmin}) {
      for (int64_t n : {int64_t{5}, int64_t{300}}) {
        SCOPED_TRACE(std::string(op_info(op).name) + " " + std::string(dtype_name(d)) + " n " + std::to_string(n));
        const bool integer = d == DType::I32 || d == DType::I64;
        Built b;
        const Shape s{3, n, 4};
        const uint16_t x = b.input(random(d, s, 1));
        const uint16_t y = b.input(random(d, Shape{n, 1}, 2));
        const uint16_t z = b.input(random(d, Shape{4}, 3));
        const uint16_t xy = b.op(instr(OpId::mul, x, y, 2), d);
        const uint16_t pre = integer ? b.op(scalar_op(OpId::add_scalar, xy, 3), d) : b.op(instr(OpId::exp, xy), d);
        const bool arg = op == OpId::argmax || op == OpId::argmin;
        const uint16_t r = b.op(red(op, pre, 1), arg ? DType::I64 : d);
        b.p.shape = s;
        b.p.outputs = {pre, r};
        if (!arg) b.p.outputs.push_back(b.op(instr(OpId::add, r, z, 2), d));
        check(b);
      }
    }
  }
}

// A reduce over the last dim of a transposed (strided) view, and over dim 0 of a broadcast input.
TEST_P(VulkanFusedPrograms, ReductionsOfViews) {
  Built b;
  const uint16_t x = b.input(random(DType::F32, Shape{6, 70}, 4), [](Backend& be, Prim p) {
    return be.permute(std::move(p), Axes{1, 0});
  });
  const uint16_t t = b.op(scalar_op(OpId::mul_scalar, x, 0.5), DType::F32);
  b.op(red(OpId::sum_dim, t, 1), DType::F32);
  b.p.shape = Shape{70, 6};
  b.p.outputs = {static_cast<uint16_t>(b.p.num_inputs + 1)};
  check(b);

  Built c;
  const uint16_t v = c.input(random(DType::F32, Shape{1, 9}, 5));
  const uint16_t w = c.input(random(DType::F32, Shape{7, 1}, 6));
  const uint16_t a = c.op(instr(OpId::add, v, w, 2), DType::F32);
  c.p.outputs = {c.op(red(OpId::max_dim, a, 0), DType::F32)};
  c.p.shape = Shape{7, 9};
  check(c);
}

// softmax and log_softmax over the last dim and a middle one, with a prologue and an epilogue.
TEST_P(VulkanFusedPrograms, SoftmaxWithPrologueAndEpilogue) {
  for (DType d : {DType::F32, DType::F64, DType::F16}) {
    if (!has(d)) continue;
    for (OpId op : {OpId::softmax, OpId::log_softmax})
      for (uint32_t dim : {1u, 2u}) {
        SCOPED_TRACE(std::string(op_info(op).name) + " " + std::string(dtype_name(d)) + " dim " + std::to_string(dim));
        Built b;
        const Shape s{2, 5, 80};
        const uint16_t x = b.input(random(d, s, 7, -4, 4));
        const uint16_t m = b.input(random(d, Shape{80}, 8));
        const uint16_t pre = b.op(instr(OpId::add, x, m, 2), d);
        const uint16_t r = b.op(red(op, pre, dim), d);
        b.p.outputs = {r, b.op(scalar_op(OpId::mul_scalar, r, 3.0), d)};
        b.p.shape = s;
        check(b);
      }
  }
}

// layer_norm (weight, bias, neither) and rms_norm over the last one and two dims, with a relu epilogue.
TEST_P(VulkanFusedPrograms, NormsWithPrologueAndEpilogue) {
  for (DType d : {DType::F32, DType::F64, DType::F16}) {
    if (!has(d)) continue;
    for (OpId op : {OpId::layer_norm, OpId::rms_norm})
      for (uint32_t nd : {1u, 2u})
        for (bool affine : {true, false}) {
          SCOPED_TRACE(std::string(op_info(op).name) + " " + std::string(dtype_name(d)) + " dims " +
                       std::to_string(nd) + (affine ? " affine" : ""));
          Built b;
          const Shape s{3, 4, 96};
          const Shape ws = nd == 1 ? Shape{96} : Shape{4, 96};
          const uint16_t x = b.input(random(d, s, 9));
          const uint16_t w = affine ? b.input(random(d, ws, 10)) : kNoRegister;
          const uint16_t bias = affine && op == OpId::layer_norm ? b.input(random(d, ws, 11)) : kNoRegister;
          const uint16_t pre = b.op(scalar_op(OpId::mul_scalar, x, 2.0), d);
          FusedInstr in = red(op, pre, nd);
          in.args[1] = w;
          in.args[2] = bias;
          in.n_args = op == OpId::layer_norm ? 3 : 2;
          in.params[0] = 1e-5;
          const uint16_t r = b.op(in, d);
          b.p.outputs = {b.op(instr(OpId::relu, r), d)};
          b.p.shape = s;
          check(b);
        }
  }
}

// matmul + bias + gelu, batched with a broadcast lhs, the product kept too; f32, f64, f16.
TEST_P(VulkanFusedPrograms, MatmulWithBiasAndGeluIsOneDispatch) {
  for (DType d : {DType::F32, DType::F64, DType::F16}) {
    if (!has(d)) continue;
    SCOPED_TRACE(dtype_name(d));
    Built b;
    const uint16_t l = b.input(random(d, Shape{1, 7, 33}, 12));
    const uint16_t r = b.input(random(d, Shape{2, 33, 19}, 13));
    const uint16_t bias = b.input(random(d, Shape{19}, 14));
    const uint16_t mm = b.op(instr(OpId::matmul, l, r, 2), d);
    const uint16_t a = b.op(instr(OpId::add, mm, bias, 2), d);
    b.p.outputs = {b.op(instr(OpId::gelu, a), d), mm};
    b.p.shape = Shape{2, 7, 19};
    check(b);
  }
  // The lhs a transposed view (a Linear's weight), the epilogue reading a strided residual.
  Built b;
  const uint16_t l = b.input(random(DType::F32, Shape{9, 5}, 15), [](Backend& be, Prim p) {
    return be.permute(std::move(p), Axes{1, 0});
  });
  const uint16_t r = b.input(random(DType::F32, Shape{9, 6}, 16));
  const uint16_t res = b.input(random(DType::F32, Shape{6, 5}, 17), [](Backend& be, Prim p) {
    return be.permute(std::move(p), Axes{1, 0});
  });
  const uint16_t mm = b.op(instr(OpId::matmul, l, r, 2), DType::F32);
  b.p.outputs = {b.op(instr(OpId::add, mm, res, 2), DType::F32)};
  b.p.shape = Shape{5, 6};
  check(b);
}

// A line longer than lavapipe's loop limit lets an invocation walk (65535 iterations, the index
// arithmetic's inner loops counted): a sum over dim 0 of 40000 rows of a broadcast compare, as the
// conformance's categorical frequencies (an invocation per line stopped after 16384 rows, silently).
TEST_P(VulkanFusedPrograms, ALongLineOfABroadcastInputIsFoldedWhole) {
  Built b;
  const uint16_t x = b.input(random(DType::F64, Shape{40000, 3, 1}, 18, 0, 4));
  const uint16_t c = b.input(random(DType::F64, Shape{5}, 19, 0, 4));
  const uint16_t le = b.op(instr(OpId::lower_equal, x, c, 2), DType::Bool);
  FusedInstr cast = instr(OpId::cast, le);
  cast.param_dtype = DType::F64;
  const uint16_t f = b.op(cast, DType::F64);
  b.p.outputs = {b.op(red(OpId::sum_dim, f, 0), DType::F64)};
  b.p.shape = Shape{40000, 3, 5};
  check(b);
}

// A line longer than a workgroup may walk under the driver's loop limit (lavapipe: 2^22 elements of a
// rank-1 sum) does not fit, so burn-fusion runs it op by op, whose eager sum splits the line.
TEST_P(VulkanFusedPrograms, ALineLongerThanAWorkgroupMayWalkRunsOpByOp) {
  const int64_t n = int64_t{1} << 22;
  Built b;
  const uint16_t x = b.input(TensorData::from_vector(std::vector<float>(static_cast<size_t>(n), 0.5f), Shape{n}));
  FusedInstr twice = instr(OpId::mul_scalar, x);
  twice.scalars[0] = Scalar(2.0);
  const uint16_t y = b.op(twice, DType::F32);
  b.p.outputs = {b.op(red(OpId::sum_dim, y, 0), DType::F32)};
  b.p.shape = Shape{n};
  auto* ex = static_cast<FusedExecutor*>(vk_->query_interface(kFusedElementwiseInterface));
  if (vk_->context().profile().limits.max_loop == 0) {
    EXPECT_TRUE(ex->fits(b.p)) << "a device without a loop limit fuses any line";
    check(b);
    return;
  }
  EXPECT_TRUE(ex->can_run(b.p));
  EXPECT_FALSE(ex->fits(b.p));
  const Prims out = op_by_op(*vk_, b.p, {vk_->from_data(b.data[0])});
  EXPECT_EQ(vk_->into_data(out[0]).to_vec<float>(), std::vector<float>{static_cast<float>(n)});
}

// conv2d + bias + relu and a grouped, strided conv + bias + residual, conv_transpose + bias + gelu: the bias
// in the conv kernel, the epilogue at its store, one dispatch; f32, f64, f16.
TEST_P(VulkanFusedPrograms, ConvsWithBiasAndEpilogueAreOneDispatch) {
  for (DType d : {DType::F32, DType::F64, DType::F16}) {
    if (!has(d)) continue;
    SCOPED_TRACE(dtype_name(d));
    {
      Built b;
      const uint16_t x = b.input(random(d, Shape{2, 3, 7, 6}, 20));
      const uint16_t w = b.input(random(d, Shape{4, 3, 3, 3}, 21));
      const uint16_t bias = b.input(random(d, Shape{4}, 22));
      FusedInstr cv = instr(OpId::conv, x, w, 3);
      cv.args[2] = bias;
      cv.conv = ConvOptions{{1, 1}, {1, 1}, {1, 1}, {1, 1}, 1};
      const uint16_t y = b.op(cv, d);
      b.p.outputs = {b.op(instr(OpId::relu, y), d)};
      b.p.shape = Shape{2, 4, 7, 6};
      check(b);
    }
    {
      Built b;
      const uint16_t x = b.input(random(d, Shape{1, 4, 9, 9}, 23));
      const uint16_t w = b.input(random(d, Shape{6, 2, 3, 3}, 24));
      const uint16_t bias = b.input(random(d, Shape{6}, 25));
      const uint16_t res = b.input(random(d, Shape{6, 1, 1}, 26));
      FusedInstr cv = instr(OpId::conv, x, w, 3);
      cv.args[2] = bias;
      cv.conv = ConvOptions{{2, 2}, {1, 1}, {1, 1}, {1, 1}, 2};
      const uint16_t y = b.op(cv, d);
      b.p.outputs = {b.op(instr(OpId::add, y, res, 2), d), y};
      b.p.shape = Shape{1, 6, 5, 5};
      check(b);
    }
    {
      Built b;
      const uint16_t x = b.input(random(d, Shape{2, 4, 5}, 27));
      const uint16_t w = b.input(random(d, Shape{4, 3, 3}, 28));
      const uint16_t bias = b.input(random(d, Shape{3}, 29));
      FusedInstr cv = instr(OpId::conv_transpose, x, w, 3);
      cv.args[2] = bias;
      cv.conv_transpose = ConvTransposeOptions{{2}, {1}, {1}, {1}, 1};
      const uint16_t y = b.op(cv, d);
      b.p.outputs = {b.op(instr(OpId::gelu, y), d)};
      b.p.shape = Shape{2, 3, 10};
      check(b);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, VulkanFusedPrograms, ::testing::Values("lines", "tree"),
                         [](const ::testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

TEST(VulkanFused, WhatCanRunAccepts) {
  auto ctx = context_or_null();
  if (!ctx) GTEST_SKIP() << "no usable Vulkan device";
  VulkanBackend be(ctx, "vulkan");
  auto* ex = static_cast<FusedExecutor*>(be.query_interface(kFusedElementwiseInterface));
  FusedProgram p;
  p.shape = Shape{0, 3};
  p.num_inputs = 1;
  p.reg_dtype = {DType::F32, DType::F32};
  p.code.push_back(instr(OpId::sum_dim, 0));
  p.outputs = {1};
  // can_run does not depend on the shape (burn-fusion asks while planning, before it knows it); an empty
  // reduction is never handed over, and run() says so.
  EXPECT_TRUE(ex->can_run(p));
  EXPECT_THROW(ex->run(p, {be.from_data(TensorData::from_vector<float>({}, Shape{0, 3}))}), Error);
  // The epilogue may not read a prologue register.
  FusedProgram q;
  q.shape = Shape{2, 3};
  q.num_inputs = 1;
  q.reg_dtype = {DType::F32, DType::F32, DType::F32, DType::F32};
  q.code = {instr(OpId::exp, 0), instr(OpId::sum_dim, 1), instr(OpId::add, 2, 1, 2)};
  q.outputs = {3};
  EXPECT_FALSE(ex->can_run(q));
  // A conv anchor of an int dtype is not fused.
  FusedProgram c;
  c.num_inputs = 2;
  c.reg_dtype = {DType::I32, DType::I32, DType::I32};
  FusedInstr conv = instr(OpId::conv, 0, 1, 3);
  conv.args[2] = kNoRegister;
  c.code = {conv};
  c.outputs = {2};
  EXPECT_FALSE(ex->can_run(c));
  c.reg_dtype = {DType::F32, DType::F32, DType::F32};
  EXPECT_TRUE(ex->can_run(c));
}

// A matmul of an empty product: no dispatch, outputs of the right shape.
TEST(VulkanFused, AnEmptyMatmulProgramGivesEmptyOutputs) {
  auto ctx = context_or_null();
  if (!ctx) GTEST_SKIP() << "no usable Vulkan device";
  VulkanBackend be(ctx, "vulkan");
  auto* ex = static_cast<FusedExecutor*>(be.query_interface(kFusedElementwiseInterface));
  FusedProgram p;
  p.shape = Shape{0, 4};
  p.num_inputs = 2;
  p.reg_dtype = {DType::F32, DType::F32, DType::F32, DType::F32};
  p.code = {instr(OpId::matmul, 0, 1, 2), instr(OpId::relu, 2)};
  p.outputs = {3};
  ASSERT_TRUE(ex->can_run(p));
  Prims outs = ex->run(p, {be.from_data(TensorData::from_vector<float>({}, Shape{0, 3})),
                           be.from_data(TensorData::from_vector<float>(std::vector<float>(12, 1.0f), Shape{3, 4}))});
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0]->shape(), (Shape{0, 4}));
}

// An anchor's index width comes before its launch, from the epilogue's layout and the anchor kernel's own
// rule, so the layout block and the kernel agree; views that reach 2^31 without allocating anything.
TEST(VulkanFused, TheAnchorsIndexWidthCoversTheEpilogueAndTheKernel) {
  constexpr int64_t k1G = int64_t{1} << 30;
  const gpu::View a{Shape{4, 8}, {8, 1}, 0}, b{Shape{8, 4}, {4, 1}, 0};
  EXPECT_FALSE(anchor_index64(OpId::matmul, false, a, b, Shape{4, 4}));
  EXPECT_TRUE(anchor_index64(OpId::matmul, true, a, b, Shape{4, 4}));  // the epilogue's layout needs it
  // The lhs's rows 2^30 elements apart: its offsets reach 3 * 2^30, the epilogue's layout is 16 elements.
  EXPECT_TRUE(anchor_index64(OpId::matmul, false, gpu::View{Shape{4, 8}, {k1G, 1}, 0}, b, Shape{4, 4}));
  // The same stride on a broadcast batch dim is never stepped; on a real batch dim it is.
  const gpu::View b3{Shape{3, 8, 4}, {32, 4, 1}, 0};
  EXPECT_FALSE(anchor_index64(OpId::matmul, false, gpu::View{Shape{1, 4, 8}, {4 * k1G, 8, 1}, 0}, b3, Shape{3, 4, 4}));
  EXPECT_TRUE(anchor_index64(OpId::matmul, false, gpu::View{Shape{3, 4, 8}, {k1G, 8, 1}, 0}, b3, Shape{3, 4, 4}));
  // A conv whose input has 2^31 elements though its result is small.
  const gpu::View w{Shape{1, 1 << 16, 3}, {3 << 16, 3, 1}, 0};
  EXPECT_TRUE(anchor_index64(OpId::conv, false, gpu::View{Shape{1, 1 << 16, 1 << 15}, {k1G * 2, 1 << 15, 1}, 0}, w,
                             Shape{1, 1, (1 << 15) - 2}));
  EXPECT_FALSE(
      anchor_index64(OpId::conv, false, gpu::View{Shape{1, 1 << 16, 8}, {1 << 19, 8, 1}, 0}, w, Shape{1, 1, 6}));
}

}  // namespace
}  // namespace burn::vulkan
