// The pool ops' plan (pool.hpp).
#include "burn/gpu/pool.hpp"

#include <string>

#include "burn/tensor/error.hpp"
#include "burn/tensor/shape_rules.hpp"

namespace burn::gpu {

std::vector<int64_t> PoolGeo::entries(const char* op, const std::string& device) const {
  auto fits = [&](int64_t x, const char* what) {
    if (x > INT32_MAX || x < INT32_MIN)
      throw Unsupported(op, std::string(what) + " " + std::to_string(x) + " needs more than 32 bits on " + device);
    return x;
  };
  fits(in_len(), "an input plane of");
  fits(out_len(), "an output plane of");
  std::vector<int64_t> e;
  for (const auto& row : v)
    for (int64_t x : row) e.push_back(fits(x, "a pool size"));
  return e;
}

PoolGeo pool_geo(const Shape& in, const PoolOptions& options, bool max, const char* op) {
  PoolOptions p = options;
  const Shape os = shape_rules::pool(in, p, max, op);
  PoolGeo g;
  const size_t n = in.rank() - 2, lead = 3 - n;
  for (size_t i = 0; i < n; ++i) {
    const size_t a = lead + i;
    g.v[0][a] = in[i + 2];
    g.v[1][a] = os[i + 2];
    g.v[2][a] = p.kernel[i];
    g.v[3][a] = p.stride[i];
    g.v[4][a] = p.padding[i];
    g.v[5][a] = p.padding_end[i];
    g.v[6][a] = p.dilation[i];
  }
  return g;
}

PoolGeo adaptive_geo(const Shape& in, const std::vector<int64_t>& out, const char* op) {
  shape_rules::adaptive_pool(in, out, op);
  PoolGeo g;
  const size_t n = in.rank() - 2, lead = 3 - n;
  for (size_t i = 0; i < n; ++i) {
    g.v[0][lead + i] = in[i + 2];
    g.v[1][lead + i] = out[i];
  }
  return g;
}

PoolGeo adaptive_backward_geo(const Shape& in, const Shape& grad_out, const char* op) {
  check_pool_rank(grad_out, op);
  return adaptive_geo(in, std::vector<int64_t>(grad_out.begin() + 2, grad_out.end()), op);
}

Shape pool_out_shape(const Shape& in, const PoolGeo& g) {
  std::vector<int64_t> d{in[0], in[1]};
  for (size_t a = 3 - (in.rank() - 2); a < 3; ++a) d.push_back(g.v[1][a]);
  return Shape(std::move(d));
}

void check_pool_rank(const Shape& s, const char* op) {
  if (s.rank() < 3 || s.rank() > 5)
    throw ShapeError(
        op, "expected an input [N, C, spatial...] with 1 to 3 spatial dims matching the options, got " + s.to_string());
}

Shape check_max_backward_operands(const Shape& in, const PoolGeo& g, const Shape& grad_out, const Shape& indices,
                                  DType index_dtype, const char* op) {
  check_pool_rank(in, op);
  Shape os = pool_out_shape(in, g);
  if (grad_out != os || indices != os)
    throw ShapeError(op, "grad_out " + grad_out.to_string() + " and indices " + indices.to_string() +
                             " must match the output " + os.to_string());
  if (index_dtype != DType::I64 && index_dtype != DType::I32)
    throw DTypeError(op, "indices must be i64 or i32, got " + std::string(dtype_name(index_dtype)));
  return os;
}

const char* pool_pass_define(PoolPass pass) {
  static const char* const kPasses[] = {"MAX_FWD", "AVG_FWD", "AVG_BWD", "MAX_BWD_CHECK", "MAX_BWD", "MAX_BWD_SERIAL"};
  return kPasses[static_cast<int>(pass)];
}

uint32_t pool_flags(bool adaptive, bool count_pad, bool with_indices) {
  return (adaptive ? 1u : 0u) | (count_pad ? 2u : 0u) | (with_indices ? 4u : 0u);
}

}  // namespace burn::gpu
