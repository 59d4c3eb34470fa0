// burn::linalg: vector norms, diagonals, products, cosine similarity and the LU / QR factorisations,
// composed from tensor ops (no backend op of their own), so autodiff differentiates them by
// decomposition. The factorisations loop over columns with slices on a [batch, m, n] view: O(n) steps
// of O(1) ops each, meant for the small matrices of models (no blocked algorithm).
#include <cmath>
#include <string>

#include "../defaults/helpers.hpp"
#include "burn/tensor/linalg.hpp"
#include "checks.hpp"

namespace burn::api {
using namespace detail;

namespace {

using F3 = Tensor<3>;
using I3 = Tensor<3, Int>;

Slice rng(int64_t a, int64_t b) { return Slice::range(a, b); }
const Slice kAll = Slice::all();

// The last two dims of x, which must exist; `what` names them in the error.
std::pair<int64_t, int64_t> matrix_dims(const H& x, const char* op) {
  if (rank(x) < 2)
    throw ShapeError(op,
                     "expected a matrix or a batch of matrices [..., rows, cols], got shape " + shape(x).to_string());
  return {shape(x)[rank(x) - 2], shape(x)[rank(x) - 1]};
}

std::vector<int64_t> leading_dims(const H& x, size_t keep) {
  const auto& d = shape(x).dims();
  return std::vector<int64_t>(d.begin(), d.end() - static_cast<std::ptrdiff_t>(keep));
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t e : v) p *= e;
  return p;
}

std::vector<int64_t> concat(std::vector<int64_t> a, std::initializer_list<int64_t> b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// [..., m, n] as [batch, m, n].
F3 as_batch(const H& x) {
  auto [m, n] = std::pair{shape(x)[rank(x) - 2], shape(x)[rank(x) - 1]};
  return F3(reshape(x, {product(leading_dims(x, 2)), m, n}));
}

I3 int_arange(int64_t n, const Device& d, const Shape& shape) {
  return I3(reshape(api::arange(d, 0, n, 1, DType::I64), shape.dims()));
}

// Partial-pivoting LU of a [b, m, n] batch, as LAPACK getf2: at step k the row with the largest
// |a[i, k]| (i >= k, first on ties) is swapped in, the column below the pivot is divided by it, and
// the trailing block gets the rank-1 update. A zero pivot (its whole column is zero below) divides
// by 1 instead, as LAPACK skips it, so singular matrices give finite factors and a zero in U.
struct LuParts {
  F3 lu;
  I3 pivots;  // [b, 1, k]
  I3 perm;    // [b, m, 1]: row i of P^T A is row perm[i] of A
};

LuParts lu_batch(F3 a) {
  const int64_t b = a.dim(0), m = a.dim(1), n = a.dim(2), k_max = std::min(m, n);
  const Device& d = a.device();
  // An empty batch has nothing to factor: k_max steps of ops on empty tensors could still be 2^31.
  if (b == 0) {
    I3 piv(api::empty(d, Shape{0, 1, k_max}, DType::I64)), perm(api::empty(d, Shape{0, m, 1}, DType::I64));
    return {std::move(a), std::move(piv), std::move(perm)};  // d is a's: made before a moves
  }
  const I3 rows = int_arange(m, d, Shape{1, m, 1});
  I3 perm = I3(expand(rows.handle(), {b, m, 1}));
  std::vector<I3> pivots;
  for (int64_t k = 0; k < k_max; ++k) {
    I3 p = a.slice({kAll, rng(k, m), rng(k, k + 1)}).abs().argmax(1) + k;  // [b, 1, 1]
    pivots.push_back(p);
    // Row order of this step: k <-> p, every other row in place.
    I3 is_k = rows.equal_elem(k).to_int();
    I3 is_p = rows.equal(p).to_int();
    I3 order = rows + (p - rows) * is_k + (k - rows) * is_p;  // [b, m, 1]
    a = a.gather(1, order.expand({b, m, n}));
    perm = perm.gather(1, order);
    if (k + 1 >= m) continue;
    F3 pivot = a.slice({kAll, rng(k, k + 1), rng(k, k + 1)});
    F3 col = a.slice({kAll, rng(k + 1, m), rng(k, k + 1)}) / pivot.mask_fill(pivot.equal_elem(0), 1);
    a = a.slice_assign({kAll, rng(k + 1, m), rng(k, k + 1)}, col);
    if (k + 1 >= n) continue;
    F3 row = a.slice({kAll, rng(k, k + 1), rng(k + 1, n)});
    F3 trailing = a.slice({kAll, rng(k + 1, m), rng(k + 1, n)}) - col * row;
    a = a.slice_assign({kAll, rng(k + 1, m), rng(k + 1, n)}, trailing);
  }
  I3 piv = pivots.empty() ? I3(api::empty(d, Shape{b, 1, 0}, DType::I64)) : I3::cat(pivots, 2);
  return {std::move(a), std::move(piv), std::move(perm)};
}

const char* float_only(const H& x, const char* op) {
  be(x, op);
  require_float(x, op);
  return op;
}

}  // namespace

H vector_norm(H x, double ord, const std::vector<int64_t>& dims) {
  const char* op = float_only(x, "vector_norm");
  if (std::isnan(ord)) throw ValueError(op, "ord is NaN");
  std::vector<bool> seen(rank(x), false);
  std::vector<size_t> ds;
  for (int64_t dim : dims) {
    size_t dd = normalize_dim(dim, rank(x), op);
    if (seen[dd]) throw IndexError(op, "dim " + std::to_string(dim) + " appears more than once");
    seen[dd] = true;
    ds.push_back(dd);
  }
  if (dims.empty())
    for (size_t dd = 0; dd < rank(x); ++dd) ds.push_back(dd);
  const bool extreme = std::isinf(ord);
  for (size_t dd : ds)
    if (extreme && shape(x)[dd] == 0)
      throw ValueError(op, "ord " + burn::detail::num(ord) + " needs a non-empty dim, dim " + std::to_string(dd) +
                               " of " + shape(x).to_string() + " is empty");
  auto reduce = [&](H h, OpId r) {
    for (size_t dd : ds) h = reduce_dim(r, std::move(h), static_cast<int64_t>(dd));
    return h;
  };
  const DType t = x.prim->dtype();
  if (ord == 0) return reduce(cast(compare_elem(OpId::not_equal_elem, std::move(x), 0.0), t), OpId::sum_dim);
  if (ord == linalg::kInf) return reduce(unary(OpId::abs, std::move(x)), OpId::max_dim);
  if (ord == -linalg::kInf) return reduce(unary(OpId::abs, std::move(x)), OpId::min_dim);
  if (ord == 1) return reduce(unary(OpId::abs, std::move(x)), OpId::sum_dim);
  H s = ord == 2 ? reduce(unary(OpId::square, std::move(x)), OpId::sum_dim)
                 : reduce(powf_scalar(unary(OpId::abs, std::move(x)), ord), OpId::sum_dim);
  if (ord < 0) return powf_scalar(std::move(s), 1.0 / ord);
  // s^(1/p) has an infinite slope at 0: mask it so that a zero vector's gradient is 0, as torch's.
  H zero = compare_elem(OpId::equal_elem, s, 0.0);
  H root = ord == 2 ? unary(OpId::sqrt, mask_fill(std::move(s), zero, 1.0))
                    : powf_scalar(mask_fill(std::move(s), zero, 1.0), 1.0 / ord);
  return mask_fill(std::move(root), zero, 0.0);
}

H diag(H x, int64_t offset) {
  const char* op = "diag";
  be(x, op);
  require_numeric(x, op);
  const Device& d = x.device;
  if (rank(x) == 1) {
    // size = n + |offset| and the size x size output, overflow-checked (std::abs(INT64_MIN) is undefined)
    const int64_t n = shape(x)[0], size = checked_add(n, offset >= 0 ? offset : checked_mul(offset, -1, op), op);
    H flat = full(d, Shape{checked_mul(size, size, op)}, 0, x.prim->dtype());
    std::vector<int64_t> pos = host_vector<int64_t>(n, op);
    for (int64_t i = 0; i < n; ++i) pos[i] = offset >= 0 ? i * size + i + offset : (i - offset) * size + i;
    H idx = from_data(d, TensorData::from_vector(pos, Shape{n}), Kind::Int);
    return reshape(select_assign(std::move(flat), 0, idx, x), {size, size});
  }
  auto [m, n] = matrix_dims(x, op);
  const int64_t len = std::max<int64_t>(0, offset >= 0 ? std::min(m, n - offset) : std::min(m + offset, n));
  const int64_t start = len == 0 ? 0 : offset >= 0 ? offset : -offset * n;  // |offset| < m when len > 0
  // Positions i * n + i + start < m * n, which must fit (an empty batch allows any m and n).
  const int64_t plane = checked_mul(m, n, op);
  std::vector<int64_t> pos = host_vector<int64_t>(len, op);
  for (int64_t i = 0; i < len; ++i) pos[i] = start + i * n + i;
  H idx = from_data(d, TensorData::from_vector(pos, Shape{len}), Kind::Int);
  std::vector<int64_t> lead = leading_dims(x, 2);
  H flat = reshape(std::move(x), concat(lead, {plane}));
  return select(std::move(flat), -1, idx);
}

H trace(H x) {
  const char* op = "trace";
  be(x, op);
  require_numeric(x, op);
  matrix_dims(x, op);
  return unsqueeze_dims(reduce_dim(OpId::sum_dim, diag(std::move(x), 0), -1), {-1});
}

H outer(H x, const H& y) {
  const char* op = "outer";
  same_device(x, y, op);
  require_numeric(x, op);
  same_dtype(x, y, op);
  if (rank(x) != rank(y))
    throw ShapeError(op, "lhs " + shape(x).to_string() + " and rhs " + shape(y).to_string() + " differ in rank");
  H col = unsqueeze_dims(std::move(x), {-1}), row = unsqueeze_dims(y, {-2});
  shape_rules::broadcast(shape(col), shape(row), op);  // the batch dims
  return mul(std::move(col), row);
}

H cosine_similarity(H x1, const H& x2, int64_t dim, double eps) {
  const char* op = "cosine_similarity";
  binary_checks(x1, x2, op);
  require_float(x1, op);
  if (!(eps >= 0)) throw ValueError(op, "eps must be non-negative, got " + burn::detail::num(eps));
  const Shape s = shape_rules::broadcast(shape(x1), shape(x2), op);
  const int64_t d = static_cast<int64_t>(normalize_dim(dim, s.rank(), op));
  // Norms over the broadcast shape: a size-1 dim of x1 counts once per element of x2 (torch).
  H a = expand(std::move(x1), s.dims()), c = expand(x2, s.dims());
  H dot = reduce_dim(OpId::sum_dim, mul(a, c), d);
  H n1 = clamp_min(vector_norm(std::move(a), 2, {d}), eps);
  H n2 = clamp_min(vector_norm(std::move(c), 2, {d}), eps);
  return div(std::move(dot), mul(std::move(n1), n2));
}

H matvec(H matrix, const H& vector) {
  const char* op = "matvec";
  same_device(matrix, vector, op);
  require_numeric(matrix, op);
  same_dtype(matrix, vector, op);
  auto [m, n] = matrix_dims(matrix, op);
  (void)m;
  if (rank(vector) + 1 != rank(matrix))
    throw ShapeError(op, "the vector's rank must be the matrix's minus 1: matrix " + shape(matrix).to_string() +
                             ", vector " + shape(vector).to_string());
  if (shape(vector)[rank(vector) - 1] != n)
    throw ShapeError(op, "matrix " + shape(matrix).to_string() + " has " + std::to_string(n) + " columns, vector " +
                             shape(vector).to_string() + " has " + std::to_string(shape(vector)[rank(vector) - 1]) +
                             " entries");
  H r = matmul(std::move(matrix), unsqueeze_dims(vector, {-1}));
  return squeeze_dims(std::move(r), {-1});
}

H det(H x) {
  const char* op = float_only(x, "det");
  auto [m, n] = matrix_dims(x, op);
  if (m != n) throw ShapeError(op, "expected square matrices, got shape " + shape(x).to_string());
  std::vector<int64_t> lead = leading_dims(x, 2);
  // An empty batch: no determinant to compute, and no [n] step table to make for it.
  if (product(lead) == 0) return api::empty(x.device, Shape(lead), x.prim->dtype());
  LuParts f = lu_batch(as_batch(x));
  // det = (-1)^(row swaps) * prod(diag(U)); prod's gradient is exact with zeros.
  const Device& d = x.device;
  I3 steps = int_arange(n, d, Shape{1, 1, n});
  I3 swaps = f.pivots.not_equal(steps.expand({f.pivots.dim(0), 1, n})).to_int().sum_dim(2);  // [b, 1, 1]
  F3 sign = (1 - (swaps % 2) * 2).to_float(x.prim->dtype());
  F3 u = F3(unsqueeze_dims(diag(f.lu.handle(), 0), {1}));  // [b, 1, n]
  F3 r = sign * u.prod_dim(2);
  return reshape(r.handle(), lead.empty() ? std::vector<int64_t>{1} : lead);
}

std::pair<H, H> lu_factor(H x) {
  const char* op = float_only(x, "lu_factor");
  matrix_dims(x, op);
  std::vector<int64_t> lead = leading_dims(x, 2);
  LuParts f = lu_batch(as_batch(x));
  const int64_t k = f.pivots.dim(2);
  return {reshape(f.lu.handle(), shape(x).dims()), reshape(f.pivots.handle(), concat(lead, {k}))};
}

Hs lu(H x) {
  const char* op = float_only(x, "lu");
  auto [m, n] = matrix_dims(x, op);
  const int64_t k = std::min(m, n);
  std::vector<int64_t> lead = leading_dims(x, 2);
  const DType t = x.prim->dtype();
  // An empty batch: the factors' shapes, without the [m, k] identity and [m, m] permutation tables.
  auto none = [&](int64_t r, int64_t c) { return api::empty(x.device, Shape(concat(lead, {r, c})), t); };
  if (product(lead) == 0) return {none(m, m), none(m, k), none(k, n)};
  LuParts f = lu_batch(as_batch(x));
  const int64_t b = f.lu.dim(0);
  // L: the unit lower triangle of the first k columns; U: the upper triangle of the first k rows.
  F3 l =
      f.lu.slice({kAll, kAll, rng(0, k)}).tril(-1) + F3(expand(reshape(eye(x.device, m, k, t), {1, m, k}), {b, m, k}));
  F3 u = f.lu.slice({kAll, rng(0, k), kAll}).triu(0);
  // P^T[i, j] = (perm[i] == j), so P[j, i] = (perm[i] == j).
  I3 cols = int_arange(m, x.device, Shape{1, 1, m});
  F3 p = F3(cast(f.perm.equal(cols.expand({b, m, m})).handle(), t)).swap_dims(1, 2);
  return {reshape(p.handle(), concat(lead, {m, m})), reshape(l.handle(), concat(lead, {m, k})),
          reshape(u.handle(), concat(lead, {k, n}))};
}

std::pair<H, H> qr(H x, QrMode mode) {
  const char* op = float_only(x, "qr");
  auto [m, n] = matrix_dims(x, op);
  if (mode != QrMode::Reduced && mode != QrMode::Complete) throw ValueError(op, "unknown QrMode");
  const int64_t k_max = std::min(m, n), q_cols = mode == QrMode::Reduced ? k_max : m;
  std::vector<int64_t> lead = leading_dims(x, 2);
  const DType t = x.prim->dtype();
  const Device& d = x.device;
  F3 r = as_batch(x);
  const int64_t b = r.dim(0);
  if (b == 0)  // an empty batch: the factors' shapes, without the [m, q_cols] identity
    return {api::empty(d, Shape(concat(lead, {m, q_cols})), t),
            api::empty(d, Shape(concat(lead, {mode == QrMode::Reduced ? k_max : m, n})), t)};
  // Householder reflections H_k = I - tau_k v_k v_k^T as LAPACK dlarfg: beta = -sign(alpha) * |x|,
  // tau = (beta - alpha) / beta, v = [1, x[1:] / (alpha - beta)]; tau = 0 when x[1:] is zero.
  auto reflectors = host_vector<std::pair<F3, F3>>(k_max, op);  // (v [b, m-k, 1], tau [b, 1, 1])
  for (int64_t k = 0; k < k_max && k + 1 < m; ++k) {
    F3 alpha = r.slice({kAll, rng(k, k + 1), rng(k, k + 1)});
    F3 rest = r.slice({kAll, rng(k + 1, m), rng(k, k + 1)});
    F3 s = rest.square().sum_dim(1);
    auto none = s.equal_elem(0);  // nothing to reflect: H = I
    F3 norm = (alpha.square() + s).mask_fill(none, 1).sqrt();
    F3 sgn = alpha.ones_like().mask_fill(alpha.lower_elem(0), -1);
    F3 beta = (-sgn * norm).mask_where(none, alpha);
    F3 tau = ((beta - alpha) / beta.mask_fill(none, 1)).mask_fill(none, 0);
    F3 v = F3::cat({alpha.ones_like(), rest / (alpha - beta).mask_fill(none, 1)}, 1);
    if (k + 1 < n) {
      F3 block = r.slice({kAll, rng(k, m), rng(k + 1, n)});
      F3 w = v.swap_dims(1, 2).matmul(block);  // v^T block: [b, 1, n-k-1]
      r = r.slice_assign({kAll, rng(k, m), rng(k + 1, n)}, block - (v * tau) * w);
    }
    r = r.slice_assign({kAll, rng(k, m), rng(k, k + 1)}, F3::cat({beta, rest.zeros_like()}, 1));
    reflectors[k] = {std::move(v), std::move(tau)};
  }
  // Q = H_0 ... H_{k-1} applied to the first q_cols columns of I, last reflector first (orgqr):
  // H_k only touches rows k.., and before it is applied columns < k of those rows are still zero.
  F3 q = F3(expand(reshape(eye(d, m, q_cols, t), {1, m, q_cols}), {b, m, q_cols}));
  for (int64_t k = k_max; k-- > 0;) {
    if (!reflectors[k].first.handle().prim || k >= q_cols) continue;
    const auto& [v, tau] = reflectors[k];
    F3 block = q.slice({kAll, rng(k, m), rng(k, q_cols)});
    F3 w = v.swap_dims(1, 2).matmul(block);
    q = q.slice_assign({kAll, rng(k, m), rng(k, q_cols)}, block - (v * tau) * w);
  }
  const int64_t r_rows = mode == QrMode::Reduced ? k_max : m;
  if (r_rows < m) r = r.slice({kAll, rng(0, r_rows), kAll});
  return {reshape(q.handle(), concat(lead, {m, q_cols})), reshape(r.handle(), concat(lead, {r_rows, n}))};
}

}  // namespace burn::api
