// Reductions: Reduce*, ArgMax/ArgMin, CumSum, TopK.
#include <algorithm>

#include "engine.hpp"

namespace burn::onnx {
namespace {

using Hs = std::vector<H>;

enum class Red { Sum, Mean, Max, Min, Prod, SumSquare, L1, L2, LogSum, LogSumExp };

template <Red R>
Hs reduce(OpContext& c) {
  H x = c.in(0);
  size_t rank = c.rank(0);
  std::vector<int64_t> axes;
  // Axes became an input at opset 13 for ReduceSum, at 18 for the others.
  bool from_input = (R == Red::Sum && c.opset() >= 13) || c.opset() >= 18;
  if (from_input) {
    if (c.has(1)) axes = c.ints(1);
  } else {
    axes = c.attr_ints("axes");
  }
  if (axes.empty()) {
    if (from_input && c.attr_i("noop_with_empty_axes", 0)) return {x};
    for (size_t i = 0; i < rank; ++i) axes.push_back(static_cast<int64_t>(i));
  }
  for (auto& a : axes) a = c.axis(a, rank);
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  // ReduceMax/ReduceMin take bools from opset 20: any/all as the max/min of 0/1.
  DType dt = c.dtype(0);
  if (is_bool(dt)) {
    if (R != Red::Max && R != Red::Min) c.invalid("bool input");
    x = api::cast(x, DType::I32);
  }
  H y;
  switch (R) {
    case Red::Sum: y = reduce_axes(OpId::sum_dim, x, axes); break;
    case Red::Mean: y = reduce_axes(OpId::mean_dim, x, axes); break;
    case Red::Max: y = reduce_axes(OpId::max_dim, x, axes); break;
    case Red::Min: y = reduce_axes(OpId::min_dim, x, axes); break;
    case Red::Prod: y = reduce_axes(OpId::prod_dim, x, axes); break;
    case Red::SumSquare: y = reduce_axes(OpId::sum_dim, api::mul(x, x), axes); break;
    case Red::L1: y = reduce_axes(OpId::sum_dim, api::unary(OpId::abs, x), axes); break;
    case Red::L2: {
      H xf = is_float(dt) ? x : api::cast(x, DType::F64);
      y = api::unary(OpId::sqrt, reduce_axes(OpId::sum_dim, api::mul(xf, xf), axes));
      if (!is_float(dt)) y = api::cast(api::unary(OpId::round, y), dt);
      break;
    }
    case Red::LogSum: y = api::unary(OpId::log, reduce_axes(OpId::sum_dim, x, axes)); break;
    case Red::LogSumExp: {
      // Shifted by the max so large inputs do not overflow exp.
      H m = reduce_axes(OpId::max_dim, x, axes);
      H s = reduce_axes(OpId::sum_dim, api::unary(OpId::exp, api::sub(x, m)), axes);
      y = api::add(api::unary(OpId::log, s), m);
      break;
    }
  }
  if (is_bool(dt)) y = api::cast(y, dt);
  if (!c.attr_i("keepdims", 1)) y = api::squeeze_dims(y, axes);
  return {y};
}

template <OpId Op>
Hs arg(OpContext& c) {
  H x = c.in(0);
  int64_t axis = c.axis(c.attr_i("axis", 0), c.rank(0));
  H y;
  if (c.attr_i("select_last_index", 0)) {
    int64_t n = c.shape(0)[static_cast<size_t>(axis)];
    y = api::reduce_dim(Op, api::flip(x, {axis}), axis);
    y = api::rsub_scalar(y, Scalar(n - 1));
  } else {
    y = api::reduce_dim(Op, x, axis);
  }
  if (y.prim->dtype() != DType::I64) y = api::cast(y, DType::I64);
  if (!c.attr_i("keepdims", 1)) y = api::squeeze_dims(y, {axis});
  return {y};
}

Hs cumsum(OpContext& c) {
  H x = c.in(0);
  int64_t axis = c.axis(c.ints(1).at(0), c.rank(0));
  bool rev = c.attr_i("reverse", 0), excl = c.attr_i("exclusive", 0);
  if (rev) x = api::flip(x, {axis});
  H y = api::reduce_dim(OpId::cumsum, x, axis);
  if (excl) y = api::sub(y, x);
  if (rev) y = api::flip(y, {axis});
  return {y};
}

Hs topk(OpContext& c) {
  int64_t k = c.opset() >= 10 ? c.ints(1).at(0) : c.attr_i("k", 1);
  int64_t axis = c.axis(c.attr_i("axis", -1), c.rank(0));
  bool largest = c.opset() < 11 || c.attr_i("largest", 1);
  auto [v, i] = api::topk_with_indices(c.in(0), k, axis, largest);
  if (i.prim->dtype() != DType::I64) i = api::cast(i, DType::I64);
  return {v, i};
}

}  // namespace

void add_reduce_ops(std::vector<OpRow>& r) {
  const int k = kMaxOpset;
  r.insert(r.end(), {
                        {"ReduceSum", 1, k, reduce<Red::Sum>},
                        {"ReduceMean", 1, k, reduce<Red::Mean>},
                        {"ReduceMax", 1, k, reduce<Red::Max>},
                        {"ReduceMin", 1, k, reduce<Red::Min>},
                        {"ReduceProd", 1, k, reduce<Red::Prod>},
                        {"ReduceSumSquare", 1, k, reduce<Red::SumSquare>},
                        {"ReduceL1", 1, k, reduce<Red::L1>},
                        {"ReduceL2", 1, k, reduce<Red::L2>},
                        {"ReduceLogSum", 1, k, reduce<Red::LogSum>},
                        {"ReduceLogSumExp", 1, k, reduce<Red::LogSumExp>},
                        {"ArgMax", 1, k, arg<OpId::argmax>},
                        {"ArgMin", 1, k, arg<OpId::argmin>},
                        {"CumSum", 11, k, cumsum},
                        {"TopK", 1, k, topk},
                    });
}

}  // namespace burn::onnx
