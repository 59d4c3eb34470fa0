// burn::linalg: Burn's linear-algebra functions with PyTorch's semantics (torch.linalg), as free
// functions over typed tensors forwarding to checked non-template functions (burn::api). Every one is
// a composite of tensor ops: it runs on any backend and autodiff differentiates it by decomposition.
// Batched functions work on the last two dims ([..., rows, cols]) and broadcast the leading ones.
#pragma once

#include <limits>
#include <tuple>
#include <utility>
#include <vector>

#include "burn/tensor/tensor.hpp"

namespace burn {

// torch.linalg.qr's modes: Reduced gives Q [..., m, k], R [..., k, n] with k = min(m, n);
// Complete gives Q [..., m, m], R [..., m, n].
enum class QrMode : uint8_t { Reduced, Complete };

namespace api {

// ord: 0 (count of non-zeros), 1, 2, +-inf (max/min of |x|) or any p; dims empty = every dim.
// Reduced dims are kept with size 1 (Burn). Float only.
BURN_TENSOR_API H vector_norm(H x, double ord, const std::vector<int64_t>& dims);
// Rank 1: the square matrix with x on diagonal `offset` (torch.diag). Rank >= 2: the diagonal
// `offset` of the last two dims, rank - 1 (torch.diagonal(x, offset, -2, -1); torch.diag for 2-D).
BURN_TENSOR_API H diag(H x, int64_t offset);
// Sum of the main diagonal of the last two dims, which are kept with size 1: [..., 1, 1].
BURN_TENSOR_API H trace(H x);
// [..., i] x [..., j] -> [..., i, j]; batch dims broadcast.
BURN_TENSOR_API H outer(H x, const H& y);
// x1 . x2 / (max(|x1|, eps) * max(|x2|, eps)) along dim (kept with size 1); shapes broadcast.
BURN_TENSOR_API H cosine_similarity(H x1, const H& x2, int64_t dim, double eps);
// [..., m, n] x [..., n] -> [..., m]; batch dims broadcast.
BURN_TENSOR_API H matvec(H matrix, const H& vector);
// Determinant of [..., n, n]: shape [...] ([1] for a single matrix). 0 for a singular matrix.
BURN_TENSOR_API H det(H x);
// Partial-pivoting LU of [..., m, n] (LAPACK getrf): {LU packed as torch.linalg.lu_factor (unit L
// strictly below the diagonal, U on and above), pivots [..., min(m, n)] Int64}. Pivots are 0-based:
// step i swapped rows i and pivots[i] (torch's are 1-based, LAPACK's convention).
BURN_TENSOR_API std::pair<H, H> lu_factor(H x);
// {P [..., m, m], L [..., m, k], U [..., k, n]} with A = P L U, k = min(m, n) (torch.linalg.lu).
BURN_TENSOR_API Hs lu(H x);
// Householder QR as LAPACK geqrf/orgqr (torch.linalg.qr): {Q, R}, A = Q R, Q^T Q = I, R upper
// triangular with R[i, i] = -sign(pivot column's leading element) * its norm, as torch gives.
BURN_TENSOR_API std::pair<H, H> qr(H x, QrMode mode);

}  // namespace api

namespace linalg {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// Vector norm over `dims` (every dim when empty), reduced dims kept with size 1 (Burn's vector_norm).
// ord: 0, 1, 2, kInf, -kInf or any p (torch.linalg.vector_norm).
template <size_t D>
Tensor<D> vector_norm(const Tensor<D>& x, double ord = 2.0, const std::vector<int64_t>& dims = {}) {
  return Tensor<D>(api::vector_norm(x.handle(), ord, dims));
}
template <size_t D>
Tensor<D> vector_norm(const Tensor<D>& x, double ord, int64_t dim) {
  return Tensor<D>(api::vector_norm(x.handle(), ord, {dim}));
}

// The diagonal of a matrix (or of each matrix of a batch): rank D - 1.
template <size_t D, typename K>
requires(D >= 2) Tensor<D - 1, K> diag(const Tensor<D, K>& x, int64_t offset = 0) {
  return Tensor<D - 1, K>(api::diag(x.handle(), offset));
}
// The square matrix with x on diagonal `offset` (torch.diag of a vector).
template <typename K>
Tensor<2, K> diag(const Tensor<1, K>& x, int64_t offset = 0) {
  return Tensor<2, K>(api::diag(x.handle(), offset));
}

template <size_t D, typename K>
Tensor<D, K> trace(const Tensor<D, K>& x) {
  return Tensor<D, K>(api::trace(x.handle()));
}

template <size_t D, typename K>
Tensor<D + 1, K> outer(const Tensor<D, K>& x, const Tensor<D, K>& y) {
  return Tensor<D + 1, K>(api::outer(x.handle(), y.handle()));
}

template <size_t D>
Tensor<D> cosine_similarity(const Tensor<D>& x1, const Tensor<D>& x2, int64_t dim, double eps = 1e-8) {
  return Tensor<D>(api::cosine_similarity(x1.handle(), x2.handle(), dim, eps));
}

template <size_t D, typename K>
requires(D >= 2) Tensor<D - 1, K> matvec(const Tensor<D, K>& matrix, const Tensor<D - 1, K>& vector) {
  return Tensor<D - 1, K>(api::matvec(matrix.handle(), vector.handle()));
}

// [..., n, n] -> [...]; a single matrix gives shape [1].
template <size_t D>
requires(D >= 2) Tensor<(D > 2 ? D - 2 : 1)> det(const Tensor<D>& x) {
  return Tensor<(D > 2 ? D - 2 : 1)>(api::det(x.handle()));
}

// {LU packed, 0-based pivots}: see api::lu_factor.
template <size_t D>
requires(D >= 2) std::pair<Tensor<D>, Tensor<D - 1, Int>> lu_factor(const Tensor<D>& x) {
  auto [lu, piv] = api::lu_factor(x.handle());
  return {Tensor<D>(std::move(lu)), Tensor<D - 1, Int>(std::move(piv))};
}

// {P, L, U} with A = P L U.
template <size_t D>
requires(D >= 2) std::tuple<Tensor<D>, Tensor<D>, Tensor<D>> lu(const Tensor<D>& x) {
  api::Hs r = api::lu(x.handle());
  return {Tensor<D>(std::move(r.at(0))), Tensor<D>(std::move(r.at(1))), Tensor<D>(std::move(r.at(2)))};
}

// {Q, R} with A = Q R (torch.linalg.qr, its sign convention).
template <size_t D>
requires(D >= 2) std::pair<Tensor<D>, Tensor<D>> qr(const Tensor<D>& x, QrMode mode = QrMode::Reduced) {
  auto [q, r] = api::qr(x.handle(), mode);
  return {Tensor<D>(std::move(q)), Tensor<D>(std::move(r))};
}

}  // namespace linalg
}  // namespace burn
