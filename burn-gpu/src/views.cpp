// View arithmetic and the elementwise plan shared by the GPU plugins (burn/gpu/views.hpp).
#include "burn/gpu/views.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <utility>

#include "burn/tensor/error.hpp"
#include "burn/tensor/shape_rules.hpp"

namespace burn::gpu {

View slice_view(const View& x, const Slices& ranges, const char* op) {
  View v{shape_rules::slice(x.shape, ranges, op), x.strides, x.offset};
  for (size_t d = 0; d < ranges.size(); ++d) {
    const int64_t len = v.shape[d];
    if (len > 0) v.offset += ranges[d].start * v.strides[d];
    if (len > 1) v.strides[d] *= ranges[d].step;  // with one element the stride never steps: no overflow
  }
  return v;
}

View permute_view(const View& x, const Axes& axes) {
  View v{shape_rules::permute(x.shape, axes), {}, x.offset};
  for (int64_t a : shape_rules::normalize_axes(axes, axes.size(), "permute"))
    v.strides.push_back(x.strides[static_cast<size_t>(a)]);
  return v;
}

View expand_view(const View& x, const Shape& shape) {
  View v{shape_rules::expand(x.shape, shape), {}, x.offset};
  const size_t lead = v.shape.rank() - x.shape.rank();
  v.strides.assign(v.shape.rank(), 0);  // stride 0: every index of a stretched dim reads one element
  for (size_t i = lead; i < v.shape.rank(); ++i)
    if (v.shape[i] == x.shape[i - lead]) v.strides[i] = x.strides[i - lead];
  return v;
}

View flip_view(const View& x, const Axes& axes) {
  View v = x;
  for (int64_t axis : shape_rules::normalize_axes(axes, x.shape.rank(), "flip")) {
    const auto a = static_cast<size_t>(axis);
    const int64_t n = x.shape[a];
    if (n > 1) v.offset += (n - 1) * v.strides[a];  // start at the last element and walk backwards
    v.strides[a] = -v.strides[a];
  }
  return v;
}

void check_dim(const char* op, const Shape& shape, size_t dim) {
  if (dim >= shape.rank())
    throw IndexError(op, "dim " + std::to_string(dim) + " is out of range for a tensor of rank " +
                             std::to_string(shape.rank()) + " " + shape.to_string());
}

Shape with_dim(const Shape& shape, size_t dim, int64_t size) {
  Shape r = shape;
  r[dim] = size;
  return r;
}

Lines lines_along(const View& x, size_t dim, const Shape* out) {
  constexpr int64_t kIndex32 = int64_t{1} << 31;
  const Shape& s = x.shape;
  const std::vector<int64_t> ostrides = out ? contiguous_strides(*out) : std::vector<int64_t>{};
  std::vector<int64_t> dims, xs, ys;
  int64_t span = 0;
  for (size_t d = 0; d < s.rank(); ++d) {
    if (s[d] > 0) span += (s[d] - 1) * std::abs(x.strides[d]);
    if (d == dim) continue;
    dims.push_back(s[d]);
    xs.push_back(x.strides[d]);
    if (out) ys.push_back(ostrides[d]);
  }
  Lines l;
  const Shape lines(dims);
  l.starts = out ? collapse(lines, {xs, ys}) : collapse(lines, {xs});
  l.count = lines.num_elements();
  l.n = s[dim];
  l.stride = x.strides[dim];
  l.out_stride = out ? ostrides[dim] : 0;
  const int64_t n = std::max(s.num_elements(), out ? out->num_elements() : 0);
  if (span >= kIndex32 || n >= kIndex32) l.starts.index64 = true;
  return l;
}

namespace {
constexpr int64_t kIndex32 = int64_t{1} << 31;
}  // namespace

int64_t view_extent(const View& x) {
  int64_t span = 0;
  for (size_t d = 0; d < x.shape.rank(); ++d)
    if (x.shape[d] > 1) span += (x.shape[d] - 1) * std::abs(x.strides[d]);
  return span + 1;
}

SortPlan plan_sort(const View& x, size_t dim, std::optional<int64_t> k, const char* op, const std::string& device) {
  check_dim(op, x.shape, dim);
  const int64_t n = x.shape[dim];
  const int64_t keep = k.value_or(n);
  if (keep < 0 || keep > n)
    throw IndexError(op, "k " + std::to_string(keep) + " is out of range for dim " + std::to_string(dim) + " of size " +
                             std::to_string(n));
  SortPlan p;
  p.out = with_dim(x.shape, dim, keep);
  p.keep = keep;
  if (p.out.num_elements() == 0) return p;
  if (n >= kIndex32) throw Unsupported(op, "lines of 2^31 elements or more (" + std::to_string(n) + ") on " + device);
  p.lines = lines_along(x, dim, &p.out);
  return p;
}

std::vector<SortMerge> sort_merges(int64_t n, int64_t first_run) {
  std::vector<SortMerge> passes;
  for (int64_t run = first_run; run < n; run *= 2) {
    const int64_t out = std::min(kSortMergeOut, 2 * run);
    passes.push_back({run, (n + out - 1) / out, 2 * run >= n});
  }
  return passes;
}

uint32_t sort_flags(bool descending, bool to_output, bool values) {
  return (descending ? 1u : 0u) | (to_output ? 2u : 0u) | (values ? 4u : 0u);
}

ArgwherePlan plan_argwhere(const View& x, int64_t tile) {
  ArgwherePlan p;
  p.n = x.shape.num_elements();
  p.tiles = (p.n + tile - 1) / tile;
  p.layout = collapse(x.shape, {x.strides});
  p.layout.shape = x.shape.dims();
  p.layout.strides = {x.strides};
  p.layout.index64 =
      p.layout.index64 || view_extent(x) >= kIndex32 || p.n >= kIndex32 || (p.tiles + 1) * tile >= kIndex32;
  return p;
}

AroundDim around_dim(const Shape& shape, size_t dim, const char* op) {
  check_dim(op, shape, dim);
  AroundDim a;
  for (size_t i = 0; i < shape.rank(); ++i) {
    if (i < dim) a.rows *= shape[i];
    if (i > dim) a.inner *= shape[i];
  }
  a.n = shape[dim];
  a.by_rows = a.inner == 1 && a.n >= AroundDim::kRowsMin;
  return a;
}

View memory_order(const View& x) {
  int64_t offset = x.offset;
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size)
  for (size_t d = 0; d < x.shape.rank(); ++d) {
    if (x.shape[d] <= 1) continue;  // an empty dim leaves no element: the caller sees n == 0
    int64_t st = x.strides[d];
    if (st < 0) {
      offset += (x.shape[d] - 1) * st;
      st = -st;
    }
    dims.emplace_back(st, x.shape[d]);
  }
  std::stable_sort(dims.begin(), dims.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<int64_t> sizes, strides;
  for (const auto& [st, size] : dims) sizes.push_back(size), strides.push_back(st);
  return View{Shape(sizes), strides, offset};
}

DType bits_dtype(DType d) {
  switch (d) {
    case DType::F32:
    case DType::I32: return DType::I32;
    case DType::F64:
    case DType::I64: return DType::I64;
    case DType::I8:
    case DType::U8:
    case DType::Bool: return DType::U8;
    default: return d;
  }
}

ElementwisePlan plan_elementwise(OpId op, std::initializer_list<Prim> inputs, const std::string& device,
                                 const std::function<bool(const Prim&, const Shape&, DType)>& reusable, Bf16 bf16) {
  const char* name = op_info(op).name;
  std::vector<Shape> shapes;
  for (const Prim& p : inputs) {
    if (!p) throw ValueError(name, "a tensor argument is missing");
    shapes.push_back(p->shape());
  }
  const DType d = inputs.begin()->get()->dtype();
  const std::optional<Expr> e = elementwise_expr(op, d, bf16);
  if (!e) throw Unsupported(name, "dtype " + std::string(dtype_name(d)) + " on " + device);
  int k = 0;
  for (const Prim& p : inputs) {
    const DType want = k++ == e->bool_operand ? DType::Bool : d;
    if (p->dtype() != want)
      throw DTypeError(name, "operand " + std::to_string(k - 1) + " is " + std::string(dtype_name(p->dtype())) +
                                 ", expected " + std::string(dtype_name(want)));
  }
  ElementwisePlan plan{*e, d, e->scalar_i64 ? DType::I64 : d, {}, 0, -1};
  plan.shape = shapes.size() == 1   ? shapes[0]
               : shapes.size() == 2 ? shape_rules::broadcast(shapes[0], shapes[1], name)
                                    : shape_rules::broadcast(shapes[0], shapes[1], shapes[2], name);
  plan.n = plan.shape.num_elements();
  // The result goes into an input's buffer when the caller gave up its only handle (asked before the
  // plugin takes more handles).
  k = 0;
  for (const Prim& p : inputs) {
    if (plan.reuse < 0 && reusable(p, plan.shape, e->result)) plan.reuse = k;
    ++k;
  }
  return plan;
}

Layout broadcast_layout(const Shape& shape, const std::vector<View>& operands) {
  std::vector<std::vector<int64_t>> strides;
  for (const View& v : operands) strides.push_back(broadcast_strides(v.shape, v.strides, shape));
  return collapse(shape, strides);
}

bool gemm_index64(const View& lhs, const View& rhs, int64_t c_elements) {
  return c_elements >= kIndex32 || lhs.offset + view_extent(lhs) > kIndex32 || rhs.offset + view_extent(rhs) > kIndex32;
}

}  // namespace burn::gpu
