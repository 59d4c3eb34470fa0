// CPU kernels of the embedding module ops: row copies of the weight (any dtype, by bytes) and, for
// the backward, row accumulation split over column blocks so threads never write the same element.
#include <algorithm>
#include <cstring>

#include "burn/tensor/shape_rules.hpp"
#include "cpu_backend.hpp"
#include "ops/index_util.hpp"

namespace burn::cpu {

namespace {

IndexSpan checked_indices(const Prim& indices, int64_t vocab, const char* op) {
  IndexSpan idx = load_indices(indices, op);
  for (int64_t i : idx.span)
    if (i < 0 || i >= vocab)
      throw IndexError(op,
                       "index " + std::to_string(i) + " is out of range for " + std::to_string(vocab) + " embeddings");
  return idx;
}

template <typename T>
void accumulate_rows(const T* g, std::span<const int64_t> idx, T* out, int64_t e) {
  const int64_t n = static_cast<int64_t>(idx.size());
  parallel_for(e, std::max<int64_t>(16, 65536 / std::max<int64_t>(1, n)), [&](int64_t c0, int64_t c1) {
    for (int64_t i = 0; i < n; ++i) {
      const T* src = g + i * e;
      T* dst = out + idx[i] * e;
      for (int64_t c = c0; c < c1; ++c) dst[c] += src[c];
    }
  });
}

}  // namespace

Prim CpuBackend::embedding(Prim weight, Prim indices) {
  const CpuPtr wc = contiguous(as_cpu(weight, "embedding"));
  const Shape os = shape_rules::embedding(wc->shape(), indices->shape());
  const int64_t v = wc->shape()[0], e = wc->shape()[1];
  const IndexSpan loaded = checked_indices(indices, v, "embedding");
  const std::span<const int64_t> idx = loaded.span;
  CpuPtr out = alloc(os, wc->dtype());
  const size_t row = static_cast<size_t>(e) * dtype_size(wc->dtype());
  const auto* src = static_cast<const uint8_t*>(wc->raw());
  auto* dst = static_cast<uint8_t*>(out->raw());
  parallel_for(static_cast<int64_t>(idx.size()), std::max<int64_t>(1, 65536 / std::max<size_t>(1, row)),
               [&](int64_t s, int64_t t) {
                 for (int64_t i = s; i < t; ++i) std::memcpy(dst + i * row, src + idx[i] * row, row);
               });
  return out;
}

Prim CpuBackend::embedding_backward(Prim weight, Prim grad_out, Prim indices) {
  const DType dt = weight->dtype();
  if (dt != DType::F32 && dt != DType::F64)
    return Backend::embedding_backward(std::move(weight), std::move(grad_out), std::move(indices));
  const Shape ws = weight->shape();
  const IndexSpan loaded = checked_indices(indices, ws[0], "embedding_backward");
  const std::span<const int64_t> idx = loaded.span;
  const CpuPtr gc = contiguous(as_cpu(grad_out, "embedding_backward"));
  CpuPtr out = alloc(ws, dt);
  std::memset(out->raw(), 0, static_cast<size_t>(ws.num_elements()) * dtype_size(dt));
  if (dt == DType::F32)
    accumulate_rows(gc->data<float>(), idx, out->data<float>(), ws[1]);
  else
    accumulate_rows(gc->data<double>(), idx, out->data<double>(), ws[1]);
  return out;
}

}  // namespace burn::cpu
