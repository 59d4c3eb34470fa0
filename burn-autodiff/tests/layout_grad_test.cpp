// Backward rules of the layout ops (reshape, permute, expand, flip, slice, slice_assign, cat,
// repeat_dim) and of the indexing ops (gather, scatter_add, select, select_add, mask_where,
// mask_fill) against central differences in f64 (see grad_check.hpp), through the tensor API paths
// that reach them (negative steps, broadcast values, pads, rolls, stacks).
#include "grad_check.hpp"

namespace burn::gradcheck {
namespace {

// ---- layout ----

TEST(LayoutGrad, Reshape) {
  gradcheck([](const Hs& x) { return api::reshape(x[0], {3, -1}); }, {values(Shape{2, 3, 2}, 1)});
  gradcheck([](const Hs& x) { return api::flatten(x[0], 0, 1); }, {values(Shape{2, 3, 2}, 2)});
  gradcheck(
      [](const Hs& x) {
        return api::unsqueeze_dims(api::squeeze_dims(x[0], {}), {0, 2});
      },
      {values(Shape{3, 1, 4}, 3)});
}

TEST(LayoutGrad, Permute) {
  gradcheck([](const Hs& x) { return api::permute(x[0], {2, 0, 1}); }, {values(Shape{2, 3, 4}, 4)});
  gradcheck([](const Hs& x) { return api::permute(x[0], {1, 2, 0}); }, {values(Shape{2, 3, 4}, 5)});
  gradcheck([](const Hs& x) { return api::swap_dims(x[0], 0, -1); }, {values(Shape{3, 2}, 6)});
}

TEST(LayoutGrad, Expand) {
  gradcheck([](const Hs& x) { return api::expand(x[0], {2, 3, 4}); }, {values(Shape{3, 1}, 7)});
  gradcheck([](const Hs& x) { return api::expand(x[0], {3, -1}); }, {values(Shape{1, 4}, 8)});
  gradcheck([](const Hs& x) { return api::expand(x[0], {2, 3}); }, {values(Shape{1, 1}, 9)});
}

TEST(LayoutGrad, Flip) {
  gradcheck([](const Hs& x) { return api::flip(x[0], {0, 2}); }, {values(Shape{2, 3, 2}, 10)});
  gradcheck([](const Hs& x) { return api::flip(x[0], {-1}); }, {values(Shape{3, 4}, 11)});
}

TEST(LayoutGrad, Slice) {
  const TensorData x = values(Shape{4, 5}, 12);
  gradcheck([](const Hs& x) { return api::slice(x[0], {Slice::range(1, 3)}); }, {x});
  gradcheck([](const Hs& x) { return api::slice(x[0], {Slice::range(0, 4, 2), Slice::from(1, 3)}); }, {x});
  gradcheck([](const Hs& x) { return api::slice(x[0], {Slice::all(), Slice{std::nullopt, std::nullopt, -2}}); }, {x});
  gradcheck([](const Hs& x) { return api::slice(x[0], {Slice{-1, 0, -2}, Slice::range(-4, -1)}); }, {x});
  gradcheck([](const Hs& x) { return api::slice(x[0], {Slice::at(2), Slice::at(-1)}); }, {x});
  gradcheck([](const Hs& x) { return api::narrow(x[0], 1, 1, 3); }, {x});
  gradcheck([](const Hs& x) { return api::chunk(x[0], 2, 1)[1]; }, {x});
  gradcheck([](const Hs& x) { return api::split(x[0], 3, 0)[0]; }, {x});
  gradcheck([](const Hs& x) { return api::slice(x[0], {Slice::range(5, 9)}); }, {x});
}

TEST(LayoutGrad, SliceAssign) {
  const TensorData x = values(Shape{4, 5}, 13);
  // The value through a plain region, a strided one, a reversed one, and broadcast over the region.
  gradcheck(
      [](const Hs& a) {
        return api::slice_assign(a[0], {Slice::range(1, 3), Slice::range(0, 2)}, a[1]);
      },
      {x, values(Shape{2, 2}, 14)});
  gradcheck(
      [](const Hs& a) {
        return api::slice_assign(a[0], {Slice::all(), Slice::range(0, 5, 2)}, a[1]);
      },
      {x, values(Shape{4, 3}, 15)});
  gradcheck(
      [](const Hs& a) {
        return api::slice_assign(a[0], {Slice{std::nullopt, std::nullopt, -2}}, a[1]);
      },
      {x, values(Shape{2, 5}, 16)});
  gradcheck(
      [](const Hs& a) {
        return api::slice_assign(a[0], {Slice::range(0, 3), Slice::range(1, 3)}, a[1]);
      },
      {x, values(Shape{1, 2}, 17)});
  gradcheck([](const Hs& a) { return api::slice_fill(a[0], {Slice::range(1, 3), Slice::from(2)}, 0.5); }, {x});
}

TEST(LayoutGrad, Cat) {
  gradcheck(
      [](const Hs& a) {
        return api::cat({a[0], a[1], a[2]}, 1);
      },
      {values(Shape{2, 1}, 18), values(Shape{2, 3}, 19), values(Shape{2, 2}, 20)});
  gradcheck([](const Hs& a) { return api::cat({a[0], a[1]}, 0); }, {values(Shape{1, 3}, 21), values(Shape{2, 3}, 22)});
  gradcheck(
      [](const Hs& a) {
        return api::stack({a[0], a[1]}, 1);
      },
      {values(Shape{2, 3}, 23), values(Shape{2, 3}, 24)});
  // An untracked part and a tensor used twice.
  gradcheck(
      [](const Hs& a) {
        H c = on(a[0].device, values(Shape{2, 2}, 25));
        return api::cat({a[0], c, a[0]}, 1);
      },
      {values(Shape{2, 3}, 26)});
}

TEST(LayoutGrad, Repeat) {
  gradcheck([](const Hs& x) { return api::repeat(x[0], {2, 1, 3}); }, {values(Shape{2, 3, 2}, 27)});
  gradcheck([](const Hs& x) { return api::repeat(x[0], {2, 2, 1}); }, {values(Shape{3, 2}, 28)});
  gradcheck(
      [](const Hs& x) {
        return api::add(api::repeat(x[0], {0, 1}), api::repeat(x[0], {0, 1}));
      },
      {values(Shape{2, 3}, 29)});
}

TEST(LayoutGrad, PadAndRoll) {
  const TensorData x = values(Shape{3, 4}, 30);
  gradcheck([](const Hs& x) { return api::pad(x[0], {1, 2, 0, 1}, PadMode::Constant, 0.5); }, {x});
  gradcheck([](const Hs& x) { return api::pad(x[0], {-1, 2}, PadMode::Constant, 0); }, {x});
  gradcheck([](const Hs& x) { return api::pad(x[0], {2, 1, 1, 2}, PadMode::Reflect, 0); }, {x});
  gradcheck([](const Hs& x) { return api::pad(x[0], {2, 3}, PadMode::Replicate, 0); }, {x});
  gradcheck([](const Hs& x) { return api::roll(x[0], {1, -3}, {0, 1}); }, {x});
}

// ---- indexing ----

TEST(IndexingGrad, Gather) {
  const TensorData x = values(Shape{3, 4}, 31);
  gradcheck([](const Hs& a) { return api::gather(a[0], 1, a[1]); },
            {x, ints({0, 3, 3, 1, 2, 2, 0, 0, 1}, Shape{3, 3})});
  // Indices smaller than x in the other dim, with repeats.
  gradcheck([](const Hs& a) { return api::gather(a[0], 0, a[1]); }, {x, ints({2, 0, 2, 2, 1, 1}, Shape{2, 3})});
}

TEST(IndexingGrad, ScatterAdd) {
  gradcheck([](const Hs& a) { return api::scatter_add(a[0], 0, a[1], a[2]); },
            {values(Shape{3, 4}, 32), ints({0, 2, 2, 1, 0, 2, 1, 1}, Shape{2, 4}), values(Shape{2, 4}, 33)});
  gradcheck([](const Hs& a) { return api::scatter_add(a[0], 1, a[1], a[2]); },
            {values(Shape{2, 4}, 34), ints({3, 3, 0, 1, 1, 2}, Shape{2, 3}), values(Shape{2, 3}, 35)});
}

TEST(IndexingGrad, Select) {
  const TensorData x = values(Shape{3, 4}, 36);
  gradcheck([](const Hs& a) { return api::select(a[0], 0, a[1]); }, {x, ints({2, 0, 2}, Shape{3})});
  gradcheck([](const Hs& a) { return api::select(a[0], -1, a[1]); }, {x, ints({1, 3, 1, 1, 0}, Shape{5})});
}

TEST(IndexingGrad, SelectAssign) {
  gradcheck([](const Hs& a) { return api::select_assign(a[0], 1, a[1], a[2]); },
            {values(Shape{3, 4}, 37), ints({1, 1, 0}, Shape{3}), values(Shape{3, 3}, 38)});
  gradcheck([](const Hs& a) { return api::select_assign(a[0], 0, a[1], a[2]); },
            {values(Shape{2, 3}, 39), ints({1}, Shape{1}), values(Shape{1, 3}, 40)});
}

TEST(IndexingGrad, MaskWhere) {
  const TensorData mask = bools({true, false, false, true, true, false}, Shape{2, 3});
  gradcheck([](const Hs& a) { return api::mask_where(a[0], a[1], a[2]); },
            {values(Shape{2, 3}, 41), mask, values(Shape{2, 3}, 42)});
  // The value and the mask broadcast over x.
  gradcheck([](const Hs& a) { return api::mask_where(a[0], a[1], a[2]); },
            {values(Shape{2, 3}, 43), mask, values(Shape{1, 3}, 44)});
  gradcheck([](const Hs& a) { return api::mask_where(a[0], a[1], a[2]); },
            {values(Shape{2, 3}, 45), bools({false, true, true}, Shape{1, 3}), values(Shape{2, 3}, 46)});
}

TEST(IndexingGrad, MaskFill) {
  gradcheck([](const Hs& a) { return api::mask_fill(a[0], a[1], 2.5); },
            {values(Shape{2, 3}, 47), bools({true, false, false, true, true, false}, Shape{2, 3})});
  gradcheck([](const Hs& a) { return api::mask_fill(a[0], a[1], 0); },
            {values(Shape{2, 3}, 48), bools({false, true}, Shape{2, 1})});
  gradcheck([](const Hs& x) { return api::tril(x[0], 0); }, {values(Shape{3, 3}, 49)});
  gradcheck([](const Hs& x) { return api::triu(x[0], 1); }, {values(Shape{3, 4}, 50)});
}

// ---- second order ----

TEST(LayoutGrad, SecondOrder) {
  gradcheck2(cubed([](const H& x) { return api::reshape(x, {-1}); }), values(Shape{2, 3}, 51));
  gradcheck2(cubed([](const H& x) { return api::permute(x, {1, 0}); }), values(Shape{2, 3}, 52));
  gradcheck2(cubed([](const H& x) { return api::expand(x, {2, 3, 2}); }), values(Shape{3, 1}, 53));
  gradcheck2(cubed([](const H& x) { return api::flip(x, {0}); }), values(Shape{3, 2}, 54));
  gradcheck2(cubed([](const H& x) {
               return api::slice(x, {Slice{std::nullopt, std::nullopt, -2}});
             }),
             values(Shape{5, 2}, 55));
  gradcheck2(
      cubed([](const H& x) { return api::slice_assign(x, {Slice::range(0, 2)}, api::slice(x, {Slice::from(1)})); }),
      values(Shape{3, 2}, 56));
  gradcheck2(cubed([](const H& x) { return api::cat({x, api::flip(x, {1})}, 1); }), values(Shape{2, 3}, 57));
  gradcheck2(cubed([](const H& x) { return api::repeat(x, {1, 3}); }), values(Shape{2, 2}, 58));
}

TEST(IndexingGrad, SecondOrder) {
  const H idx = on(plain(), ints({2, 0, 2, 1, 1, 0}, Shape{3, 2}));
  const H sel = on(plain(), ints({2, 2, 0}, Shape{3}));
  const H mask = on(plain(), bools({true, false, false, true, true, false}, Shape{3, 2}));
  gradcheck2(cubed([idx](const H& x) { return api::gather(x, 0, idx); }), values(Shape{3, 2}, 59));
  gradcheck2(cubed([idx](const H& x) { return api::scatter_add(x, 0, idx, api::mul_scalar(x, 2)); }),
             values(Shape{3, 2}, 60));
  gradcheck2(cubed([sel](const H& x) { return api::select(x, 0, sel); }), values(Shape{3, 2}, 61));
  gradcheck2(cubed([sel](const H& x) { return api::select_assign(x, 0, sel, api::unary(OpId::exp, x)); }),
             values(Shape{3, 2}, 62));
  gradcheck2(cubed([mask](const H& x) { return api::mask_where(x, mask, api::mul_scalar(x, -3)); }),
             values(Shape{3, 2}, 63));
  gradcheck2(cubed([mask](const H& x) { return api::mask_fill(x, mask, 1.5); }), values(Shape{3, 2}, 64));
}

}  // namespace
}  // namespace burn::gradcheck
