// burn-conformance: the calls of the resample module ops.
#include <stdexcept>

#include "burn/tensor/module.hpp"
#include "call_helpers.hpp"

namespace burn::conformance {

namespace {

InterpolateOptions interp_options(const json& a) {
  InterpolateOptions o;
  const std::string m = a.at("mode").get<std::string>();
  if (m == "nearest")
    o.mode = InterpolateMode::Nearest;
  else if (m == "linear")
    o.mode = InterpolateMode::Linear;
  else if (m == "cubic")
    o.mode = InterpolateMode::Cubic;
  else
    throw std::runtime_error("unknown interpolate mode '" + m + "'");
  o.align_corners = a.value("align_corners", false);
  return o;
}

GridSampleOptions grid_options(const json& a) {
  GridSampleOptions o;
  const std::string m = a.at("mode").get<std::string>(), p = a.at("padding").get<std::string>();
  if (m == "bilinear")
    o.mode = GridSampleMode::Bilinear;
  else if (m == "nearest")
    o.mode = GridSampleMode::Nearest;
  else
    throw std::runtime_error("unknown grid_sample mode '" + m + "'");
  if (p == "zeros")
    o.padding = GridSamplePadding::Zeros;
  else if (p == "border")
    o.padding = GridSamplePadding::Border;
  else if (p == "reflection")
    o.padding = GridSamplePadding::Reflection;
  else
    throw std::runtime_error("unknown grid_sample padding '" + p + "'");
  o.align_corners = a.value("align_corners", false);
  return o;
}

}  // namespace

void add_resample_calls(CallTable& t) {
  t["interpolate"] = [](const Device&, Hs& in, const json& a) {
    return one(api::interpolate(std::move(in.at(0)), ints(a, "output_size"), interp_options(a)));
  };
  t["interpolate_backward"] = [](const Device&, Hs& in, const json& a) {
    return one(api::interpolate_backward(std::move(in.at(0)), in.at(1), ints(a, "output_size"), interp_options(a)));
  };
  t["pixel_shuffle"] = [](const Device&, Hs& in, const json& a) {
    return one(api::pixel_shuffle(std::move(in.at(0)), i64(a, "factor")));
  };
  t["pixel_unshuffle"] = [](const Device&, Hs& in, const json& a) {
    return one(api::pixel_unshuffle(std::move(in.at(0)), i64(a, "factor")));
  };
  t["grid_sample_2d"] = [](const Device&, Hs& in, const json& a) {
    return one(api::grid_sample_2d(std::move(in.at(0)), in.at(1), grid_options(a)));
  };
}

}  // namespace burn::conformance
