// CPU indexing ops: gather, scatter_add, select, select_add, mask_where, mask_fill, argwhere.
// Copies move raw element bits, so the gather/select/mask family works for every dtype (f16 included).
// Also load_indices (ops/index_util.hpp), which the pool and embedding kernels read their indices with.
#include <array>
#include <cstring>
#include <string>

#include "burn/tensor/shape_rules.hpp"
#include "convert.hpp"
#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "elementwise.hpp"
#include "ops/index_util.hpp"
#include "ops/math_util.hpp"

namespace burn::cpu {

IndexSpan load_indices(const Prim& indices, const char* op) {
  CpuPtr t = as_cpu(indices, op);
  if (t->dtype() != DType::I64 && t->dtype() != DType::I32)
    throw DTypeError(op, "indices must be i64 or i32, got " + std::string(dtype_name(t->dtype())));
  if (t->dtype() == DType::I64) {
    t = contiguous(t);
  } else {
    CpuPtr wide = alloc(t->shape(), DType::I64);
    const LoopPlan<1> plan(t->shape(), {broadcast_strides(*t, t->shape())});
    const int32_t* src = t->data<int32_t>();
    int64_t* dst = wide->data<int64_t>();
    for_each_row(plan, kElementwiseGrain, [&](int64_t ob, int64_t len, const int64_t* offs, const int64_t* in) {
      for (int64_t j = 0; j < len; ++j) dst[ob + j] = src[offs[0] + j * in[0]];
    });
    t = std::move(wide);
  }
  const int64_t* data = t->data<int64_t>();
  const auto n = static_cast<size_t>(t->shape().num_elements());
  return {std::move(t), std::span<const int64_t>(data, n)};
}

namespace {

[[noreturn]] void index_out_of_range(const char* op, int64_t value, size_t dim, int64_t size) {
  throw IndexError(op, "index " + std::to_string(value) + " is out of range for dim " + std::to_string(dim) +
                           " of size " + std::to_string(size));
}

void check_bool_mask(DType d, const char* op) {
  if (d != DType::Bool) throw DTypeError(op, "mask must be bool, got " + std::string(dtype_name(d)));
}

// Runs body.template operator()<E>() with E an unsigned type of the dtype's size (bitwise copies).
template <typename F>
decltype(auto) by_size(DType d, F&& f) {
  switch (dtype_size(d)) {
    case 1: return f.template operator()<uint8_t>();
    case 2: return f.template operator()<uint16_t>();
    case 4: return f.template operator()<uint32_t>();
    default: return f.template operator()<uint64_t>();
  }
}

// Steps through a shape in row-major order from a flat start index, tracking N element offsets.
template <size_t N>
struct Walker {
  const std::vector<int64_t>& dims;
  const std::array<std::vector<int64_t>, N>& strides;
  std::vector<int64_t> idx;
  std::array<int64_t, N> off{};

  Walker(const std::vector<int64_t>& d, const std::array<std::vector<int64_t>, N>& s, int64_t start)
      : dims(d), strides(s), idx(d.size(), 0) {
    for (size_t k = dims.size(); k-- > 0;) {
      idx[k] = start % dims[k];
      start /= dims[k];
      for (size_t n = 0; n < N; ++n) off[n] += idx[k] * strides[n][k];
    }
  }
  void next() {
    for (size_t k = dims.size(); k-- > 0;) {
      ++idx[k];
      for (size_t n = 0; n < N; ++n) off[n] += strides[n][k];
      if (idx[k] < dims[k]) return;
      for (size_t n = 0; n < N; ++n) off[n] -= idx[k] * strides[n][k];
      idx[k] = 0;
    }
  }
};

}  // namespace

Prim CpuBackend::gather(Prim x, size_t dim, Prim indices) {
  const CpuPtr t = as_cpu(x, "gather");
  const IndexSpan idx = load_indices(indices, "gather");
  const Shape& xs = t->shape();
  const Shape& is = idx.tensor->shape();
  CpuPtr out = alloc(shape_rules::gather(xs, dim, is), t->dtype());
  if (is.num_elements() == 0) return out;
  std::vector<int64_t> xst = t->strides();
  const int64_t dim_stride = xst[dim], dim_size = xs[dim];
  xst[dim] = 0;  // the index supplies the position along dim
  const LoopPlan<2> plan(is, {broadcast_strides(*idx.tensor, is), xst});
  by_size(t->dtype(), [&]<typename E>() {
    const E* src = static_cast<const E*>(t->raw());
    E* dst = static_cast<E*>(out->raw());
    const int64_t* ip = idx.span.data();
    for_each_row(plan, kElementwiseGrain, [&](int64_t ob, int64_t len, const int64_t* offs, const int64_t* in) {
      for (int64_t j = 0; j < len; ++j) {
        const int64_t k = ip[offs[0] + j * in[0]];
        if (k < 0 || k >= dim_size) index_out_of_range("gather", k, dim, dim_size);
        dst[ob + j] = src[offs[1] + j * in[1] + k * dim_stride];
      }
    });
  });
  return out;
}

Prim CpuBackend::scatter_add(Prim x, size_t dim, Prim indices, Prim values) {
  const CpuTensor* t = as_cpu(x, "scatter_add").get();
  const CpuPtr v = as_cpu(values, "scatter_add");
  const IndexSpan idx = load_indices(indices, "scatter_add");
  require_dtypes<Dtypes::Addable>("scatter_add", t->dtype());
  require_same_dtype(t->dtype(), v->dtype(), "scatter_add");
  const Shape xs = t->shape();
  const Shape& is = idx.tensor->shape();
  shape_rules::scatter_add(xs, dim, is, v->shape());
  CpuPtr out;
  if (reusable(x, xs, t->dtype())) {
    out = std::static_pointer_cast<CpuTensor>(x);
  } else {
    out = alloc(xs, t->dtype());
    copy_strided(*t, *out);
  }
  if (is.num_elements() == 0) return out;
  // Only positions that agree on every coordinate but `dim` can hit the same output element, so the
  // other coordinates are split across threads and each thread walks `dim` serially.
  std::vector<int64_t> odims;
  std::array<std::vector<int64_t>, 3> ost;  // indices, values, out
  const std::vector<int64_t> ist = idx.tensor->strides();
  for (size_t d = 0; d < xs.rank(); ++d) {
    if (d == dim) continue;
    odims.push_back(is[d]);
    ost[0].push_back(ist[d]);
    ost[1].push_back(v->strides()[d]);
    ost[2].push_back(out->strides()[d]);
  }
  const int64_t len = is[dim], istep = ist[dim], vstep = v->strides()[dim], ostep = out->strides()[dim];
  const int64_t dim_size = xs[dim];
  const int64_t groups = is.num_elements() / len;
  dispatch<Dtypes::Computing>(t->dtype(), "scatter_add", [&]<typename T>() {
    const int64_t* ip = idx.span.data();
    const T* vp = v->data<T>();
    T* op = out->data<T>();
    parallel_for(groups, std::max<int64_t>(1, 4096 / len), [&](int64_t b, int64_t e) {
      Walker<3> w(odims, ost, b);
      for (int64_t g = b; g < e; ++g, w.next()) {
        for (int64_t j = 0; j < len; ++j) {
          const int64_t k = ip[w.off[0] + j * istep];
          if (k < 0 || k >= dim_size) index_out_of_range("scatter_add", k, dim, dim_size);
          op[w.off[2] + k * ostep] = wrap_add(op[w.off[2] + k * ostep], vp[w.off[1] + j * vstep]);
        }
      }
    });
  });
  return out;
}

Prim CpuBackend::select(Prim x, size_t dim, Prim indices) {
  const CpuPtr t = contiguous(as_cpu(x, "select"));
  const IndexSpan idx = load_indices(indices, "select");
  const Shape& xs = t->shape();
  const Shape out_shape = shape_rules::select(xs, dim, idx.tensor->shape());
  const int64_t k = idx.tensor->shape()[0], dim_size = xs[dim];
  for (int64_t i = 0; i < k; ++i)
    if (idx.span[i] < 0 || idx.span[i] >= dim_size) index_out_of_range("select", idx.span[i], dim, dim_size);
  CpuPtr out = alloc(out_shape, t->dtype());
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < dim; ++d) outer *= xs[d];
  for (size_t d = dim + 1; d < xs.rank(); ++d) inner *= xs[d];
  if (outer * k * inner == 0) return out;
  const size_t row = static_cast<size_t>(inner) * dtype_size(t->dtype());
  const auto* src = static_cast<const uint8_t*>(t->raw());
  auto* dst = static_cast<uint8_t*>(out->raw());
  const int64_t* ip = idx.span.data();
  // One memcpy per (outer, selected index) row of `inner` elements.
  parallel_for(outer * k, std::max<int64_t>(1, kElementwiseGrain / inner), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t o = r / k, i = r % k;
      std::memcpy(dst + r * row, src + (o * dim_size + ip[i]) * row, row);
    }
  });
  return out;
}

Prim CpuBackend::select_add(Prim x, size_t dim, Prim indices, Prim values) {
  const CpuTensor* t = as_cpu(x, "select_add").get();
  const CpuPtr v = contiguous(as_cpu(values, "select_add"));
  const IndexSpan idx = load_indices(indices, "select_add");
  require_dtypes<Dtypes::Addable>("select_add", t->dtype());
  require_same_dtype(t->dtype(), v->dtype(), "select_add");
  const Shape xs = t->shape();
  shape_rules::select_add(xs, dim, idx.tensor->shape(), v->shape());
  const int64_t k = idx.tensor->shape()[0], dim_size = xs[dim];
  for (int64_t i = 0; i < k; ++i)
    if (idx.span[i] < 0 || idx.span[i] >= dim_size) index_out_of_range("select_add", idx.span[i], dim, dim_size);
  CpuPtr out;
  if (reusable(x, xs, t->dtype())) {
    out = std::static_pointer_cast<CpuTensor>(x);
  } else {
    out = alloc(xs, t->dtype());
    copy_strided(*t, *out);
  }
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < dim; ++d) outer *= xs[d];
  for (size_t d = dim + 1; d < xs.rank(); ++d) inner *= xs[d];
  if (outer * k * inner == 0) return out;
  // Tasks own disjoint (outer, inner-chunk) blocks; repeated indices then never race.
  const int64_t chunk = std::min<int64_t>(inner, 4096);
  const int64_t chunks = (inner + chunk - 1) / chunk;
  dispatch<Dtypes::Computing>(t->dtype(), "select_add", [&]<typename T>() {
    const T* vp = v->data<T>();
    T* op = out->data<T>();
    const int64_t* ip = idx.span.data();
    parallel_for(outer * chunks, std::max<int64_t>(1, kElementwiseGrain / (chunk * std::max<int64_t>(k, 1))),
                 [&](int64_t b, int64_t e) {
                   for (int64_t task = b; task < e; ++task) {
                     const int64_t o = task / chunks, j0 = (task % chunks) * chunk;
                     const int64_t j1 = std::min(inner, j0 + chunk);
                     for (int64_t i = 0; i < k; ++i) {
                       T* orow = op + (o * dim_size + ip[i]) * inner;
                       const T* vrow = vp + (o * k + i) * inner;
                       for (int64_t j = j0; j < j1; ++j) orow[j] = wrap_add(orow[j], vrow[j]);
                     }
                   }
                 });
  });
  return out;
}

Prim CpuBackend::mask_where(Prim x, Prim mask, Prim value) {
  const CpuTensor* t = as_cpu(x, "mask_where").get();
  const CpuPtr m = as_cpu(mask, "mask_where");
  const CpuPtr v = as_cpu(value, "mask_where");
  check_bool_mask(m->dtype(), "mask_where");
  if (t->dtype() != v->dtype())
    throw DTypeError("mask_where", "tensor " + std::string(dtype_name(t->dtype())) + " and value " +
                                       std::string(dtype_name(v->dtype())) + " differ");
  const Shape shape = shape_rules::broadcast(t->shape(), m->shape(), v->shape(), "mask_where");
  CpuPtr out = output_for(x, shape, t->dtype());
  if (!out) out = alloc(shape, t->dtype());
  if (shape.num_elements() == 0) return out;
  const LoopPlan<3> plan(shape,
                         {broadcast_strides(*t, shape), broadcast_strides(*m, shape), broadcast_strides(*v, shape)});
  by_size(t->dtype(), [&]<typename E>() {
    const E* xp = static_cast<const E*>(t->raw());
    const E* vp = static_cast<const E*>(v->raw());
    const uint8_t* mp = m->data<uint8_t>();
    E* op = static_cast<E*>(out->raw());
    for_each_row(plan, kElementwiseGrain, [&](int64_t ob, int64_t len, const int64_t* offs, const int64_t* in) {
      const E* xr = xp + offs[0];
      const uint8_t* mr = mp + offs[1];
      const E* vr = vp + offs[2];
      E* orow = op + ob;
      if (in[0] == 1 && in[1] == 1 && in[2] == 1) {
        // Both sides loaded before the select: a conditional load keeps GCC from vectorising.
        for (int64_t j = 0; j < len; ++j) {
          const E v = vr[j], x = xr[j];
          orow[j] = mr[j] ? v : x;
        }
      } else {
        for (int64_t j = 0; j < len; ++j) orow[j] = mr[j * in[1]] ? vr[j * in[2]] : xr[j * in[0]];
      }
    });
  });
  return out;
}

Prim CpuBackend::mask_fill(Prim x, Prim mask, Scalar value) {
  const CpuTensor* t = as_cpu(x, "mask_fill").get();
  const CpuPtr m = as_cpu(mask, "mask_fill");
  check_bool_mask(m->dtype(), "mask_fill");
  const DType dtype = t->dtype();
  const Shape shape = shape_rules::broadcast(t->shape(), m->shape(), "mask_fill");
  CpuPtr out = output_for(x, shape, dtype);
  if (!out) out = alloc(shape, dtype);
  if (shape.num_elements() == 0) return out;
  const LoopPlan<2> plan(shape, {broadcast_strides(*t, shape), broadcast_strides(*m, shape)});
  visit_dtype(dtype, [&]<DType D>() {
    using E = typename Conv<D>::Storage;
    const E fillv = scalar_to<D>(value);
    const E* xp = static_cast<const E*>(t->raw());
    const uint8_t* mp = m->data<uint8_t>();
    E* op = static_cast<E*>(out->raw());
    for_each_row(plan, kElementwiseGrain, [&](int64_t ob, int64_t len, const int64_t* offs, const int64_t* in) {
      const E* xr = xp + offs[0];
      const uint8_t* mr = mp + offs[1];
      E* orow = op + ob;
      if (in[0] == 1 && in[1] == 1) {
        // A local fill value and the load before the select: a conditional load, or a captured value
        // the stores might alias, keeps GCC from vectorising.
        const E f = fillv;
        for (int64_t j = 0; j < len; ++j) {
          const E x = xr[j];
          orow[j] = mr[j] ? f : x;
        }
      } else if (in[0] == 0 && in[1] == 1) {
        // x is one value along the row (a broadcast, e.g. a mean's gradient under relu's backward): the same
        // select with that value, vectorised, instead of the strided walk.
        const E f = fillv, x = xr[0];
        for (int64_t j = 0; j < len; ++j) orow[j] = mr[j] ? f : x;
      } else {
        for (int64_t j = 0; j < len; ++j) orow[j] = mr[j * in[1]] ? fillv : xr[j * in[0]];
      }
    });
  });
  return out;
}

Prim CpuBackend::argwhere(Prim x) {
  const CpuPtr t = contiguous(as_cpu(x, "argwhere"));
  const Shape& s = t->shape();
  const int64_t n = s.num_elements();
  const int64_t rank = static_cast<int64_t>(s.rank());
  // Pass 1 counts nonzeros per chunk; pass 2 writes each chunk's coordinates at its prefix offset.
  const int64_t chunks = std::max<int64_t>(
      1, std::min<int64_t>(static_cast<int64_t>(num_threads()) * 4, (n + kElementwiseGrain - 1) / kElementwiseGrain));
  std::vector<int64_t> counts(static_cast<size_t>(chunks) + 1, 0);
  CpuPtr out;
  visit_dtype(t->dtype(), [&]<DType D>() {
    using E = typename Conv<D>::Storage;
    const E* p = t->data<E>();
    auto nonzero = [](E v) {
      if constexpr (D == DType::F16 || D == DType::BF16)
        return (v & 0x7fff) != 0;  // +-0 are zero
      else
        return v != E(0);
    };
    parallel_for(chunks, 1, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        int64_t cnt = 0;
        for (int64_t i = n * c / chunks, end = n * (c + 1) / chunks; i < end; ++i) cnt += nonzero(p[i]) ? 1 : 0;
        counts[static_cast<size_t>(c) + 1] = cnt;
      }
    });
    for (int64_t c = 0; c < chunks; ++c) counts[static_cast<size_t>(c) + 1] += counts[static_cast<size_t>(c)];
    out = alloc(Shape{counts.back(), rank}, DType::I64);
    int64_t* o = out->data<int64_t>();
    parallel_for(chunks, 1, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        int64_t row = counts[static_cast<size_t>(c)];
        for (int64_t i = n * c / chunks, end = n * (c + 1) / chunks; i < end; ++i) {
          if (!nonzero(p[i])) continue;
          int64_t rem = i;
          for (int64_t d = rank; d-- > 0;) {
            o[row * rank + d] = rem % s[static_cast<size_t>(d)];
            rem /= s[static_cast<size_t>(d)];
          }
          ++row;
        }
      }
    });
  });
  return out;
}

}  // namespace burn::cpu
