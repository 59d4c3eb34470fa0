// Interpolate1d/2d and their modes' names in configs.
#include "burn/nn/resample.hpp"

#include <cmath>

#include "burn/tensor/module.hpp"
#include "layer_common.hpp"

namespace burn {
// InterpolateMode as "nearest", "linear", "cubic" in configs (an unknown name is a ValueError).
void to_json(nlohmann::json& j, const InterpolateMode& m) {
  j = m == InterpolateMode::Nearest ? "nearest" : m == InterpolateMode::Linear ? "linear" : "cubic";
}
void from_json(const nlohmann::json& j, InterpolateMode& m) {
  const std::string s = j.get<std::string>();
  if (s == "nearest")
    m = InterpolateMode::Nearest;
  else if (s == "linear")
    m = InterpolateMode::Linear;
  else if (s == "cubic")
    m = InterpolateMode::Cubic;
  else
    throw ValueError("InterpolateMode", "unknown mode '" + s + "' (nearest, linear, cubic)");
}
}  // namespace burn

namespace burn::nn {

BURN_CONFIG_JSON(Interpolate1dConfig, output_size, scale_factor, mode, align_corners)
BURN_CONFIG_JSON(Interpolate2dConfig, output_size, scale_factor, mode, align_corners)

namespace {

const char* mode_name(InterpolateMode m) {
  return m == InterpolateMode::Nearest ? "nearest" : m == InterpolateMode::Linear ? "linear" : "cubic";
}

// Checks the sizes of an Interpolate config: output_size or scale_factor, with 1 or n values each.
void check_interpolate(const char* op, size_t n, const std::vector<int64_t>& size, const std::vector<double>& scale) {
  if (size.empty() == scale.empty())
    throw ValueError(
        op, size.empty() ? "needs output_size or scale_factor" : "takes output_size or scale_factor, not both");
  if (!size.empty()) {
    if (size.size() != 1 && size.size() != n)
      throw ValueError(op, "output_size needs 1 or " + std::to_string(n) + " values, got " + detail::list_string(size));
    detail::check_positive(op, "output_size", size);
  }
  for (double s : scale)
    if (!(s > 0.0 && std::isfinite(s)))
      throw ValueError(op, "scale_factor must be positive, got " + detail::num_string(s));
  if (!scale.empty() && scale.size() != 1 && scale.size() != n)
    throw ValueError(op,
                     "scale_factor needs 1 or " + std::to_string(n) + " values, got " + std::to_string(scale.size()));
}

}  // namespace

namespace detail {

TensorHandle interpolate(const char* layer, const TensorHandle& x, const std::vector<int64_t>& output_size,
                         const std::vector<double>& scale_factor, InterpolateMode mode, bool align_corners) {
  const size_t n = std::string_view(layer) == "Interpolate1d" ? 1 : 2;
  check_rank(layer, x, n + 2, "[batch, channels, spatial...]");
  check_interpolate(layer, n, output_size, scale_factor);
  const Shape& s = x.prim->shape();
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    if (!output_size.empty()) {
      out[i] = output_size[output_size.size() == 1 ? 0 : i];
    } else {
      // Burn's size from a scale: floor(size * scale), at least 1.
      const double scale = scale_factor[scale_factor.size() == 1 ? 0 : i];
      out[i] = static_cast<int64_t>(std::floor(static_cast<double>(s[2 + i]) * scale));
      if (out[i] <= 0)
        throw ValueError(layer,
                         "scale_factor " + num_string(scale) + " gives an empty output for input " + s.to_string());
    }
  }
  return api::interpolate(x, out, InterpolateOptions{mode, align_corners});
}

}  // namespace detail

#define BURN_NN_INTERPOLATE_IMPL(Name, n)                                                           \
  std::string Name::extra_repr() const {                                                            \
    return (output_size.empty() ? "scale_factor=" + std::to_string(scale_factor.size()) + " values" \
                                : "output_size=" + detail::list_string(output_size)) +              \
           ", mode=" + mode_name(mode) + ", align_corners=" + (align_corners ? "true" : "false");   \
  }                                                                                                 \
  Name Name##Config::init() const {                                                                 \
    check_interpolate(#Name "Config::init", n, output_size, scale_factor);                          \
    return Name{output_size, scale_factor, mode, align_corners};                                    \
  }
BURN_NN_INTERPOLATE_IMPL(Interpolate1d, 1)
BURN_NN_INTERPOLATE_IMPL(Interpolate2d, 2)
#undef BURN_NN_INTERPOLATE_IMPL

}  // namespace burn::nn
