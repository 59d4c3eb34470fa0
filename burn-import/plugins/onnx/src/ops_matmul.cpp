// Matrix ops: MatMul, Gemm, Einsum, Det.
#include <algorithm>
#include <cctype>

#include "burn/tensor/linalg.hpp"
#include "engine.hpp"

namespace burn::onnx {
namespace {

using Hs = std::vector<H>;

Hs matmul(OpContext& c) { return {matmul_node(c.in(0), c.in(1))}; }

Hs gemm(OpContext& c) { return {gemm_node(c, c.in(0), c.in(1), c.has(2) ? std::optional<H>(c.in(2)) : std::nullopt)}; }

Hs einsum(OpContext& c) {
  std::vector<H> xs;
  for (size_t i = 0; i < c.num_inputs(); ++i) xs.push_back(c.in(i));
  std::string eq = c.attr_s("equation", "");
  H y = api::einsum(eq, xs);
  // A scalar result (explicit "->" with no labels, or implicit with no label used once) is 0-d in ONNX.
  std::string out;
  size_t arrow = eq.find("->");
  if (arrow != std::string::npos) {
    out = eq.substr(arrow + 2);
  } else {
    for (char ch : eq)
      if (std::isalpha(static_cast<unsigned char>(ch)) && std::count(eq.begin(), eq.end(), ch) == 1) out += ch;
    if (eq.find("...") != std::string::npos) out += "...";
  }
  out.erase(std::remove(out.begin(), out.end(), ' '), out.end());
  if (out.empty() && shape_of(y).rank() == 1 && shape_of(y)[0] == 1) y = api::reshape(y, std::vector<int64_t>{});
  return {y};
}

Hs det(OpContext& c) {
  H y = api::det(c.in(0));
  // burn returns [1] for a single matrix; ONNX a 0-d tensor.
  if (c.rank(0) == 2) y = api::reshape(y, std::vector<int64_t>{});
  return {y};
}

}  // namespace

H matmul_node(H a, H b) {
  const size_t ra = shape_of(a).rank(), rb = shape_of(b).rank();
  // NumPy's 1-D rules: a vector operand gains a dim that the result then drops.
  if (ra == 1) a = api::unsqueeze_dims(a, {0});
  if (rb == 1) b = api::unsqueeze_dims(b, {1});
  H y = matmul_nd(a, b);
  size_t ry = shape_of(y).rank();
  if (rb == 1) y = api::squeeze_dims(y, {static_cast<int64_t>(ry) - 1});
  if (ra == 1) y = api::squeeze_dims(y, {static_cast<int64_t>(shape_of(y).rank()) - (rb == 1 ? 1 : 2)});
  return y;
}

H gemm_node(OpContext& c, H a, H b, const std::optional<H>& bias) {
  if (c.attr_i("transA", 0)) a = api::swap_dims(a, 0, 1);
  if (c.attr_i("transB", 0)) b = api::swap_dims(b, 0, 1);
  double alpha = c.attr_f("alpha", 1.0), beta = c.attr_f("beta", 1.0);
  H y = api::matmul(a, b);
  if (alpha != 1.0) y = api::mul_scalar(y, Scalar(alpha));
  if (bias && beta != 0.0) y = api::add(y, beta != 1.0 ? api::mul_scalar(*bias, Scalar(beta)) : *bias);
  return y;
}

void add_matmul_ops(std::vector<OpRow>& r) {
  const int k = kMaxOpset;
  r.insert(r.end(), {
                        {"MatMul", 1, k, matmul},
                        {"Gemm", 1, k, gemm},
                        {"Einsum", 12, k, einsum},
                        {"Det", 11, k, det},
                    });
}

}  // namespace burn::onnx
