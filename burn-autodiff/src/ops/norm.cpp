// Backward of the normalisation ops: the backend's own backward kernels on the step's device, so they
// run on any inner backend.
#include "burn/tensor/module.hpp"
#include "burn/tensor/shape_rules.hpp"
#include "op_helpers.hpp"

namespace burn::autodiff {

namespace {

// Sum of g over its leading dims, keeping the trailing `dims`: d/dbias of a layer norm.
T leading_sum(const H& g, size_t dims) {
  const Shape tail = shape_rules::layer_norm_params(g.prim->shape(), dims);
  std::vector<int64_t> rows{-1};
  rows.insert(rows.end(), tail.begin(), tail.end());
  return T(api::reshape(g, rows)).sum_dim(0).reshape(tail);
}

// A norm kernel's {grad_x, grad_weight, grad_bias} as the gradients of {x, weight, bias}: those the
// step needs; a grad_bias the kernel left out comes from `bias_sum`.
template <typename BiasSum>
Hs norm_grads(Step& s, const H& g, Prims r, size_t inputs, BiasSum bias_sum) {
  Hs out(inputs);
  r.resize(3);
  for (size_t i = 0; i < inputs; ++i) {
    if (!s.needs(i)) continue;
    if (i == 2 && !r[2])
      out[2] = bias_sum(g);
    else
      out[i] = on_step(s, std::move(r[i]));
  }
  return out;
}

// The input of a norm and its weight, kept when either is tracked (the kernels need both); a tracked
// bias alone needs neither.
uint32_t norm_saves(const Prim& x, const Prim& weight) {
  return tracked(x) || tracked(weight) ? in(0) | (weight ? in(1) : 0u) : 0u;
}

Prim input_or_null(Step& s, size_t i, bool present) { return present ? s.input(i).prim : nullptr; }

}  // namespace

Prim AutodiffBackend::layer_norm(Prim x, Prim weight, Prim bias, size_t normalized_dims, double eps) {
  const bool has_w = weight != nullptr;
  const uint32_t save = norm_saves(x, weight);
  return record1(
      {OpId::layer_norm, save}, {std::move(x), std::move(weight), std::move(bias)},
      [normalized_dims, eps](Backend& b, Prims p) {
        return b.layer_norm(std::move(p[0]), std::move(p[1]), std::move(p[2]), normalized_dims, eps);
      },
      [has_w, normalized_dims, eps](Step& s, const H& g) -> Hs {
        auto bias_sum = [normalized_dims](const H& go) { return H(leading_sum(go, normalized_dims)); };
        if (!s.needs(0) && !s.needs(1)) return {H{}, H{}, bias_sum(g)};
        Prims r =
            s.device()->layer_norm_backward(s.input(0).prim, input_or_null(s, 1, has_w), g.prim, normalized_dims, eps);
        return norm_grads(s, g, std::move(r), 3, bias_sum);
      });
}

Prim AutodiffBackend::group_norm(Prim x, Prim weight, Prim bias, int64_t num_groups, double eps) {
  const bool has_w = weight != nullptr;
  const uint32_t save = norm_saves(x, weight);
  return record1(
      {OpId::group_norm, save}, {std::move(x), std::move(weight), std::move(bias)},
      [num_groups, eps](Backend& b, Prims p) {
        return b.group_norm(std::move(p[0]), std::move(p[1]), std::move(p[2]), num_groups, eps);
      },
      [has_w, num_groups, eps](Step& s, const H& g) -> Hs {
        auto bias_sum = [](const H& go) { return H(channel_sum(go)); };
        if (!s.needs(0) && !s.needs(1)) return {H{}, H{}, bias_sum(g)};
        Prims r = s.device()->group_norm_backward(s.input(0).prim, input_or_null(s, 1, has_w), g.prim, num_groups, eps);
        return norm_grads(s, g, std::move(r), 3, bias_sum);
      });
}

// Only the output is differentiable; the new running statistics come back untracked. In training the
// output does not depend on the running statistics; in inference they are constants of an affine map
// y = (x - mean) * rstd * w + b, so a tracked running_mean / running_var gets its exact gradient too.
Prims AutodiffBackend::batch_norm(Prim x, Prim weight, Prim bias, Prim running_mean, Prim running_var, bool training,
                                  double momentum, double eps) {
  const bool has_w = weight != nullptr, has_stats = running_mean != nullptr;
  const bool stats_grad = !training && (tracked(running_mean) || tracked(running_var));
  uint32_t save = norm_saves(x, weight);
  if (stats_grad) save |= in(0) | (has_w ? in(1) : 0u);
  if (save && !training) save |= in(3) | in(4);  // inference normalises with the running statistics
  return record(
      {OpId::batch_norm, save},
      {std::move(x), std::move(weight), std::move(bias), std::move(running_mean), std::move(running_var)},
      [training, momentum, eps](Backend& b, Prims p) {
        return b.batch_norm(std::move(p[0]), std::move(p[1]), std::move(p[2]), std::move(p[3]), std::move(p[4]),
                            training, momentum, eps);
      },
      [has_w, has_stats, training, eps](Step& s, const H& g) -> Hs {
        auto bias_sum = [](const H& go) { return H(channel_sum(go)); };
        Hs out(5);
        if (s.needs(0) || s.needs(1)) {
          const bool stats = has_stats && !training;
          Prims r =
              s.device()->batch_norm_backward(s.input(0).prim, input_or_null(s, 1, has_w), input_or_null(s, 3, stats),
                                              input_or_null(s, 4, stats), g.prim, training, eps);
          Hs xwb = norm_grads(s, g, std::move(r), 3, bias_sum);
          std::move(xwb.begin(), xwb.end(), out.begin());
        } else if (s.needs(2)) {
          out[2] = bias_sum(g);
        }
        if (!training && (s.needs(3) || s.needs(4))) {
          // y = (x - m) * (v + eps)^-1/2 * w + b per channel c: dy/dm = -rstd * w, dy/dv = -(x - m) rstd^3 w / 2.
          const Shape& xs = s.input(0).prim->shape();
          std::vector<int64_t> per_c(xs.rank(), 1);
          per_c[1] = xs[1];
          const Shape pc(per_c);
          T gw = g;
          if (has_w) gw = gw * T(s.input(1)).reshape(pc);
          T rstd = (T(s.input(4)) + eps).sqrt().recip().reshape(pc);
          if (s.needs(3)) out[3] = channel_sum(-(gw * rstd));
          if (s.needs(4)) {
            T xc = T(s.input(0)) - T(s.input(3)).reshape(pc);
            out[4] = channel_sum(gw * xc * rstd * rstd.square() * -0.5);
          }
        }
        return out;
      });
}

Prim AutodiffBackend::rms_norm(Prim x, Prim weight, size_t normalized_dims, double eps) {
  const bool has_w = weight != nullptr;
  const uint32_t save = in(0) | (has_w ? in(1) : 0u);
  return record1(
      {OpId::rms_norm, save}, {std::move(x), std::move(weight)},
      [normalized_dims, eps](Backend& b, Prims p) {
        return b.rms_norm(std::move(p[0]), std::move(p[1]), normalized_dims, eps);
      },
      [has_w, normalized_dims, eps](Step& s, const H& g) -> Hs {
        Prims r =
            s.device()->rms_norm_backward(s.input(0).prim, input_or_null(s, 1, has_w), g.prim, normalized_dims, eps);
        return norm_grads(s, g, std::move(r), 2, [](const H&) { return H{}; });
      });
}

}  // namespace burn::autodiff
