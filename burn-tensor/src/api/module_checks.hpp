// Private checks shared by the module-op api files (conv, pool, resample, norm): per-spatial-dim
// options and backward gradients.
#pragma once

#include <string>
#include <vector>

#include "checks.hpp"

namespace burn::api::detail {

inline std::string dims_text(const std::vector<int64_t>& v) { return Shape(v).to_string(); }

// A per-spatial-dim option: empty -> `fill` everywhere, one value -> broadcast, else one per dim.
inline std::vector<int64_t> per_dim(const std::vector<int64_t>& v, size_t n, int64_t fill, const char* op,
                                    const char* what) {
  if (v.empty()) return std::vector<int64_t>(n, fill);
  if (v.size() == 1) return std::vector<int64_t>(n, v[0]);
  if (v.size() != n)
    throw ShapeError(op, std::string(what) + " " + dims_text(v) + " has " + std::to_string(v.size()) + " values for " +
                             std::to_string(n) + " spatial dims; give 1 or " + std::to_string(n));
  return v;
}

inline void require_positive(const std::vector<int64_t>& v, const char* op, const char* what) {
  for (int64_t e : v)
    if (e <= 0) throw ValueError(op, std::string(what) + " must be positive, got " + dims_text(v));
}

inline void require_non_negative(const std::vector<int64_t>& v, const char* op, const char* what) {
  for (int64_t e : v)
    if (e < 0) throw ValueError(op, std::string(what) + " must be non-negative, got " + dims_text(v));
}

// grad_out of a backward op: the input's device and dtype, and the forward output's shape `want`.
inline void check_grad_out(const H& x, const H& g, const Shape& want, const char* op) {
  same_device(x, g, op);
  if (g.prim->dtype() != x.prim->dtype())
    throw DTypeError(op, "grad_out is " + dt(g.prim->dtype()) + " but the input is " + dt(x.prim->dtype()));
  if (shape(g) != want)
    throw ShapeError(
        op, "grad_out has shape " + shape(g).to_string() + ", expected the output's shape " + want.to_string());
}

// The N and C dims of an NC<spatial> input followed by `spatial`.
inline Shape nc_with(const H& x, const std::vector<int64_t>& spatial) {
  std::vector<int64_t> dims{shape(x)[0], shape(x)[1]};
  dims.insert(dims.end(), spatial.begin(), spatial.end());
  return Shape(dims);
}

// Spatial rank of an NC<spatial> input with 1 to 3 spatial dims.
inline size_t spatial_rank(const H& x, const char* op) {
  const size_t r = rank(x);
  if (r < 3 || r > 5)
    throw ShapeError(op, "expected an input of rank 3, 4 or 5 (N, C, spatial...), got shape " + shape(x).to_string());
  return r - 2;
}

inline void require_nonempty_planes(const H& x, const char* op) {
  for (int64_t d : shape(x))
    if (d <= 0) throw ShapeError(op, "input shape " + shape(x).to_string() + " has an empty dim");
}

// The output of a module op must be countable and allocatable before a backend (or a DEFAULT body that
// builds host-side tap tables for it) starts: OutOfMemory / ShapeError naming the op otherwise.
inline void check_output(const Shape& out, const H& like, const char* op) {
  checked_bytes(out, dtype_size(like.prim->dtype()), op);
}

inline std::vector<int64_t> checked_output_size(const H& x, const std::vector<int64_t>& size, const char* op) {
  const size_t n = spatial_rank(x, op);
  if (size.size() != n)
    throw ShapeError(op, "output size " + dims_text(size) + " needs " + std::to_string(n) + " values for input " +
                             shape(x).to_string());
  for (int64_t s : size)
    if (s <= 0) throw ValueError(op, "output size must be positive, got " + dims_text(size));
  check_output(nc_with(x, size), x, op);
  return size;
}

// The extent d * (k - 1) + 1 of a dilated kernel, overflow-checked.
inline int64_t dilated_extent(int64_t dilation, int64_t kernel, const char* op) {
  return checked_add(checked_mul(dilation, kernel - 1, op), 1, op);
}

}  // namespace burn::api::detail
