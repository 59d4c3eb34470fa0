// Default composite bodies of the norm module ops (layer, group, batch and RMS normalisation, and their
// backward), composed only from other ops of `this`. The api has checked every argument: shapes match,
// num_groups divides C, running stats are present when inference needs them.
//
// Conventions (shared with every backend's override):
// - absent weight/bias/running stats are null prims;
// - the backward ops return {grad_x, grad_weight or null (no weight), grad_bias}; grad_bias does not
//   depend on whether the forward had a bias, so it is always returned (the caller drops it if unused);
//   rms_norm has no bias and returns a null third entry;
// - batch_norm returns {y, new running_mean, new running_var}, the last two null unless training with
//   running stats: running = (1 - momentum) * running + momentum * batch stat, with the unbiased batch
//   variance (n / (n - 1)), as torch; the output itself uses the biased variance.
#include <cmath>
#include <utility>
#include <vector>

#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/shape_rules.hpp"

namespace burn {
namespace {

// Mean over `dims` of x (kept, size 1), summing the dims in the given order.
Prim mean_over(Backend& b, Prim x, const std::vector<size_t>& dims) {
  double n = 1;
  for (size_t d : dims) {
    n *= static_cast<double>(x->shape()[d]);
    x = b.sum_dim(std::move(x), d);
  }
  return b.div_scalar(std::move(x), Scalar(n));
}

struct Normed {
  Prim xhat;  // (x - mean) * rstd
  Prim rstd;  // 1 / sqrt(biased var + eps), reduced dims kept
  Prim mean;
  Prim var;  // biased
};

// Standardises x over `dims` (two-pass: centre, then the mean of squares).
Normed normalize(Backend& b, Prim x, const std::vector<size_t>& dims, double eps) {
  Prim mu = mean_over(b, x, dims);
  Prim xc = b.sub(std::move(x), mu);
  Prim var = mean_over(b, b.square(xc), dims);
  Prim rstd = b.recip(b.sqrt(b.add_scalar(var, Scalar(eps))));
  Prim xhat = b.mul(std::move(xc), rstd);
  return {std::move(xhat), std::move(rstd), std::move(mu), std::move(var)};
}

// d/dx of xhat = (x - mean) * rstd over `dims`, given g = dL/dxhat:
// rstd * (g - mean(g) - xhat * mean(g * xhat)).
Prim standardize_backward(Backend& b, Prim g, const Prim& xhat, const Prim& rstd, const std::vector<size_t>& dims) {
  Prim mg = mean_over(b, g, dims);
  Prim mgx = mean_over(b, b.mul(g, xhat), dims);
  Prim r = b.sub(b.sub(std::move(g), std::move(mg)), b.mul(xhat, std::move(mgx)));
  return b.mul(std::move(r), rstd);
}

// [M, N]: the leading dims flattened into rows, the last `nd` dims into columns.
Shape rows_shape(const Shape& s, size_t nd) {
  int64_t m = 1, n = 1;
  for (size_t i = 0; i < s.rank(); ++i) (i + nd < s.rank() ? m : n) *= s[i];
  return Shape{m, n};
}

// [N, C, S]: the spatial dims flattened (S = 1 for [N, C]).
Shape ncs_shape(const Shape& s) {
  int64_t sp = 1;
  for (size_t i = 2; i < s.rank(); ++i) sp *= s[i];
  return Shape{s[0], s[1], sp};
}

// A [C] parameter as [1, C, 1], to broadcast against [N, C, S].
Prim per_channel(Backend& b, Prim p) {
  const int64_t c = p->shape()[0];
  return b.reshape(std::move(p), Shape{1, c, 1});
}

// Sum over N and S of a [N, C, S] tensor, as [C].
Prim channel_sum(Backend& b, Prim x) {
  const int64_t c = x->shape()[1];
  return b.reshape(b.sum_dim(b.sum_dim(std::move(x), 2), 0), Shape{c});
}

}  // namespace

Prim Backend::layer_norm(Prim x, Prim weight, Prim bias, size_t normalized_dims, double eps) {
  const Shape shape = x->shape();
  Prim x2 = reshape(std::move(x), rows_shape(shape, normalized_dims));
  Prim y = reshape(normalize(*this, std::move(x2), {1}, eps).xhat, shape);
  if (weight) y = mul(std::move(y), std::move(weight));  // trailing dims: NumPy broadcasting aligns them
  if (bias) y = add(std::move(y), std::move(bias));
  return y;
}

Prims Backend::layer_norm_backward(Prim x, Prim weight, Prim grad_out, size_t normalized_dims, double eps) {
  const Shape shape = x->shape();
  const Shape rows = rows_shape(shape, normalized_dims);
  Prim go = reshape(std::move(grad_out), rows);
  Normed n = normalize(*this, reshape(std::move(x), rows), {1}, eps);
  Prim g = weight ? mul(go, reshape(weight, Shape{1, rows[1]})) : go;
  Prim gx = reshape(standardize_backward(*this, std::move(g), n.xhat, n.rstd, {1}), shape);
  const Shape wshape = shape_rules::layer_norm_params(shape, normalized_dims, "layer_norm_backward");
  Prim gw = weight ? reshape(sum_dim(mul(go, n.xhat), 0), wshape) : nullptr;
  Prim gb = reshape(sum_dim(std::move(go), 0), wshape);
  return {std::move(gx), std::move(gw), std::move(gb)};
}

Prim Backend::group_norm(Prim x, Prim weight, Prim bias, int64_t num_groups, double eps) {
  const Shape shape = x->shape();
  shape_rules::group_norm_params(shape, num_groups);
  const Shape ncs = ncs_shape(shape);
  const Shape grouped{ncs[0], num_groups, ncs[1] / num_groups * ncs[2]};
  Prim y = reshape(normalize(*this, reshape(std::move(x), grouped), {2}, eps).xhat, ncs);
  if (weight) y = mul(std::move(y), per_channel(*this, std::move(weight)));
  if (bias) y = add(std::move(y), per_channel(*this, std::move(bias)));
  return reshape(std::move(y), shape);
}

Prims Backend::group_norm_backward(Prim x, Prim weight, Prim grad_out, int64_t num_groups, double eps) {
  const Shape shape = x->shape();
  shape_rules::group_norm_params(shape, num_groups, "group_norm_backward");
  const Shape ncs = ncs_shape(shape);
  const Shape grouped{ncs[0], num_groups, ncs[1] / num_groups * ncs[2]};
  Prim go = reshape(std::move(grad_out), ncs);
  Normed n = normalize(*this, reshape(std::move(x), grouped), {2}, eps);
  Prim g = weight ? mul(go, per_channel(*this, weight)) : go;
  Prim gx = standardize_backward(*this, reshape(std::move(g), grouped), n.xhat, n.rstd, {2});
  gx = reshape(std::move(gx), shape);
  Prim gw = weight ? channel_sum(*this, mul(go, reshape(n.xhat, ncs))) : nullptr;
  Prim gb = channel_sum(*this, std::move(go));
  return {std::move(gx), std::move(gw), std::move(gb)};
}

Prims Backend::batch_norm(Prim x, Prim weight, Prim bias, Prim running_mean, Prim running_var, bool training,
                          double momentum, double eps) {
  const Shape shape = x->shape();
  const Shape ncs = ncs_shape(shape);
  const int64_t c = ncs[1];
  Prim y, new_mean, new_var;
  if (training) {
    Normed n = normalize(*this, reshape(std::move(x), ncs), {2, 0}, eps);
    y = std::move(n.xhat);
    if (running_mean) {
      const double count = static_cast<double>(ncs[0] * ncs[2]);
      Prim mu = reshape(std::move(n.mean), Shape{c});
      Prim var = mul_scalar(reshape(std::move(n.var), Shape{c}), Scalar(count / (count - 1.0)));
      new_mean =
          add(mul_scalar(std::move(running_mean), Scalar(1.0 - momentum)), mul_scalar(std::move(mu), Scalar(momentum)));
      new_var =
          add(mul_scalar(std::move(running_var), Scalar(1.0 - momentum)), mul_scalar(std::move(var), Scalar(momentum)));
    }
  } else {
    Prim rstd = recip(sqrt(add_scalar(std::move(running_var), Scalar(eps))));
    y = mul(sub(reshape(std::move(x), ncs), per_channel(*this, std::move(running_mean))),
            per_channel(*this, std::move(rstd)));
  }
  if (weight) y = mul(std::move(y), per_channel(*this, std::move(weight)));
  if (bias) y = add(std::move(y), per_channel(*this, std::move(bias)));
  return {reshape(std::move(y), shape), std::move(new_mean), std::move(new_var)};
}

Prims Backend::batch_norm_backward(Prim x, Prim weight, Prim running_mean, Prim running_var, Prim grad_out,
                                   bool training, double eps) {
  const Shape shape = x->shape();
  const Shape ncs = ncs_shape(shape);
  Prim go = reshape(std::move(grad_out), ncs);
  Prim g = weight ? mul(go, per_channel(*this, weight)) : go;
  Prim gx, xhat;
  if (training) {
    Normed n = normalize(*this, reshape(std::move(x), ncs), {2, 0}, eps);
    gx = standardize_backward(*this, std::move(g), n.xhat, n.rstd, {2, 0});
    xhat = std::move(n.xhat);
  } else {
    // The statistics are constants here: y = (x - mean) * rstd * w + b is affine in x.
    Prim rstd = per_channel(*this, recip(sqrt(add_scalar(std::move(running_var), Scalar(eps)))));
    xhat = mul(sub(reshape(std::move(x), ncs), per_channel(*this, std::move(running_mean))), rstd);
    gx = mul(std::move(g), std::move(rstd));
  }
  Prim gw = weight ? channel_sum(*this, mul(go, std::move(xhat))) : nullptr;
  Prim gb = channel_sum(*this, std::move(go));
  return {reshape(std::move(gx), shape), std::move(gw), std::move(gb)};
}

Prim Backend::rms_norm(Prim x, Prim weight, size_t normalized_dims, double eps) {
  const Shape shape = x->shape();
  Prim x2 = reshape(std::move(x), rows_shape(shape, normalized_dims));
  Prim r = recip(sqrt(add_scalar(mean_over(*this, square(x2), {1}), Scalar(eps))));
  Prim y = reshape(mul(std::move(x2), std::move(r)), shape);
  if (weight) y = mul(std::move(y), std::move(weight));
  return y;
}

// y = x * r * w with r = (mean(x^2) + eps)^-1/2: dx = r * (g - xhat * mean(g * xhat)), g = dy * w, xhat = x * r.
Prims Backend::rms_norm_backward(Prim x, Prim weight, Prim grad_out, size_t normalized_dims, double eps) {
  const Shape shape = x->shape();
  const Shape rows = rows_shape(shape, normalized_dims);
  Prim x2 = reshape(std::move(x), rows);
  Prim go = reshape(std::move(grad_out), rows);
  Prim r = recip(sqrt(add_scalar(mean_over(*this, square(x2), {1}), Scalar(eps))));
  Prim xhat = mul(std::move(x2), r);
  Prim g = weight ? mul(go, reshape(weight, Shape{1, rows[1]})) : go;
  Prim mgx = mean_over(*this, mul(g, xhat), {1});
  Prim gx = reshape(mul(sub(std::move(g), mul(xhat, std::move(mgx))), std::move(r)), shape);
  Prim gw = weight ? reshape(sum_dim(mul(std::move(go), std::move(xhat)), 0),
                             shape_rules::layer_norm_params(shape, normalized_dims, "rms_norm_backward"))
                   : nullptr;
  return {std::move(gx), std::move(gw), nullptr};
}

}  // namespace burn
