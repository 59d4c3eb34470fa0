// Tests burn/tensor/shape_rules.hpp alone (no backend): each rule's result shape, each error it
// raises (kind, op and values in the message), and that a try_ variant answers std::nullopt exactly
// where its throwing twin raises. Expected shapes are PyTorch's (the expression is in a comment).
#include "burn/tensor/shape_rules.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "burn/tensor/error.hpp"
#include "expect_error.hpp"

namespace {

using namespace burn;
using burn::testing::expect_error;
namespace rules = burn::shape_rules;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// ---- shared checks ----

TEST(ShapeRules, DimsAndAxes) {
  EXPECT_EQ(rules::along_dim(Shape{2, 3}, 1, "softmax"), Shape({2, 3}));
  expect_error<IndexError>([] { rules::check_dim(Shape{2, 3}, 2, "sum_dim"); }, {"[sum_dim]", "dim 2", "rank 2"});
  EXPECT_EQ(rules::normalize_axes({-1, 0}, 3, "flip"), Axes({2, 0}));
  expect_error<IndexError>([] { rules::normalize_axes({0, -3}, 2, "flip"); }, {"[flip]", "dim -3", "rank 2"});
  expect_error<IndexError>([] { rules::normalize_axes({1, -1}, 2, "flip"); }, {"[flip]", "repeated"});
}

// ---- layout ----

TEST(ShapeRules, Reshape) {
  // torch.zeros(2, 3).reshape(3, -1).shape -> [3, 2]
  EXPECT_EQ(rules::reshape(Shape{2, 3}, Shape{3, -1}), Shape({3, 2}));
  EXPECT_EQ(rules::reshape(Shape{0, 4}, Shape{2, 0}), Shape({2, 0}));
  expect_error<ShapeError>([] { rules::reshape(Shape{2, 3}, Shape{4, -1}); }, {"[reshape]", "[2, 3]", "[4, -1]"});
  expect_error<ShapeError>([] { rules::reshape(Shape{2, 3}, Shape{-1, -1}); }, {"[reshape]", "only one dim"});
  expect_error<ShapeError>([] { rules::reshape(Shape{2, 3}, Shape{-2, 3}); }, {"[reshape]", "invalid dim -2"});
  expect_error<ShapeError>([] { rules::reshape(Shape{2, 3}, Shape{5}); }, {"[reshape]", "6 elements", "[5]"});
  // 0 elements, but strides past int64
  expect_error<ShapeError>([] { rules::reshape(Shape{0}, Shape{0, 1LL << 62, 1LL << 62}); }, {"[reshape]", "int64"});
  EXPECT_EQ(rules::try_reshape(Shape{2, 3}, Shape{-1}), Shape({6}));
  EXPECT_FALSE(rules::try_reshape(Shape{2, 3}, Shape{5}));
  EXPECT_FALSE(rules::try_reshape(Shape{2, 3}, Shape{-1, -1}));
  EXPECT_FALSE(rules::try_reshape(Shape{0}, Shape{0, 1LL << 62, 1LL << 62}));
}

TEST(ShapeRules, PermuteFlipExpand) {
  // torch.zeros(2, 3, 4).permute(2, 0, -2).shape -> [4, 2, 3]
  EXPECT_EQ(rules::permute(Shape{2, 3, 4}, {2, 0, -2}), Shape({4, 2, 3}));
  EXPECT_EQ(rules::inverse_permutation({2, 0, 1}), Axes({1, 2, 0}));
  expect_error<ShapeError>([] { rules::permute(Shape{2, 3}, {0}); }, {"[permute]", "1 axes", "rank 2"});
  expect_error<IndexError>([] { rules::permute(Shape{2, 3}, {0, 0}); }, {"[permute]", "repeated"});
  expect_error<IndexError>([] { rules::permute(Shape{2, 3}, {0, 2}); }, {"[permute]", "dim 2"});
  EXPECT_EQ(rules::flip(Shape{2, 3}, {-1}), Shape({2, 3}));
  expect_error<IndexError>([] { rules::flip(Shape{2, 3}, {0, 0}); }, {"[flip]", "repeated"});
  // torch.zeros(3, 1).expand(2, 3, 4).shape -> [2, 3, 4]; -1 keeps a dim
  EXPECT_EQ(rules::expand(Shape{3, 1}, Shape{2, -1, 4}), Shape({2, 3, 4}));
  expect_error<ShapeError>([] { rules::expand(Shape{3, 1}, Shape{4}); }, {"[expand]", "fewer dims"});
  expect_error<ShapeError>([] { rules::expand(Shape{3, 1}, Shape{2, 4}); }, {"[expand]", "dim 0 has size 3"});
  expect_error<ShapeError>([] { rules::expand(Shape{3}, Shape{-1, 3}); }, {"[expand]", "new leading dim 0"});
  expect_error<ShapeError>([] { rules::expand(Shape{1}, Shape{1LL << 62, 4}); }, {"[expand]", "int64"});
}

TEST(ShapeRules, SliceAndSliceAssign) {
  // torch.zeros(5, 4)[1:5:2, 0:0].shape -> [2, 0]
  EXPECT_EQ(rules::slice(Shape{5, 4}, {{1, 5, 2}, {0, 0, 1}}), Shape({2, 0}));
  EXPECT_EQ(rules::slice(Shape{5, 4}, {{4, 5, kMax}}), Shape({1, 4}));
  expect_error<IndexError>([] { rules::slice(Shape{5}, {{0, 1, 1}, {0, 1, 1}}); }, {"[slice]", "2 ranges"});
  expect_error<ValueError>([] { rules::slice(Shape{5}, {{0, 1, 0}}); }, {"[slice]", "step 0"});
  expect_error<IndexError>([] { rules::slice(Shape{5}, {{2, 6, 1}}); }, {"[slice]", "2..6", "[5]"});
  EXPECT_EQ(rules::slice_assign(Shape{5, 4}, {{0, 2, 1}}, Shape{1, 4}), Shape({5, 4}));
  expect_error<ShapeError>(
      [] {
        rules::slice_assign(Shape{5, 4}, {{0, 2, 1}}, Shape{3, 4});
      },
      {"[slice_assign]", "[3, 4]", "[2, 4]"});
}

TEST(ShapeRules, CatAndRepeatDim) {
  const Shape a{2, 3}, b{2, 4}, c{3, 4};
  const std::vector<const Shape*> ab{&a, &b}, ac{&a, &c};
  // torch.cat([zeros(2, 3), zeros(2, 4)], 1).shape -> [2, 7]
  EXPECT_EQ(rules::cat(ab, 1), Shape({2, 7}));
  expect_error<ShapeError>([&] { rules::cat(ab, 0); }, {"[cat]", "tensor 1", "[2, 4]", "[2, 3]"});
  expect_error<ShapeError>([&] { rules::cat(ac, 1); }, {"[cat]", "tensor 1", "[3, 4]"});
  expect_error<IndexError>([&] { rules::cat(ab, 2); }, {"[cat]", "dim 2"});
  expect_error<ValueError>([] { rules::cat({}, 0); }, {"[cat]", "at least one"});
  const Shape huge{1LL << 62};
  const std::vector<const Shape*> twice{&huge, &huge};
  expect_error<ShapeError>([&] { rules::cat(twice, 0); }, {"[cat]", "overflows"});
  // torch.zeros(2, 3).repeat(1, 3).shape -> [2, 9]
  EXPECT_EQ(rules::repeat_dim(Shape{2, 3}, 1, 3), Shape({2, 9}));
  EXPECT_EQ(rules::repeat_dim(Shape{2, 3}, 0, 0), Shape({0, 3}));
  expect_error<ValueError>([] { rules::repeat_dim(Shape{2}, 0, -1); }, {"[repeat_dim]", "-1"});
  expect_error<IndexError>([] { rules::repeat_dim(Shape{2}, 1, 2); }, {"[repeat_dim]", "dim 1"});
  expect_error<ShapeError>([] { rules::repeat_dim(Shape{1LL << 62}, 0, 4); }, {"[repeat_dim]", "overflows"});
}

// ---- indexing ----

TEST(ShapeRules, GatherScatterSelect) {
  // torch.gather(zeros(3, 4), 1, idx of shape [2, 5]).shape -> [2, 5]
  EXPECT_EQ(rules::gather(Shape{3, 4}, 1, Shape{2, 5}), Shape({2, 5}));
  expect_error<ShapeError>([] { rules::gather(Shape{3, 4}, 1, Shape{5}); }, {"[gather]", "[5]", "rank"});
  expect_error<ShapeError>([] { rules::gather(Shape{3, 4}, 1, Shape{4, 1}); }, {"[gather]", "[4, 1]", "dim 0"});
  expect_error<IndexError>([] { rules::gather(Shape{3, 4}, 2, Shape{3, 4}); }, {"[gather]", "dim 2"});
  // torch's scatter_add_: indices no larger than values, nor than x outside dim
  EXPECT_EQ(rules::scatter_add(Shape{3, 4}, 0, Shape{5, 2}, Shape{5, 3}), Shape({3, 4}));
  expect_error<ShapeError>(
      [] {
        rules::scatter_add(Shape{3, 4}, 0, Shape{5, 3}, Shape{5, 2});
      },
      {"[scatter_add]", "[5, 3]", "[5, 2]"});
  expect_error<ShapeError>(
      [] {
        rules::scatter_add(Shape{3, 4}, 0, Shape{2, 5}, Shape{2, 5});
      },
      {"[scatter_add]", "[3, 4]"});
  // torch.index_select(zeros(3, 4), 1, idx of [6]).shape -> [3, 6]
  EXPECT_EQ(rules::select(Shape{3, 4}, 1, Shape{6}), Shape({3, 6}));
  expect_error<ShapeError>([] { rules::select(Shape{3, 4}, 0, Shape{1, 2}); }, {"[select]", "1-D", "[1, 2]"});
  expect_error<IndexError>([] { rules::select(Shape{3, 4}, 3, Shape{2}); }, {"[select]", "dim 3"});
  EXPECT_EQ(rules::select_add(Shape{3, 4}, 0, Shape{2}, Shape{2, 4}), Shape({3, 4}));
  expect_error<ShapeError>(
      [] {
        rules::select_add(Shape{3, 4}, 0, Shape{2}, Shape{3, 4});
      },
      {"[select_add]", "[3, 4]", "[2, 4]"});
}

// ---- elementwise ----

TEST(ShapeRules, Broadcast) {
  // torch.broadcast_shapes((2, 1, 3), (4, 1)) -> [2, 4, 3]
  EXPECT_EQ(rules::broadcast(Shape{2, 1, 3}, Shape{4, 1}, "add"), Shape({2, 4, 3}));
  EXPECT_EQ(rules::broadcast(Shape{}, Shape{0, 2}, "add"), Shape({0, 2}));
  EXPECT_EQ(rules::broadcast(Shape{2, 1}, Shape{1}, Shape{3}, "mask_where"), Shape({2, 3}));
  expect_error<ShapeError>(
      [] {
        rules::broadcast(Shape{2, 3}, Shape{4, 3}, "add");
      },
      {"[add]", "[2, 3]", "[4, 3]", "dim 0"});
  expect_error<ShapeError>(
      [] {
        rules::broadcast(Shape{2, 1}, Shape{1}, Shape{4, 3}, "mask_where");
      },
      {"[mask_where]", "[4, 3]"});
  EXPECT_EQ(rules::try_broadcast(Shape{3}, Shape{2, 1}), Shape({2, 3}));
  EXPECT_FALSE(rules::try_broadcast(Shape{3}, Shape{2}));
  // a gradient of [2, 4, 3] sums back to [4, 1] over dims 0 and 2
  EXPECT_EQ(rules::broadcast_axes(Shape{4, 1}, Shape{2, 4, 3}), Axes({0, 2}));
  EXPECT_EQ(rules::broadcast_axes(Shape{2, 3}, Shape{2, 3}), Axes());
}

TEST(ShapeRules, Matmul) {
  // torch.matmul(zeros(2, 1, 3, 4), zeros(5, 4, 6)) broadcasts batch dims; ours: one rank
  EXPECT_EQ(rules::matmul(Shape{2, 1, 3, 4}, Shape{1, 5, 4, 6}), Shape({2, 5, 3, 6}));
  EXPECT_EQ(rules::matmul(Shape{3, 0}, Shape{0, 2}), Shape({3, 2}));
  expect_error<ShapeError>(
      [] {
        rules::matmul(Shape{3, 4}, Shape{5, 6});
      },
      {"[matmul]", "[3, 4]", "[5, 6]", "inner dimensions differ (4 vs 5)"});
  expect_error<ShapeError>(
      [] {
        rules::matmul(Shape{2, 3, 4}, Shape{3, 4, 5});
      },
      {"[matmul]", "batch dimensions are not broadcastable", "dim 0: 2 vs 3"});
  expect_error<ShapeError>([] { rules::matmul(Shape{3, 4}, Shape{1, 4, 5}); }, {"[matmul]", "differ in rank"});
  expect_error<ShapeError>([] { rules::matmul(Shape{4}, Shape{4}); }, {"[matmul]", "rank >= 2"});
  EXPECT_EQ(rules::try_matmul(Shape{2, 3}, Shape{3, 1}), Shape({2, 1}));
  EXPECT_FALSE(rules::try_matmul(Shape{3, 4}, Shape{5, 6}));
  EXPECT_FALSE(rules::try_matmul(Shape{2, 3, 4}, Shape{3, 4, 5}));
  EXPECT_FALSE(rules::try_matmul(Shape{4}, Shape{4}));
}

// ---- reduce ----

TEST(ShapeRules, Reductions) {
  // torch.zeros(2, 3).sum(1, keepdim=True).shape -> [2, 1]
  EXPECT_EQ(rules::reduce_dim(Shape{2, 3}, 1, false, "sum_dim"), Shape({2, 1}));
  EXPECT_EQ(rules::reduce_dim(Shape{2, 0}, 1, false, "sum_dim"), Shape({2, 1}));
  expect_error<ValueError>([] { rules::reduce_dim(Shape{2, 0}, 1, true, "argmax"); }, {"[argmax]", "size 0"});
  expect_error<IndexError>([] { rules::reduce_dim(Shape{2, 3}, 2, false, "sum_dim"); }, {"[sum_dim]", "dim 2"});
  EXPECT_EQ(rules::try_reduce_dim(Shape{2, 3}, 0, true), Shape({1, 3}));
  EXPECT_FALSE(rules::try_reduce_dim(Shape{2, 0}, 1, true));
  EXPECT_FALSE(rules::try_reduce_dim(Shape{2, 3}, 2, false));
  EXPECT_EQ(rules::reduce_all(Shape{2, 3}, true, "max"), Shape({1}));
  EXPECT_EQ(rules::reduce_all(Shape{0}, false, "sum"), Shape({1}));
  expect_error<ValueError>([] { rules::reduce_all(Shape{2, 0}, true, "max"); }, {"[max]", "empty"});
  // torch.topk(zeros(2, 5), 3, dim=1).values.shape -> [2, 3]
  EXPECT_EQ(rules::topk(Shape{2, 5}, 3, 1), Shape({2, 3}));
  expect_error<IndexError>([] { rules::topk(Shape{2, 3}, 4, 1); }, {"[topk]", "k = 4", "size 3"});
  expect_error<IndexError>([] { rules::topk(Shape{2, 3}, -1, 1); }, {"[topk]", "k = -1"});
}

// ---- conv ----

TEST(ShapeRules, Conv) {
  // torch.nn.functional.conv2d(zeros(2, 4, 9, 8), zeros(6, 2, 3, 3), stride=2, padding=1, groups=2).shape
  // -> [2, 6, 5, 4]
  ConvOptions o{.stride = {2}, .padding = {1}, .groups = 2};
  const Shape bias{6};
  EXPECT_EQ(rules::conv(Shape{2, 4, 9, 8}, Shape{6, 2, 3, 3}, &bias, o), Shape({2, 6, 5, 4}));
  EXPECT_EQ(o.stride, std::vector<int64_t>({2, 2}));  // normalised in place
  EXPECT_EQ(o.padding_end, std::vector<int64_t>({1, 1}));
  EXPECT_EQ(o.dilation, std::vector<int64_t>({1, 1}));
  // asymmetric padding and dilation: (7 + 1 + 2 - (2 * 2 + 1)) / 1 + 1 = 6
  ConvOptions asym{.padding = {1}, .padding_end = {2}, .dilation = {2}};
  EXPECT_EQ(rules::conv(Shape{1, 1, 7}, Shape{1, 1, 3}, nullptr, asym), Shape({1, 1, 6}));
  auto conv = [](Shape x, Shape w, ConvOptions o, const Shape* b = nullptr) { rules::conv(x, w, b, o); };
  expect_error<ShapeError>([&] { conv(Shape{2, 4}, Shape{6, 4}, {}); }, {"[conv]", "rank 3 to 5", "[2, 4]"});
  expect_error<ShapeError>([&] { conv(Shape{1, 4, 5}, Shape{6, 4, 3, 3}, {}); }, {"[conv]", "rank of the input"});
  expect_error<ShapeError>([&] { conv(Shape{1, 4, 5}, Shape{6, 4, 0}, {}); }, {"[conv]", "empty kernel"});
  expect_error<ShapeError>(
      [&] {
        conv(Shape{1, 4, 5, 5}, Shape{6, 4, 3, 3}, {.stride = {1, 1, 1}});
      },
      {"[conv]", "stride [1, 1, 1]", "2 spatial dims"});
  expect_error<ValueError>([&] { conv(Shape{1, 4, 5}, Shape{6, 4, 3}, {.stride = {0}}); }, {"[conv]", "stride"});
  expect_error<ValueError>([&] { conv(Shape{1, 4, 5}, Shape{6, 4, 3}, {.padding = {-1}}); }, {"[conv]", "padding"});
  expect_error<ValueError>([&] { conv(Shape{1, 4, 5}, Shape{6, 4, 3}, {.groups = 0}); }, {"[conv]", "groups"});
  expect_error<ShapeError>([&] { conv(Shape{1, 4, 5}, Shape{6, 2, 3}, {.groups = 3}); }, {"[conv]", "input's 4"});
  expect_error<ShapeError>([&] { conv(Shape{1, 4, 5}, Shape{5, 2, 3}, {.groups = 2}); }, {"[conv]", "weight's 5"});
  expect_error<ShapeError>([&] { conv(Shape{1, 4, 5}, Shape{6, 3, 3}, {}); }, {"[conv]", "expects 3 input"});
  expect_error<ShapeError>([&] { conv(Shape{1, 4, 2}, Shape{6, 4, 3}, {}); }, {"[conv]", "larger than the padded"});
  expect_error<ShapeError>([&] { conv(Shape{1, 4, 5}, Shape{6, 4, 3}, {.padding = {kMax}}); }, {"[conv]", "overflows"});
  const Shape bad_bias{4};
  expect_error<ShapeError>([&] { conv(Shape{1, 4, 5}, Shape{6, 4, 3}, {}, &bad_bias); }, {"[conv]", "bias [4]", "[6]"});
  // the try_ twin: the same rule, without errors
  ConvOptions ok{};
  EXPECT_EQ(rules::try_conv(Shape{1, 4, 5}, Shape{6, 4, 3}, nullptr, ok), Shape({1, 6, 3}));
  ConvOptions bad{.groups = 3};
  EXPECT_FALSE(rules::try_conv(Shape{1, 4, 5}, Shape{6, 2, 3}, nullptr, bad));
  ConvOptions huge{.padding = {kMax}};
  EXPECT_FALSE(rules::try_conv(Shape{1, 4, 5}, Shape{6, 4, 3}, nullptr, huge));
  ConvOptions plain{};
  EXPECT_FALSE(rules::try_conv(Shape{1, 4, 5}, Shape{6, 4, 3}, &bad_bias, plain));
}

TEST(ShapeRules, ConvTranspose) {
  // torch.nn.functional.conv_transpose2d(zeros(1, 4, 3, 3), zeros(4, 3, 3, 3), stride=2, padding=1,
  // output_padding=1, groups=2).shape -> [1, 6, 6, 6]
  ConvTransposeOptions o{.stride = {2}, .padding = {1}, .padding_out = {1}, .groups = 2};
  EXPECT_EQ(rules::conv_transpose(Shape{1, 4, 3, 3}, Shape{4, 3, 3, 3}, nullptr, o), Shape({1, 6, 6, 6}));
  EXPECT_EQ(o.padding_out, std::vector<int64_t>({1, 1}));
  auto ct = [](Shape x, Shape w, ConvTransposeOptions o) { rules::conv_transpose(x, w, nullptr, o); };
  expect_error<ShapeError>([&] { ct(Shape{1, 4, 3}, Shape{3, 2, 3}, {}); }, {"[conv_transpose]", "expects 3 input"});
  expect_error<ValueError>(
      [&] {
        ct(Shape{1, 4, 3}, Shape{4, 2, 3}, {.padding_out = {1}});
      },
      {"[conv_transpose]", "padding_out [1]"});
  expect_error<ShapeError>([&] { ct(Shape{1, 4, 1}, Shape{4, 2, 1}, {.padding = {1}}); }, {"[conv_transpose]", "<= 0"});
  expect_error<ShapeError>(
      [&] {
        ct(Shape{1, 4, 3}, Shape{4, 2, 3}, {.stride = {kMax}});
      },
      {"[conv_transpose]", "overflows int64"});
  const Shape bias{3};
  ConvTransposeOptions d{};
  expect_error<ShapeError>(
      [&] {
        rules::conv_transpose(Shape{1, 4, 3}, Shape{4, 2, 3}, &bias, d);
      },
      {"[conv_transpose]", "bias [3]", "[2]"});
  ConvTransposeOptions e{};
  EXPECT_EQ(rules::try_conv_transpose(Shape{1, 4, 3}, Shape{4, 2, 3}, nullptr, e), Shape({1, 2, 5}));
  ConvTransposeOptions f{.padding = {1}};
  EXPECT_FALSE(rules::try_conv_transpose(Shape{1, 4, 1}, Shape{4, 2, 1}, nullptr, f));
}

TEST(ShapeRules, DeformConvUnfoldFold) {
  // torchvision.ops.deform_conv2d(x [1, 4, 5, 5], offset [1, 18, 3, 3], w [6, 4, 3, 3]).shape -> [1, 6, 3, 3]
  DeformConvOptions o{};
  const Shape mask{1, 9, 3, 3};
  EXPECT_EQ(rules::deform_conv2d(Shape{1, 4, 5, 5}, Shape{1, 18, 3, 3}, Shape{6, 4, 3, 3}, &mask, nullptr, o),
            Shape({1, 6, 3, 3}));
  DeformConvOptions p{};
  expect_error<ShapeError>(
      [&] {
        rules::deform_conv2d(Shape{1, 4, 5, 5}, Shape{1, 9, 3, 3}, Shape{6, 4, 3, 3}, nullptr, nullptr, p);
      },
      {"[deform_conv2d]", "offset [1, 9, 3, 3]", "[1, 18, 3, 3]"});
  DeformConvOptions q{.offset_groups = 3};
  expect_error<ShapeError>(
      [&] {
        rules::deform_conv2d(Shape{1, 4, 5, 5}, Shape{1, 18, 3, 3}, Shape{6, 4, 3, 3}, nullptr, nullptr, q);
      },
      {"[deform_conv2d]", "offset_groups 3"});
  // torch.nn.functional.unfold(zeros(2, 3, 5, 6), kernel_size=(2, 3), stride=(1, 2)).shape -> [2, 18, 8]
  UnfoldOptions u{.kernel = {2, 3}, .stride = {1, 2}};
  EXPECT_EQ(rules::unfold(Shape{2, 3, 5, 6}, u), Shape({2, 18, 8}));
  UnfoldOptions none{};
  expect_error<ValueError>([&] { rules::unfold(Shape{2, 3, 5, 6}, none); }, {"[unfold]", "kernel size"});
  UnfoldOptions big{.kernel = {7}};
  expect_error<ShapeError>([&] { rules::unfold(Shape{2, 3, 5, 6}, big); }, {"[unfold]", "larger than the padded"});
  expect_error<ShapeError>([&] { rules::unfold(Shape{3, 5, 6}, u); }, {"[unfold]", "[N, C, H, W]"});
  // torch.nn.functional.fold(zeros(2, 18, 8), (5, 6), kernel_size=(2, 3), stride=(1, 2)).shape -> [2, 3, 5, 6]
  UnfoldOptions f{.kernel = {2, 3}, .stride = {1, 2}};
  EXPECT_EQ(rules::fold(Shape{2, 18, 8}, {5, 6}, f), Shape({2, 3, 5, 6}));
  expect_error<ShapeError>([&] { rules::fold(Shape{2, 18, 9}, {5, 6}, f); }, {"[fold]", "9 blocks"});
  expect_error<ShapeError>([&] { rules::fold(Shape{2, 17, 8}, {5, 6}, f); }, {"[fold]", "not divisible"});
  expect_error<ValueError>([&] { rules::fold(Shape{2, 18, 8}, {0, 6}, f); }, {"[fold]", "output_size"});
}

// ---- pool ----

TEST(ShapeRules, Pools) {
  // torch.nn.functional.max_pool2d(zeros(1, 2, 7, 7), 3, stride=2, padding=1, ceil_mode=True).shape
  // -> [1, 2, 4, 4]
  PoolOptions o{.kernel = {3}, .stride = {2}, .padding = {1}, .ceil_mode = true};
  EXPECT_EQ(rules::pool(Shape{1, 2, 7, 7}, o, true, "max_pool"), Shape({1, 2, 4, 4}));
  EXPECT_EQ(o.padding_end, std::vector<int64_t>({1, 1}));
  PoolOptions s{.kernel = {2}};  // stride defaults to the kernel
  EXPECT_EQ(rules::pool(Shape{1, 1, 5}, s, false, "avg_pool"), Shape({1, 1, 2}));
  EXPECT_EQ(s.stride, std::vector<int64_t>({2}));
  EXPECT_EQ(rules::pool_out_len(7, 3, 2, 1, 1, 1, false), 4);
  EXPECT_EQ(rules::pool_out_len(6, 3, 2, 0, 0, 1, true), 3);  // PyTorch: the last window starts inside
  auto pool = [](Shape x, PoolOptions o, bool max) { rules::pool(x, o, max, max ? "max_pool" : "avg_pool"); };
  expect_error<ValueError>([&] { pool(Shape{1, 1, 5}, {}, true); }, {"[max_pool]", "kernel size"});
  expect_error<ValueError>(
      [&] {
        pool(Shape{1, 1, 5}, {.kernel = {2}, .dilation = {2}}, false);
      },
      {"[avg_pool]", "dilation"});
  expect_error<ValueError>(
      [&] {
        pool(Shape{1, 1, 5}, {.kernel = {2}, .padding = {2}}, true);
      },
      {"[max_pool]", "at most half"});
  expect_error<ShapeError>([&] { pool(Shape{1, 1, 2}, {.kernel = {3}}, true); }, {"[max_pool]", "larger than"});
  expect_error<ShapeError>([&] { pool(Shape{1, 0, 5}, {.kernel = {2}}, true); }, {"[max_pool]", "empty dim"});
  expect_error<ShapeError>([&] { pool(Shape{1, 5}, {.kernel = {2}}, true); }, {"[max_pool]", "rank 3, 4 or 5"});
  // torch.nn.functional.adaptive_avg_pool2d(zeros(1, 2, 7, 5), (3, 2)).shape -> [1, 2, 3, 2]
  EXPECT_EQ(rules::adaptive_pool(Shape{1, 2, 7, 5}, {3, 2}, "adaptive_avg_pool"), Shape({1, 2, 3, 2}));
  expect_error<ShapeError>(
      [] {
        rules::adaptive_pool(Shape{1, 2, 7, 5}, {3}, "adaptive_avg_pool");
      },
      {"[adaptive_avg_pool]", "needs 2 values"});
  expect_error<ValueError>(
      [] {
        rules::adaptive_pool(Shape{1, 2, 7}, {0}, "adaptive_max_pool");
      },
      {"[adaptive_max_pool]", "positive"});
  expect_error<ShapeError>(
      [] {
        rules::adaptive_pool(Shape{1, 1, 1LL << 62}, {2}, "adaptive_avg_pool");
      },
      {"[adaptive_avg_pool]", "overflows"});
}

// ---- resample ----

TEST(ShapeRules, Resample) {
  EXPECT_EQ(rules::interpolate(Shape{1, 2, 3, 4}, {6, 8}, {}), Shape({1, 2, 6, 8}));
  expect_error<Unsupported>(
      [] {
        rules::interpolate(Shape{1, 1, 2, 2, 2}, {4, 4, 4}, {InterpolateMode::Cubic});
      },
      {"[interpolate]", "cubic"});
  expect_error<ShapeError>([] { rules::interpolate(Shape{1, 1, 2, 2}, {4}, {}); }, {"[interpolate]", "needs 2"});
  // torch.nn.functional.pixel_shuffle(zeros(2, 8, 3, 4), 2).shape -> [2, 2, 6, 8]
  EXPECT_EQ(rules::pixel_shuffle(Shape{2, 8, 3, 4}, 2), Shape({2, 2, 6, 8}));
  EXPECT_EQ(rules::pixel_unshuffle(Shape{2, 2, 6, 8}, 2), Shape({2, 8, 3, 4}));
  expect_error<ShapeError>([] { rules::pixel_shuffle(Shape{2, 6, 3, 4}, 2); }, {"[pixel_shuffle]", "factor^2 = 4"});
  expect_error<ValueError>([] { rules::pixel_shuffle(Shape{2, 4, 3, 4}, 0); }, {"[pixel_shuffle]", "positive"});
  expect_error<ShapeError>([] { rules::pixel_unshuffle(Shape{2, 2, 5, 8}, 2); }, {"[pixel_unshuffle]", "divisible"});
  expect_error<ShapeError>(
      [] {
        rules::pixel_shuffle(Shape{0, 1LL << 40, 1}, 1LL << 31);
      },
      {"[pixel_shuffle]", "overflows"});
  // torch.nn.functional.grid_sample(zeros(2, 3, 4, 5), zeros(2, 6, 7, 2)).shape -> [2, 3, 6, 7]
  EXPECT_EQ(rules::grid_sample_2d(Shape{2, 3, 4, 5}, Shape{2, 6, 7, 2}), Shape({2, 3, 6, 7}));
  expect_error<ShapeError>(
      [] {
        rules::grid_sample_2d(Shape{2, 3, 4, 5}, Shape{1, 6, 7, 2});
      },
      {"[grid_sample_2d]", "N = 2"});
}

// ---- embedding, norm, attention ----

TEST(ShapeRules, EmbeddingNormAttention) {
  // torch.nn.functional.embedding(idx [2, 3], w [10, 4]).shape -> [2, 3, 4]
  EXPECT_EQ(rules::embedding(Shape{10, 4}, Shape{2, 3}), Shape({2, 3, 4}));
  expect_error<ShapeError>([] { rules::embedding(Shape{10}, Shape{2}); }, {"[embedding]", "[10]"});
  EXPECT_EQ(rules::layer_norm_params(Shape{2, 3, 4}, 2), Shape({3, 4}));
  expect_error<ValueError>([] { rules::layer_norm_params(Shape{2, 3}, 0); }, {"[layer_norm]", ">= 1"});
  expect_error<ShapeError>([] { rules::layer_norm_params(Shape{2, 3}, 3, "rms_norm"); }, {"[rms_norm]", "exceeds"});
  EXPECT_EQ(rules::try_layer_norm_params(Shape{2, 3}, 1), Shape({3}));
  EXPECT_FALSE(rules::try_layer_norm_params(Shape{2, 3}, 3));
  EXPECT_EQ(rules::group_norm_params(Shape{2, 6, 5}, 3), Shape({6}));
  expect_error<ValueError>([] { rules::group_norm_params(Shape{2, 6, 5}, 4); }, {"[group_norm]", "does not divide"});
  expect_error<ShapeError>([] { rules::group_norm_params(Shape{2, 0, 3}, kMax); }, {"[group_norm]", "overflows"});
  EXPECT_EQ(rules::batch_norm_params(Shape{8, 3, 2}), Shape({3}));
  expect_error<ShapeError>([] { rules::batch_norm_params(Shape{8}); }, {"[batch_norm]", "rank >= 2"});
  // scaled_dot_product_attention(q [2, 4, 5, 8], k [2, 4, 7, 8], v [2, 4, 7, 3]).shape -> [2, 4, 5, 3]
  const Shape q{2, 4, 5, 8}, k{2, 4, 7, 8}, v{2, 4, 7, 3}, mask{5, 1};
  EXPECT_EQ(rules::attention(q, k, v, &mask), Shape({2, 4, 5, 3}));
  const Shape bad_mask{5, 6};
  expect_error<ShapeError>([&] { rules::attention(q, k, v, &bad_mask); }, {"[attention]", "mask [5, 6]"});
  expect_error<ShapeError>([&] { rules::attention(q, Shape{2, 4, 7, 6}, v, nullptr); }, {"[attention]", "embedding"});
  expect_error<ShapeError>(
      [&] {
        rules::attention(q, Shape{2, 4, 0, 8}, Shape{2, 4, 0, 3}, nullptr);
      },
      {"[attention]", "no keys"});
}

// ---- quant ----

TEST(ShapeRules, MatmulInteger) {
  // np.matmul(np.zeros((2, 3, 4)), np.zeros((4, 5))).shape -> (2, 3, 5), as onnx MatMulInteger
  const Shape one{1}, three{3}, five{5}, four{4};
  EXPECT_EQ(rules::matmul_integer(Shape{2, 3, 4}, Shape{4, 5}, &three, &five), Shape({2, 3, 5}));
  EXPECT_EQ(rules::matmul_integer(Shape{0, 4}, Shape{4, 5}, &one, nullptr), Shape({0, 5}));
  expect_error<ShapeError>(
      [] {
        rules::matmul_integer(Shape{4}, Shape{4, 5}, nullptr, nullptr);
      },
      {"[matmul_integer]", "rank 2", "a [4]"});
  expect_error<ShapeError>(
      [] {
        rules::matmul_integer(Shape{3, 4}, Shape{2, 4, 5}, nullptr, nullptr);
      },
      {"[matmul_integer]", "2-D", "b [2, 4, 5]"});
  expect_error<ShapeError>(
      [] {
        rules::matmul_integer(Shape{3, 4}, Shape{5, 2}, nullptr, nullptr);
      },
      {"[matmul_integer]", "last dim", "a [3, 4], b [5, 2]"});
  expect_error<ShapeError>(
      [&] {
        rules::matmul_integer(Shape{3, 4}, Shape{4, 5}, &four, nullptr);
      },
      {"[matmul_integer]", "[1] or [3]", "a's zero points [4]"});
  expect_error<ShapeError>(
      [&] {
        rules::matmul_integer(Shape{3, 4}, Shape{4, 5}, nullptr, &three);
      },
      {"[matmul_integer]", "[1] or [5]", "b's zero points [3]"});
}

}  // namespace
