// Backward rules of the reductions (products, extrema, var, scans, sort, topk) against central
// differences in f64 (see grad_check.hpp), and their tie conventions against PyTorch's values.
#include "grad_check.hpp"

namespace burn::gradcheck {
namespace {

TEST(ReduceGrad, ProdDimWithoutZeros) {
  gradcheck(dim_op(OpId::prod_dim, 0), {values(Shape{3, 4}, 1, 0.5, 1.5)});
  gradcheck(dim_op(OpId::prod_dim, 1), {values(Shape{3, 4}, 2, -1.5, 1.5)});
  gradcheck(dim_op(OpId::prod_dim, -2), {values(Shape{2, 3, 2}, 3)});
  gradcheck(dim_op(OpId::prod_dim, 1), {values(Shape{2, 1}, 4)});  // a lane of one element
}

// One zero in a lane (first, middle, last), two zeros in a lane (all zero gradients but none lost).
TEST(ReduceGrad, ProdDimWithZeros) {
  const TensorData x = values(Shape{4, 4}, 5);
  gradcheck(dim_op(OpId::prod_dim, 1), {with_values(x, {{0, 0.0}, {6, 0.0}, {11, 0.0}, {12, 0.0}, {14, 0.0}})});
  gradcheck(dim_op(OpId::prod_dim, 0), {with_values(x, {{0, 0.0}, {6, 0.0}, {10, 0.0}})});
}

TEST(ReduceGrad, ProdOfEverything) {
  gradcheck(all_op(OpId::prod), {values(Shape{2, 3}, 6, 0.5, 1.5)});
  gradcheck(all_op(OpId::prod), {with_values(values(Shape{2, 3}, 7), {{4, 0.0}})});
  gradcheck(all_op(OpId::prod), {with_values(values(Shape{2, 3}, 8), {{1, 0.0}, {4, 0.0}})});
}

TEST(ReduceGrad, MaxAndMinOfEverything) {
  gradcheck(all_op(OpId::max), {distinct(Shape{3, 4}, 9)});
  gradcheck(all_op(OpId::min), {distinct(Shape{3, 4}, 10)});
  gradcheck(all_op(OpId::max), {distinct(Shape{5}, 11)});
}

TEST(ReduceGrad, MaxAndMinOverADim) {
  for (int64_t dim : {0, 1, 2}) {
    gradcheck(dim_op(OpId::max_dim, dim), {distinct(Shape{2, 3, 4}, 12)});
    gradcheck(dim_op(OpId::min_dim, dim), {distinct(Shape{2, 3, 4}, 13)});
  }
  for (OpId op : {OpId::max_dim_with_indices, OpId::min_dim_with_indices}) {
    for (int64_t dim : {0, -1}) {
      gradcheck([op, dim](const Hs& x) { return api::reduce_dim_with_indices(op, x[0], dim).first; },
                {distinct(Shape{3, 4}, 14)});
    }
  }
}

TEST(ReduceGrad, Var) {
  for (int64_t correction : {0, 1, 2})
    for (int64_t dim : {0, 1})
      gradcheck([=](const Hs& x) { return api::var(x[0], dim, correction); }, {values(Shape{4, 3}, 15)});
  gradcheck([](const Hs& x) { return api::var_mean(x[0], 1, 1).first; }, {values(Shape{2, 3, 2}, 16)});
}

TEST(ReduceGrad, Cumsum) {
  gradcheck(dim_op(OpId::cumsum, 0), {values(Shape{3, 4}, 17)});
  gradcheck(dim_op(OpId::cumsum, 1), {values(Shape{3, 4}, 18)});
  gradcheck(dim_op(OpId::cumsum, 1), {values(Shape{2, 3, 2}, 19)});
}

TEST(ReduceGrad, CumprodWithoutZeros) {
  gradcheck(dim_op(OpId::cumprod, 0), {values(Shape{4, 3}, 20, 0.5, 1.5)});
  gradcheck(dim_op(OpId::cumprod, 1), {values(Shape{3, 5}, 21)});
  gradcheck(dim_op(OpId::cumprod, 1), {values(Shape{2, 3, 2}, 22)});
}

// Lanes with a zero first, in the middle, last, two zeros, and none.
TEST(ReduceGrad, CumprodWithZeros) {
  const TensorData x = values(Shape{5, 5}, 23);
  gradcheck(dim_op(OpId::cumprod, 1), {with_values(x, {{0, 0.0}, {7, 0.0}, {14, 0.0}, {16, 0.0}, {18, 0.0}})});
  gradcheck(dim_op(OpId::cumprod, 0), {with_values(x, {{0, 0.0}, {10, 0.0}, {11, 0.0}, {21, 0.0}})});
}

TEST(ReduceGrad, CummaxAndCummin) {
  for (int64_t dim : {0, 1}) {
    gradcheck(dim_op(OpId::cummax, dim), {distinct(Shape{4, 5}, 24)});
    gradcheck(dim_op(OpId::cummin, dim), {distinct(Shape{4, 5}, 25)});
  }
  gradcheck(dim_op(OpId::cummax, 1), {distinct(Shape{2, 4, 2}, 26)});
}

TEST(ReduceGrad, Sort) {
  for (bool descending : {false, true})
    for (int64_t dim : {0, 1})
      gradcheck([=](const Hs& x) { return api::sort_with_indices(x[0], dim, descending, true).first; },
                {distinct(Shape{3, 4}, 27)});
}

TEST(ReduceGrad, Topk) {
  for (bool largest : {true, false}) {
    gradcheck([=](const Hs& x) { return api::topk_with_indices(x[0], 2, 1, largest).first; },
              {distinct(Shape{3, 5}, 28)});
    gradcheck([=](const Hs& x) { return api::topk_with_indices(x[0], 3, 0, largest).first; },
              {distinct(Shape{4, 2}, 29)});
  }
}

// Ties: the values PyTorch 1.13 gives (torch.max()/min() share the gradient evenly between tied
// elements; cummax/cummin credit the latest tied index).
TEST(ReduceGrad, TieConventionsFollowPyTorch) {
  auto grad_of = [](const std::vector<double>& v, const std::function<H(const H&)>& f,
                    const std::vector<double>& seed) {
    H x = api::set_require_grad(on(plain(), TensorData::from_vector(v, Shape{static_cast<int64_t>(v.size())})), true);
    H y = f(x);
    H s = on(plain(), TensorData::from_vector(seed, y.prim->shape()));
    return host(*api::grad(x, api::backward(api::reduce_all(OpId::sum, api::mul(y, s)), {})));
  };
  auto full = [](OpId op) { return [op](const H& x) { return api::reduce_all(op, x); }; };
  auto scan = [](OpId op) { return [op](const H& x) { return api::reduce_dim(op, x, 0); }; };
  EXPECT_EQ(grad_of({1, 3, 3, 2}, full(OpId::max), {1}), (std::vector<double>{0, 0.5, 0.5, 0}));
  EXPECT_EQ(grad_of({1, -3, 0.5, -3}, full(OpId::min), {1}), (std::vector<double>{0, 0.5, 0, 0.5}));
  const std::vector<double> ramp{1, 2, 3, 4, 5, 6};
  EXPECT_EQ(grad_of({1, 3, 2, 3, 0, 4}, scan(OpId::cummax), ramp), (std::vector<double>{1, 5, 0, 9, 0, 6}));
  EXPECT_EQ(grad_of({1, -3, 2, -3, 0, -4}, scan(OpId::cummin), ramp), (std::vector<double>{1, 5, 0, 9, 0, 6}));
  // cumprod of [2, 0, 3, 0, 5]: exact where a zero comes after the first one.
  EXPECT_EQ(grad_of({2, 0, 3, 0, 5}, scan(OpId::cumprod), {1, 2, 3, 4, 5}), (std::vector<double>{1, 22, 0, 0, 0}));
  // torch.median() spreads over the elements equal to the median (or over the NaNs when it is NaN);
  // torch.median(x, 0) picks one element.
  auto median = [](const H& x) { return api::median(x); };
  EXPECT_EQ(grad_of({1, 2, 2, 3}, median, {1}), (std::vector<double>{0, 0.5, 0.5, 0}));
  EXPECT_EQ(grad_of({1, NAN, 3, NAN}, median, {1}), (std::vector<double>{0, 0.5, 0, 0.5}));
  auto median_dim = [](const H& x) { return api::median_dim(x, 0).first; };
  EXPECT_EQ(grad_of({2, 2, 2, 3}, median_dim, {1}), (std::vector<double>{0, 1, 0, 0}));
}

TEST(ReduceGrad, SecondOrder) {
  gradcheck2(dim_op(OpId::prod_dim, 1), values(Shape{3, 4}, 30, 0.5, 1.5));
  gradcheck2(all_op(OpId::prod), values(Shape{2, 3}, 31, 0.5, 1.5));
  gradcheck2(dim_op(OpId::cumprod, 1), values(Shape{2, 4}, 32, 0.5, 1.5));
  gradcheck2([](const Hs& x) { return api::var(x[0], 1, 1); }, values(Shape{3, 4}, 33));
  // Piecewise-linear rules inside a nonlinear function: their backward must be recorded too.
  gradcheck2(cubed([](const H& x) { return api::reduce_dim(OpId::max_dim, x, 1); }), distinct(Shape{3, 4}, 34));
  gradcheck2(cubed([](const H& x) { return api::reduce_all(OpId::min, x); }), distinct(Shape{3, 4}, 35));
  gradcheck2(cubed([](const H& x) { return api::reduce_dim(OpId::cumsum, x, 0); }), values(Shape{3, 2}, 36));
  gradcheck2(cubed([](const H& x) { return api::reduce_dim(OpId::cummax, x, 1); }), distinct(Shape{2, 4}, 37));
  gradcheck2(cubed([](const H& x) { return api::sort_with_indices(x, 1, true, true).first; }),
             distinct(Shape{2, 4}, 38));
  gradcheck2(cubed([](const H& x) { return api::topk_with_indices(x, 2, 1, true).first; }), distinct(Shape{2, 4}, 39));
}

}  // namespace
}  // namespace burn::gradcheck
