// Random ops: RandomUniform(Like), RandomNormal(Like), Bernoulli and Multinomial, drawn from the
// device's generator. A node's `seed` (a float) re-seeds that generator before the draw with the
// seed's IEEE-754 single-precision bit pattern as the 64-bit seed, so a seeded node gives the same
// values on every run of one backend; the values are not ONNX Runtime's (another generator).
#include <bit>
#include <cmath>

#include "engine.hpp"

namespace burn::onnx {
namespace {

using Hs = std::vector<H>;

void maybe_seed(OpContext& c) {
  if (const auto* a = c.attr("seed")) c.device().seed(std::bit_cast<uint32_t>(a->f()));
}

// The output dtype: the `dtype` attribute, else `dflt`.
DType out_dtype(OpContext& c, DType dflt) {
  return c.has_attr("dtype") ? dtype_from_onnx(static_cast<int32_t>(c.attr_i("dtype", 1)), c.where()) : dflt;
}

H draw(OpContext& c, const Shape& s, DType dt, bool normal) {
  if (!is_float(dt)) c.invalid("dtype must be a float type, got " + std::string(dtype_name(dt)));
  maybe_seed(c);
  Distribution d = normal ? Distribution::normal(c.attr_f("mean", 0.0), c.attr_f("scale", 1.0))
                          : Distribution::uniform(c.attr_f("low", 0.0), c.attr_f("high", 1.0));
  // Drawn in f32 (the generators' own type) and cast, so the values do not depend on the dtype asked.
  H y = api::random(c.device(), s, d, DType::F32);
  return dt == DType::F32 ? y : api::cast(y, dt);
}

template <bool Normal>
Hs random_op(OpContext& c) {
  return {draw(c, Shape(c.attr_ints("shape")), out_dtype(c, DType::F32), Normal)};
}

template <bool Normal>
Hs random_like(OpContext& c) {
  DType in = c.dtype(0);
  return {draw(c, c.shape(0), out_dtype(c, is_float(in) ? in : DType::F32), Normal)};
}

// Bernoulli (15): 1 where a uniform draw is below p, as its function body (RandomUniformLike, Less).
Hs bernoulli(OpContext& c) {
  if (!is_float(c.dtype(0))) c.invalid("the probabilities must be a float tensor");
  maybe_seed(c);
  H u = api::random(c.device(), c.shape(0), Distribution::uniform(0.0, 1.0), DType::F32);
  H hit = api::compare(OpId::lower, u, api::cast(c.in(0), DType::F32));
  return {api::cast(hit, out_dtype(c, c.dtype(0)))};
}

// Multinomial (7): sample_size class indices per row of unnormalised log-probabilities, with replacement.
Hs multinomial(OpContext& c) {
  if (c.rank(0) != 2) c.invalid("input must be [batch, classes], got " + c.shape(0).to_string());
  int64_t n = c.attr_i("sample_size", 1);
  if (n <= 0) c.invalid("sample_size must be positive");
  DType dt = out_dtype(c, DType::I32);
  if (dt != DType::I32 && dt != DType::I64) c.invalid("dtype must be int32 or int64");
  maybe_seed(c);
  H x = api::cast(c.in(0), DType::F32);
  H w = api::unary(OpId::exp, api::sub(x, api::reduce_dim(OpId::max_dim, x, 1)));
  H y = api::categorical(w, n, true);
  return {y.prim->dtype() == dt ? y : api::cast(y, dt)};
}

}  // namespace

void add_random_ops(std::vector<OpRow>& r) {
  const int k = kMaxOpset;
  r.insert(r.end(), {
                        {"RandomUniform", 1, k, random_op<false>},
                        {"RandomNormal", 1, k, random_op<true>},
                        {"RandomUniformLike", 1, k, random_like<false>},
                        {"RandomNormalLike", 1, k, random_like<true>},
                        {"Bernoulli", 15, k, bernoulli},
                        {"Multinomial", 7, k, multinomial},
                    });
}

}  // namespace burn::onnx
