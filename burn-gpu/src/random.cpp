// The random op's plan (random.hpp).
#include "burn/gpu/random.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <string_view>

#include "burn/tensor/data.hpp"

namespace burn::gpu {

namespace {

bool float_target(DType d) { return is_float(d); }

// The largest value of float dtype d below b (b finite): where a uniform draw that rounds up to b goes.
double below_in(DType d, double b) {
  if (d == DType::F64) return std::nextafter(b, -INFINITY);
  if (d == DType::F32) {
    const float f = static_cast<float>(b);
    return f < b ? f : std::nextafter(f, -INFINITY);
  }
  // f16 or bf16 (the vulkan plugin draws no bf16; the opencl plugin does)
  const bool f16 = d == DType::F16;
  const auto widen = [f16](uint16_t v) { return static_cast<double>(f16 ? f16_to_f32(v) : bf16_to_f32(v)); };
  const uint16_t h = f16 ? f32_to_f16(static_cast<float>(b)) : f32_to_bf16(static_cast<float>(b));
  if (widen(h) < b) return widen(h);
  const uint16_t down = (h & 0x7fff) == 0 ? 0x8001
                        : (h & 0x8000)    ? static_cast<uint16_t>(h + 1)
                                          : static_cast<uint16_t>(h - 1);
  return widen(down);
}

}  // namespace

RandomPlan random_plan(const Distribution& dist, DType dtype, bool device_f64) {
  using K = Distribution::Kind;
  const bool fl = float_target(dtype);
  K kind = dist.kind;
  if (kind == K::Default) kind = dtype == DType::Bool ? K::Bernoulli : K::Uniform;
  const double p = dist.kind == K::Default ? 0.5 : dist.a;
  const bool int_uniform = kind == K::Uniform && !fl;
  RandomPlan r;
  r.r64 = dtype == DType::F64 || (!fl && device_f64);
  auto bits = [&](double v) -> uint64_t {
    return r.r64 ? std::bit_cast<uint64_t>(v) : std::bit_cast<uint32_t>(static_cast<float>(v));
  };
  r.a_bits = bits(dist.a);
  r.b_bits = bits(dist.b);
  r.top_bits = int_uniform || !fl ? 0 : bits(below_in(dtype, dist.b));
  if (int_uniform) {
    r.kind = "KIND_UNIFORM_INT";
    r.lo = static_cast<int64_t>(std::ceil(dist.a));
    r.range = static_cast<uint64_t>(static_cast<int64_t>(std::ceil(dist.b))) - static_cast<uint64_t>(r.lo);
    r.threshold = (0 - r.range) % r.range;  // 2^64 mod range: draws below it are rejected
  } else if (kind == K::Normal) {
    r.kind = "KIND_NORMAL";
  } else if (kind == K::Bernoulli) {
    r.kind = "KIND_BERNOULLI";
    r.threshold = static_cast<uint64_t>(std::ceil(p * 0x1.0p53));  // u53 < p * 2^53
  }
  switch (dtype) {
    case DType::I64:
      r.sat_lo = std::numeric_limits<int64_t>::min();
      r.sat_hi = std::numeric_limits<int64_t>::max();
      break;
    case DType::I32:
      r.sat_lo = std::numeric_limits<int32_t>::min();
      r.sat_hi = std::numeric_limits<int32_t>::max();
      break;
    case DType::I8:
      r.sat_lo = -128;
      r.sat_hi = 127;
      break;
    case DType::U8: r.sat_hi = 255; break;
    default: break;
  }
  return r;
}

Defines random_defines(DType dtype, const char* kind, bool r64) {
  Defines d{{"KIND", kind}};
  if (r64) {
    d.emplace_back("R_F64", "1");
    d.emplace_back("HAS_F64", "1");
  }
  if (dtype == DType::Bool)
    d.emplace_back("TO_BOOL", "1");
  else if (!float_target(dtype) && std::string_view(kind) != "KIND_UNIFORM_INT")
    d.emplace_back("TO_INT", "1");
  return d;
}

}  // namespace burn::gpu
