// CPU creation ops: empty, full, from_data, into_data, cast (every dtype, f16/bf16 included, their
// conversions to and from f32 vectorised),
// random (the default body), arange.
#include <cstring>
#include <string>

#include "convert.hpp"
#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "elementwise.hpp"
#include "half_convert.hpp"

namespace burn::cpu {

namespace {

template <typename S>
void fill(S* out, int64_t n, S value) {
  parallel_for(n, kElementwiseGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) out[i] = value;
  });
}

}  // namespace

Prim CpuBackend::empty(const Shape& shape, DType dtype) {
  checked_num_elements(shape, "empty");
  return alloc(shape, dtype);
}

Prim CpuBackend::full(const Shape& shape, Scalar value, DType dtype) {
  checked_num_elements(shape, "full");
  CpuPtr out = alloc(shape, dtype);
  const int64_t n = shape.num_elements();
  visit_dtype(dtype, [&]<DType D>() {
    using S = typename Conv<D>::Storage;
    fill<S>(out->data<S>(), n, scalar_to<D>(value));
  });
  return out;
}

Prim CpuBackend::from_data(const TensorData& data) {
  checked_num_elements(data.shape(), "from_data");
  const size_t bytes = static_cast<size_t>(data.num_elements()) * dtype_size(data.dtype());
  if (data.bytes().size() != bytes)
    throw ValueError("from_data", "shape " + data.shape().to_string() + " of " + std::string(dtype_name(data.dtype())) +
                                      " needs " + std::to_string(bytes) + " bytes, got " +
                                      std::to_string(data.bytes().size()));
  CpuPtr out = alloc(data.shape(), data.dtype());
  if (bytes) std::memcpy(out->raw(), data.raw(), bytes);
  return out;
}

TensorData CpuBackend::into_data(const Prim& x) {
  CpuPtr t = contiguous(as_cpu(x, "into_data"));
  const size_t bytes = static_cast<size_t>(t->shape().num_elements()) * dtype_size(t->dtype());
  TensorData out = TensorData::uninitialized(t->shape(), t->dtype());
  if (bytes) std::memcpy(out.raw(), t->raw(), bytes);
  return out;
}

Prim CpuBackend::cast(Prim x, DType dtype) {
  const CpuPtr src = as_cpu(x, "cast");
  const DType from = src->dtype();
  if (from == dtype) return x;
  // f16/bf16 <-> f32 of a contiguous tensor: the run-time chosen vector conversions (half_convert.hpp).
  if (src->is_contiguous() && ((is_half(from) && dtype == DType::F32) || (from == DType::F32 && is_half(dtype)))) {
    CpuPtr out = alloc(src->shape(), dtype);
    const int64_t n = src->shape().num_elements();
    if (dtype == DType::F32) {
      const uint16_t* in = src->data<uint16_t>();
      float* o = out->data<float>();
      parallel_for(n, kElementwiseGrain, [&](int64_t b, int64_t e) { widen_to_f32(from, in + b, o + b, e - b); });
    } else {
      const float* in = src->data<float>();
      uint16_t* o = out->data<uint16_t>();
      parallel_for(n, kElementwiseGrain, [&](int64_t b, int64_t e) { narrow_from_f32(dtype, in + b, o + b, e - b); });
    }
    return out;
  }
  return visit_dtype(from, [&]<DType S>() -> Prim {
    return visit_dtype(dtype, [&]<DType D>() -> Prim {
      using SS = typename Conv<S>::Storage;
      using DS = typename Conv<D>::Storage;
      return unary_op<SS, DS>(std::move(x), dtype, "cast", [](SS v) { return Conv<D>::store(Conv<S>::load(v)); });
    });
  });
}

Prim CpuBackend::arange(int64_t start, int64_t end, int64_t step, DType dtype) {
  const int64_t n = arange_length(start, end, step, dtype, "arange");
  CpuPtr out = alloc(Shape{n}, dtype);
  visit_dtype(dtype, [&]<DType D>() {
    using S = typename Conv<D>::Storage;
    S* o = out->data<S>();
    parallel_for(n, kElementwiseGrain, [&](int64_t b, int64_t e) {
      // start + i * step fits int64 (arange_length), but i * step alone may not: wrap through uint64.
      for (int64_t i = b; i < e; ++i)
        o[i] = Conv<D>::store(static_cast<int64_t>(static_cast<uint64_t>(start) +
                                                   static_cast<uint64_t>(i) * static_cast<uint64_t>(step)));
    });
  });
  return out;
}

}  // namespace burn::cpu
