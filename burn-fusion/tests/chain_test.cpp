// f32 elementwise chains, which the cpu plugin's fused executor evaluates in registers (fused_chain.cpp)
// rather than one instruction at a time over a tile: every op with a register form, the chain on either
// side of a binary op and on both, broadcast operands, kept intermediates, and lengths around the
// 64-element block (masked tails) and past one task. Each must equal `cpu` bit for bit on data full of
// NaN, infinities, signed zeros, denormals and values where exp overflows or underflows. ctest runs
// this suite again with BURN_CPU_FUSED_CHAIN=off, which gives the tile interpreter the same checks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "burn/fusion/fusion.hpp"
#include "burn/tensor/api.hpp"

#include "inspector_util.hpp"

namespace burn {
namespace {

using H = TensorHandle;
using fusion_test::insp;
using fusion_test::same_bits;

// Values in [-6, 6] with the special ones strewn in, so that they land in full blocks and in tails.
TensorData chain_data(const Shape& s, uint64_t seed) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float special[] = {nan,     -nan,   inf,     -inf,  0.0f,  -0.0f, 1e-40f,
                           -1e-40f, 100.0f, -120.0f, 88.7f, -0.5f, 2.5f,  1.0f};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> val(-6.0f, 6.0f);
  std::uniform_int_distribution<int> pick(0, 9);
  const int64_t n = s.num_elements();
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = pick(rng) == 0 ? special[static_cast<size_t>(i) % std::size(special)] : val(rng);
  return TensorData::from_vector(v, s);
}

// Runs `f` on `cpu` and on fusion<cpu> over the same inputs; the fused side must be one fused program
// with `outputs` outputs, and every output must match bit for bit.
void expect_chain(const std::vector<Shape>& inputs, const std::function<std::vector<H>(const std::vector<H>&)>& f) {
  Device cpu = Device::get("cpu"), fus = Device::get("fusion<cpu>");
  std::vector<H> ref, fin;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorData d = chain_data(inputs[i], 31 + i);
    ref.push_back(api::from_data(cpu, d, Kind::Float));
    fin.push_back(api::from_data(fus, d, Kind::Float));
  }
  fus.sync();
  const std::vector<H> r = f(ref);
  std::vector<H> o = f(fin);
  fin.clear();
  fus.sync();
  const std::vector<std::string> plan = insp(fus).last_plan();
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_TRUE(plan[0].starts_with("fused[")) << plan[0];
  ASSERT_EQ(r.size(), o.size());
  for (size_t i = 0; i < r.size(); ++i) {
    const TensorData a = api::into_data(r[i]), b = api::into_data(o[i]);
    ASSERT_TRUE(same_bits(a, b)) << "output " << i << " of " << plan[0];
  }
}

// Sizes around the 64-element block and the 1024-element tile, and one that several tasks share.
const Shape kShapes[] = {Shape{3},       Shape{2, 32},  Shape{5, 13},   Shape{127},
                         Shape{3, 1000}, Shape{4, 777}, Shape{300, 301}};

TEST(FusionChain, EveryUnaryOpAfterAnAffineStep) {
  const OpId ops[] = {OpId::neg,   OpId::abs,  OpId::relu,  OpId::square, OpId::recip, OpId::sqrt,
                      OpId::floor, OpId::ceil, OpId::trunc, OpId::round,  OpId::exp,   OpId::sigmoid,
                      OpId::silu,  OpId::log,  OpId::tanh,  OpId::erf,    OpId::gelu,  OpId::gelu_tanh};
  for (const Shape& s : kShapes)
    for (OpId op : ops) {
      SCOPED_TRACE(std::string(op_info(op).name) + " " + s.to_string());
      expect_chain({s}, [&](const std::vector<H>& in) {
        return std::vector<H>{api::add_scalar(api::unary(op, api::mul_scalar(in[0], 3.5)), 0.25)};
      });
    }
}

TEST(FusionChain, ScalarOpsClampsAndLeakyRelu) {
  using Step = std::function<H(H)>;
  const std::vector<std::pair<std::string, Step>> steps = {
      {"add_scalar", [](H x) { return api::add_scalar(x, -1.5); }},
      {"sub_scalar", [](H x) { return api::sub_scalar(x, Scalar(int64_t{2})); }},
      {"mul_scalar", [](H x) { return api::mul_scalar(x, -0.0); }},
      {"div_scalar", [](H x) { return api::div_scalar(x, 3.0); }},
      {"div_scalar by zero", [](H x) { return api::div_scalar(x, 0.0); }},
      {"clamp", [](H x) { return api::clamp(x, -1.0, 2.0); }},
      {"clamp lo > hi", [](H x) { return api::clamp(x, 2.0, -1.0); }},
      {"clamp_min", [](H x) { return api::clamp_min(x, -0.0); }},
      {"clamp_max", [](H x) { return api::clamp_max(x, 0.0); }},
      {"leaky_relu", [](H x) { return api::leaky_relu(x, 0.01); }},
  };
  for (const Shape& s : kShapes)
    for (const auto& [name, step] : steps) {
      SCOPED_TRACE(name + " " + s.to_string());
      // sin has no register form: this program runs on the tile interpreter, the next as a chain.
      expect_chain({s}, [&](const std::vector<H>& in) {
        return std::vector<H>{api::unary(OpId::exp, step(api::unary(OpId::sin, in[0])))};
      });
      expect_chain({s}, [&](const std::vector<H>& in) {
        return std::vector<H>{api::unary(OpId::exp, step(api::mul_scalar(in[0], 2.0)))};
      });
    }
}

TEST(FusionChain, BinaryOpsWithTheChainOnEitherSideOrBoth) {
  using Bin = std::function<H(H, const H&)>;
  const std::vector<std::pair<std::string, Bin>> bins = {
      {"add", [](H a, const H& b) { return api::add(std::move(a), b); }},
      {"sub", [](H a, const H& b) { return api::sub(std::move(a), b); }},
      {"mul", [](H a, const H& b) { return api::mul(std::move(a), b); }},
      {"div", [](H a, const H& b) { return api::div(std::move(a), b); }},
      {"maximum", [](H a, const H& b) { return api::maximum(std::move(a), b); }},
      {"minimum", [](H a, const H& b) { return api::minimum(std::move(a), b); }},
  };
  for (const Shape& s : {Shape{5, 13}, Shape{4, 777}, Shape{300, 301}}) {
    const Shape row{1, s[s.rank() - 1]};
    for (const auto& [name, bin] : bins) {
      for (int side = 0; side < 3; ++side)
        for (bool broadcast : {false, true}) {
          SCOPED_TRACE(name + " side " + std::to_string(side) + (broadcast ? " broadcast " : " ") + s.to_string());
          expect_chain({s, broadcast ? row : s}, [&](const std::vector<H>& in) {
            H c = api::add_scalar(in[0], 0.5);
            H y = side == 0 ? bin(c, in[1]) : side == 1 ? bin(in[1], c) : bin(c, c);
            return std::vector<H>{api::unary(OpId::exp, y)};
          });
        }
      // The first instruction's two operands are inputs (the same one, or two).
      expect_chain({s, s}, [&](const std::vector<H>& in) {
        return std::vector<H>{api::unary(OpId::relu, bin(in[0], in[1])), api::unary(OpId::relu, bin(in[0], in[0]))};
      });
    }
  }
}

TEST(FusionChain, KeptIntermediatesAreStored) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(s.to_string());
    expect_chain({s, s}, [&](const std::vector<H>& in) {
      H a = api::mul_scalar(in[0], 2.0);
      H b = api::add(a, in[1]);
      H c = api::unary(OpId::relu, b);
      H d = api::unary(OpId::exp, c);
      return std::vector<H>{a, c, d};
    });
  }
}

// A comparison with a scalar feeding a mask_fill of another tensor: ReLU's backward
// (grad.mask_fill(x <= 0, 0)) and the masks of attention, in registers. Every comparison, against
// scalars the data holds (2.5, ±0) and NaN, in full blocks and tails.
TEST(FusionChain, ComparisonsFeedingAMaskFill) {
  const OpId cmps[] = {OpId::equal_elem,       OpId::not_equal_elem, OpId::lower_elem,
                       OpId::lower_equal_elem, OpId::greater_elem,   OpId::greater_equal_elem};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const Shape& s : kShapes)
    for (OpId cmp : cmps)
      for (double c : {0.0, -0.0, 2.5, nan}) {
        SCOPED_TRACE(std::string(op_info(cmp).name) + " " + std::to_string(c) + " " + s.to_string());
        expect_chain({s, s}, [&](const std::vector<H>& in) {
          return std::vector<H>{api::mask_fill(in[1], api::compare_elem(cmp, in[0], c), -1.5)};
        });
        expect_chain({s, s}, [&](const std::vector<H>& in) {
          H mask = api::compare_elem(cmp, api::add_scalar(in[0], 1.0), c);
          return std::vector<H>{api::unary(OpId::exp, api::mask_fill(in[1], mask, 0.0))};
        });
      }
}

// The benchmark's chain, and a softmax whose scaled, masked input is a chain feeding the row kernel.
TEST(FusionChain, ExpReluAffineAndASoftmaxPrologue) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(s.to_string());
    expect_chain({s}, [&](const std::vector<H>& in) {
      return std::vector<H>{
          api::unary(OpId::exp, api::unary(OpId::relu, api::add_scalar(api::mul_scalar(in[0], 2.0), 1.0)))};
    });
  }
  expect_chain({Shape{48, 1030}, Shape{1, 1030}}, [&](const std::vector<H>& in) {
    return std::vector<H>{api::softmax(api::add(api::mul_scalar(in[0], 0.125), in[1]), 1)};
  });
}

// The register chain tests a whole 64-element block once for exp's fast range: a NaN in the same lane
// as an out-of-range value (either order, so that neither hides the other in the block's max), a lane
// whose exp is denormal, and one past the overflow, each in a block of ordinary values.
TEST(FusionChain, ExpBlocksMixingNaNAndOutOfRangeLanes) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> v(64 * 5, 0.5f);
  v[3] = 100.0f, v[8 + 3] = nan;         // block 0: the large lane first
  v[64 + 5] = nan, v[64 + 8 + 5] = 100;  // block 1: the NaN first
  v[128 + 40] = -95.0f;                  // block 2: a denormal result
  v[192 + 17] = -87.5f;                  // block 3: just past the fast range, a normal result
  v[256 + 63] = 88.9f;                   // block 4: overflow to inf in the last lane
  const TensorData d = TensorData::from_vector(v, Shape{static_cast<int64_t>(v.size())});
  Device cpu = Device::get("cpu"), fus = Device::get("fusion<cpu>");
  const auto f = [](H x) { return api::unary(OpId::exp, api::mul_scalar(x, 1.0)); };
  const TensorData want = api::into_data(f(api::from_data(cpu, d, Kind::Float)));
  H x = api::from_data(fus, d, Kind::Float);
  fus.sync();
  H y = f(x);
  fus.sync();
  EXPECT_EQ(insp(fus).last_plan(), std::vector<std::string>{"fused[mul_scalar exp] -> 1"});
  const TensorData got = api::into_data(y);
  ASSERT_TRUE(same_bits(want, got));
  const std::vector<float> g = got.to_vec<float>();
  EXPECT_TRUE(std::isinf(g[3]) && std::isnan(g[8 + 3]) && std::isnan(g[64 + 5]) && std::isinf(g[64 + 8 + 5]));
  EXPECT_GT(g[128 + 40], 0.0f);
  EXPECT_LT(g[128 + 40], std::numeric_limits<float>::min());
  EXPECT_TRUE(std::isinf(g[256 + 63]));
}

}  // namespace
}  // namespace burn
