// The interpolate ops' plan (resample.hpp).
#include "burn/gpu/resample.hpp"

#include <cstring>
#include <string>
#include <utility>

#include "burn/tensor/detail/sampling_taps.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/shape_rules.hpp"

namespace burn::gpu {

namespace {

// The (D, H, W) taps of an interpolation, unit taps on missing leading dims.
std::vector<module_detail::DimTaps> taps3(const Shape& in, const Shape& out, const InterpolateOptions& o) {
  std::vector<module_detail::DimTaps> t(3);
  const size_t n = in.rank() - 2, lead = 3 - n;
  for (size_t a = 0; a < lead; ++a) {
    t[a].in = t[a].out = t[a].k = 1;
    t[a].pos = {0};
    t[a].weight = {1.0};
  }
  for (size_t i = 0; i < n; ++i) t[lead + i] = module_detail::interp_taps(in[i + 2], out[i], o);
  return t;
}

void push(ResamplePlan& p, int64_t i, double w) {
  p.ints.push_back(i);
  p.weights.push_back(w);
}

// resample.kernel's FORWARD tables (its header says the layout).
void forward_tables(ResamplePlan& p, const std::vector<module_detail::DimTaps>& t) {
  for (int a = 0; a < 3; ++a) push(p, t[a].k, 0);
  for (int a = 0; a < 3; ++a) push(p, 0, 0);  // where each dim's taps start, set below
  for (int a = 0; a < 3; ++a) {
    p.ints[3 + a] = static_cast<int64_t>(p.ints.size());
    for (size_t j = 0; j < t[a].pos.size(); ++j) push(p, t[a].pos[j], t[a].weight[j]);
  }
}

// The BACKWARD tables: each dim's table inverted into rows per input position.
void backward_tables(ResamplePlan& p, const std::vector<module_detail::DimTaps>& t) {
  for (int a = 0; a < 6; ++a) push(p, 0, 0);
  for (int a = 0; a < 3; ++a) {
    const module_detail::DimTaps& d = t[a];
    // Entries grouped by input position, each group in output order.
    std::vector<std::vector<std::pair<int64_t, double>>> by_input(static_cast<size_t>(d.in));
    for (int64_t o = 0; o < d.out; ++o)
      for (int64_t j = 0; j < d.k; ++j) {
        const size_t e = static_cast<size_t>(o * d.k + j);
        by_input[static_cast<size_t>(d.pos[e])].emplace_back(o, d.weight[e]);
      }
    p.ints[a] = static_cast<int64_t>(p.ints.size());
    int64_t at = 0;
    for (const auto& row : by_input) {
      push(p, at, 0);
      at += static_cast<int64_t>(row.size());
    }
    push(p, at, 0);
    p.ints[3 + a] = static_cast<int64_t>(p.ints.size());
    for (const auto& row : by_input)
      for (const auto& [o, w] : row) push(p, o, w);
  }
}

}  // namespace

std::vector<uint8_t> ResamplePlan::weight_bytes(bool f64) const {
  std::vector<uint8_t> b;
  auto put = [&](const auto& v) {
    b.resize(v.size() * sizeof(v[0]));
    if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  };
  if (f64)
    put(weights);
  else
    put(std::vector<float>(weights.begin(), weights.end()));
  return b;
}

ResamplePlan resample_plan(const Shape& in, const Shape& output_size, const InterpolateOptions& options, bool backward,
                           const char* op, const std::string& device) {
  ResamplePlan p;
  const Shape os = shape_rules::interpolate(in, output_size.dims(), options, op);
  p.out = os;
  p.result = backward ? in : os;
  p.planes = in[0] * in[1];
  if (os.num_elements() == 0 || in.num_elements() == 0) return p;
  const std::vector<module_detail::DimTaps> t = taps3(in, output_size, options);
  auto fits = [&](int64_t x, const char* what) {
    if (x > INT32_MAX || x < INT32_MIN)
      throw Unsupported(op, std::string(what) + " " + std::to_string(x) + " needs more than 32 bits on " + device);
    return x;
  };
  fits(t[0].in * t[1].in * t[2].in, "an input plane of");
  fits(t[0].out * t[1].out * t[2].out, "an output plane of");
  for (int a = 0; a < 3; ++a) {
    p.in[a] = t[a].in;
    p.out_dims[a] = t[a].out;
  }
  if (backward)
    backward_tables(p, t);
  else
    forward_tables(p, t);
  fits(static_cast<int64_t>(p.ints.size()), "a tap table of");
  return p;
}

}  // namespace burn::gpu
