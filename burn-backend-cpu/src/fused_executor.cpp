// The cpu backend's fused executor (burn/tensor/fused.hpp), reached through
// query_interface(kFusedElementwiseInterface): runs a FusedProgram over tiles of kFusedTile elements of its
// iteration space on the thread pool; a program ending in a reduce instruction runs the eager reduction
// kernel (ops/reduce_kernels.hpp, ops/softmax_kernels.hpp) over its prologue, computed lane block by lane block. Each
// instruction is one loop over a tile with the same per-element function (ops/elementwise_fns.hpp) or f32 kernel as the
// eager op, so a fused chain gives bit for bit what the ops gave one at a time; only the stored outputs reach memory,
// everything else lives in per-thread tile buffers that stay in cache.
#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "burn/tensor/fused.hpp"
#include "burn/tensor/shape_rules.hpp"
#include "convert.hpp"
#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "elementwise.hpp"
#include "fused_chain.hpp"
#include "fused_instr.hpp"
#include "ops/elementwise_fns.hpp"
#include "ops/math_util.hpp"
#include "ops/norm_kernels.hpp"
#include "ops/reduce_kernels.hpp"
#include "ops/softmax_kernels.hpp"
#include "storage_pool.hpp"

namespace burn::cpu {
namespace {

// Elements per tile: at most 8 KiB per register (f64), so a dozen live registers fit in L1/L2.
constexpr int64_t kFusedTile = 1024;

bool numeric(DType d) { return d == DType::F32 || d == DType::F64 || d == DType::I64 || d == DType::I32; }
bool floating(DType d) { return d == DType::F32 || d == DType::F64; }
bool computing(DType d) { return numeric(d) || d == DType::Bool; }

// The ops (and operand dtypes) this executor runs; anything else makes the caller run the program op
// by op.
bool supported(const FusedInstr& in, const std::vector<DType>& reg) {
  const DType a = reg[in.args[0]];
  switch (in.op) {
    case OpId::add:
    case OpId::sub:
    case OpId::mul:
    case OpId::maximum:
    case OpId::minimum:
    case OpId::add_scalar:
    case OpId::sub_scalar:
    case OpId::mul_scalar:
    case OpId::neg:
    case OpId::abs:
    case OpId::clamp:
    case OpId::clamp_min:
    case OpId::clamp_max: return numeric(a);
    case OpId::div:
    case OpId::div_scalar:
    case OpId::exp:
    case OpId::log:
    case OpId::tanh:
    case OpId::erf:
    case OpId::sqrt:
    case OpId::sin:
    case OpId::cos:
    case OpId::floor:
    case OpId::ceil:
    case OpId::trunc:
    case OpId::round:
    case OpId::recip:
    case OpId::square:
    case OpId::relu:
    case OpId::sigmoid:
    case OpId::silu:
    case OpId::gelu:
    case OpId::gelu_tanh:
    case OpId::leaky_relu: return floating(a);
    case OpId::equal:
    case OpId::not_equal:
    case OpId::greater:
    case OpId::greater_equal:
    case OpId::lower:
    case OpId::lower_equal:
    case OpId::equal_elem:
    case OpId::not_equal_elem:
    case OpId::greater_elem:
    case OpId::greater_equal_elem:
    case OpId::lower_elem:
    case OpId::lower_equal_elem: return computing(a);
    case OpId::bool_not:
    case OpId::bool_and:
    case OpId::bool_or:
    case OpId::bool_xor: return a == DType::Bool;
    case OpId::mask_where:
    case OpId::mask_fill: return computing(a);
    case OpId::cast: return computing(a) && computing(in.param_dtype);
    default: return false;
  }
}

// The tile loops carry the ISA clones themselves: exec's clones do not reach them, since GCC does not
// inline these instantiations (behind dispatch's per-dtype switch) into exec, and they would otherwise
// run 4-wide SSE2 where the eager kernels run AVX2.
template <typename T, typename R, typename F>
BURN_CPU_SIMD_CLONES void map1(const void* a, void* o, int64_t n, F f) {
  const T* x = static_cast<const T*>(a);
  R* y = static_cast<R*>(o);
#pragma GCC ivdep
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<R>(f(x[i]));
}

template <typename T, typename R, typename F>
BURN_CPU_SIMD_CLONES void map2(const void* a, const void* b, void* o, int64_t n, F f) {
  const T* x = static_cast<const T*>(a);
  const T* z = static_cast<const T*>(b);
  R* y = static_cast<R*>(o);
#pragma GCC ivdep
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<R>(f(x[i], z[i]));
}

// The selects load both sides first, as the eager kernels do (indexing.cpp): a conditional load keeps
// GCC from vectorising, and a branch on a random mask (relu's backward) mispredicts half the time.
template <typename E>
BURN_CPU_SIMD_CLONES void mask_where_loop(const void* a, const void* b, const void* c, void* o, int64_t n) {
  const E* x = static_cast<const E*>(a);
  const uint8_t* m = static_cast<const uint8_t*>(b);
  const E* v = static_cast<const E*>(c);
  E* y = static_cast<E*>(o);
  for (int64_t i = 0; i < n; ++i) {
    const E vi = v[i], xi = x[i];
    y[i] = m[i] ? vi : xi;
  }
}

template <typename E>
BURN_CPU_SIMD_CLONES void mask_fill_loop(const void* a, const void* b, void* o, int64_t n, const E fill) {
  const E* x = static_cast<const E*>(a);
  const uint8_t* m = static_cast<const uint8_t*>(b);
  E* y = static_cast<E*>(o);
  for (int64_t i = 0; i < n; ++i) {
    const E xi = x[i];
    y[i] = m[i] ? fill : xi;
  }
}

// A float op with an f32 kernel of its own (as float_map picks it) and a generic form for f64.
template <typename K, typename F>
void float_op(DType dt, const void* a, void* o, int64_t n, K f32_kernel, F fn) {
  if (dt == DType::F32)
    f32_kernel(static_cast<const float*>(a), static_cast<float*>(o), n);
  else
    map1<double, double>(a, o, n, [fn](double v) { return static_cast<double>(fn(v)); });
}

template <typename F>
void float_map_op(DType dt, const char* name, const void* a, void* o, int64_t n, F fn) {
  dispatch<Dtypes::Float>(dt, name,
                          [&]<typename T>() { map1<T, T>(a, o, n, [fn](T v) { return static_cast<T>(fn(v)); }); });
}

template <typename F>
void numeric_zip(DType dt, const char* name, const void* a, const void* b, void* o, int64_t n, F fn) {
  dispatch<Dtypes::Numeric>(
      dt, name, [&]<typename T>() { map2<T, T>(a, b, o, n, [fn](T x, T y) { return static_cast<T>(fn(x, y)); }); });
}

template <typename F>
void numeric_scalar(DType dt, const char* name, const void* a, void* o, int64_t n, const Scalar& s, F fn) {
  dispatch<Dtypes::Numeric>(dt, name, [&]<typename T>() {
    const T c = scalar_as<T>(s);
    map1<T, T>(a, o, n, [c, fn](T x) { return static_cast<T>(fn(x, c)); });
  });
}

template <typename Cmp>
void compare_op(DType dt, const char* name, const void* a, const void* b, void* o, int64_t n, Cmp cmp) {
  dispatch<Dtypes::Computing>(dt, name, [&]<typename T>() {
    map2<T, uint8_t>(a, b, o, n, [cmp](T x, T y) { return static_cast<uint8_t>(cmp(x, y)); });
  });
}

template <typename Cmp>
void compare_elem_op(DType dt, const char* name, const void* a, void* o, int64_t n, const Scalar& s, Cmp cmp) {
  dispatch<Dtypes::Computing>(dt, name, [&]<typename T>() {
    with_elem_predicate<T>(s, cmp, [&](auto pred) { map1<T, uint8_t>(a, o, n, pred); });
  });
}

// Calls f.template operator()<E>() with E an unsigned type of d's element size (moves raw bits).
template <typename F>
void by_size_of(DType d, F&& f) {
  switch (dtype_size(d)) {
    case 1: return f.template operator()<uint8_t>();
    case 2: return f.template operator()<uint16_t>();
    case 4: return f.template operator()<uint32_t>();
    default: return f.template operator()<uint64_t>();
  }
}

// f64 gelu_tanh for the baseline ISA only, as the eager f64 loop is compiled: inside the x86-64-v3
// clone below, GCC contracts its multiply-add (x + c * x^3) into an FMA and the result moves by an ulp.
[[gnu::noinline]] void gelu_tanh_f64(const double* x, double* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = gelu_tanh_of(x[i]);
}

// Register dtypes of a lone instruction over f32 operands (fused_instr.hpp): args and out are registers 0..3.
const std::vector<DType> kF32Registers(4, DType::F32);

// Cloned per ISA level as the eager f32 kernels are: the tile loops inlined here (and map1/map2, which
// carry their own clones) get AVX2 where the CPU has it. Results do not change: libm calls are the same calls, and the
// one f64 op whose formula GCC would contract into an FMA there (gelu_tanh) runs outside the clone.
BURN_CPU_SIMD_CLONES void exec(const FusedInstr& in, const std::vector<DType>& reg, void* const* ptr, int64_t n) {
  const DType dt = reg[in.args[0]];
  const void* a = ptr[in.args[0]];
  const void* b = in.n_args > 1 ? ptr[in.args[1]] : nullptr;
  const void* c = in.n_args > 2 ? ptr[in.args[2]] : nullptr;
  void* o = ptr[in.out];
  const char* name = op_info(in.op).name;
  const Scalar& s0 = in.scalars[0];
  switch (in.op) {
    // numeric
    case OpId::add: return numeric_zip(dt, name, a, b, o, n, [](auto x, auto y) { return wrap_add(x, y); });
    case OpId::sub: return numeric_zip(dt, name, a, b, o, n, [](auto x, auto y) { return wrap_sub(x, y); });
    case OpId::mul: return numeric_zip(dt, name, a, b, o, n, [](auto x, auto y) { return wrap_mul(x, y); });
    case OpId::div: return numeric_zip(dt, name, a, b, o, n, [](auto x, auto y) { return div_of(x, y); });
    case OpId::maximum: return numeric_zip(dt, name, a, b, o, n, [](auto x, auto y) { return max_of(x, y); });
    case OpId::minimum: return numeric_zip(dt, name, a, b, o, n, [](auto x, auto y) { return min_of(x, y); });
    case OpId::add_scalar: return numeric_scalar(dt, name, a, o, n, s0, [](auto x, auto y) { return wrap_add(x, y); });
    case OpId::sub_scalar: return numeric_scalar(dt, name, a, o, n, s0, [](auto x, auto y) { return wrap_sub(x, y); });
    case OpId::mul_scalar: return numeric_scalar(dt, name, a, o, n, s0, [](auto x, auto y) { return wrap_mul(x, y); });
    case OpId::div_scalar: return numeric_scalar(dt, name, a, o, n, s0, [](auto x, auto y) { return div_of(x, y); });
    case OpId::neg:
      return dispatch<Dtypes::Numeric>(
          dt, name, [&]<typename T>() { map1<T, T>(a, o, n, [](T v) { return wrap_sub(T(0), v); }); });
    case OpId::abs:
      return dispatch<Dtypes::Numeric>(dt, name,
                                       [&]<typename T>() { map1<T, T>(a, o, n, [](T v) { return abs_of(v); }); });
    case OpId::clamp:
      return dispatch<Dtypes::Numeric>(dt, name, [&]<typename T>() {
        const T lo = scalar_as<T>(s0), hi = scalar_as<T>(in.scalars[1]);
        map1<T, T>(a, o, n, [lo, hi](T v) { return clamp_of(v, lo, hi); });
      });
    case OpId::clamp_min:
      return dispatch<Dtypes::Numeric>(dt, name, [&]<typename T>() {
        const T lo = scalar_as<T>(s0);
        map1<T, T>(a, o, n, [lo](T v) { return clamp_min_of(v, lo); });
      });
    case OpId::clamp_max:
      return dispatch<Dtypes::Numeric>(dt, name, [&]<typename T>() {
        const T hi = scalar_as<T>(s0);
        map1<T, T>(a, o, n, [hi](T v) { return clamp_max_of(v, hi); });
      });
    // float math: the f32 kernels where the eager op has one, else the same std:: call
    case OpId::exp: return float_op(dt, a, o, n, exp_f32, [](double v) { return std::exp(v); });
    case OpId::log: return float_op(dt, a, o, n, log_f32, [](double v) { return std::log(v); });
    case OpId::tanh: return float_op(dt, a, o, n, tanh_f32, [](double v) { return std::tanh(v); });
    case OpId::erf: return float_op(dt, a, o, n, erf_f32, [](double v) { return std::erf(v); });
    case OpId::sqrt: return float_map_op(dt, name, a, o, n, [](auto v) { return std::sqrt(v); });
    case OpId::sin: return float_map_op(dt, name, a, o, n, [](auto v) { return std::sin(v); });
    case OpId::cos: return float_map_op(dt, name, a, o, n, [](auto v) { return std::cos(v); });
    case OpId::floor: return float_map_op(dt, name, a, o, n, [](auto v) { return std::floor(v); });
    case OpId::ceil: return float_map_op(dt, name, a, o, n, [](auto v) { return std::ceil(v); });
    case OpId::trunc: return float_map_op(dt, name, a, o, n, [](auto v) { return std::trunc(v); });
    case OpId::round: return float_map_op(dt, name, a, o, n, [](auto v) { return std::nearbyint(v); });
    case OpId::recip: return float_map_op(dt, name, a, o, n, [](auto v) { return decltype(v)(1) / v; });
    case OpId::square: return float_map_op(dt, name, a, o, n, [](auto v) { return v * v; });
    // activations
    case OpId::relu: return float_map_op(dt, name, a, o, n, [](auto v) { return relu_of(v); });
    case OpId::sigmoid: return float_op(dt, a, o, n, sigmoid_f32, [](double v) { return 1.0 / (1.0 + std::exp(-v)); });
    case OpId::silu: return float_op(dt, a, o, n, silu_f32, [](double v) { return v / (1.0 + std::exp(-v)); });
    case OpId::gelu:
      return float_op(dt, a, o, n, gelu_f32,
                      [](double v) { return 0.5 * v * (1.0 + std::erf(v * 0.70710678118654752440)); });
    case OpId::gelu_tanh:
      if (dt == DType::F64) return gelu_tanh_f64(static_cast<const double*>(a), static_cast<double*>(o), n);
      return gelu_tanh_f32(static_cast<const float*>(a), static_cast<float*>(o), n);
    case OpId::leaky_relu:
      return dispatch<Dtypes::Float>(dt, name, [&]<typename T>() {
        const T sl = static_cast<T>(in.params[0]);
        map1<T, T>(a, o, n, [sl](T v) { return leaky_relu_of(v, sl); });
      });
    // comparisons
    case OpId::equal: return compare_op(dt, name, a, b, o, n, std::equal_to<>{});
    case OpId::not_equal: return compare_op(dt, name, a, b, o, n, std::not_equal_to<>{});
    case OpId::greater: return compare_op(dt, name, a, b, o, n, std::greater<>{});
    case OpId::greater_equal: return compare_op(dt, name, a, b, o, n, std::greater_equal<>{});
    case OpId::lower: return compare_op(dt, name, a, b, o, n, std::less<>{});
    case OpId::lower_equal: return compare_op(dt, name, a, b, o, n, std::less_equal<>{});
    case OpId::equal_elem: return compare_elem_op(dt, name, a, o, n, s0, std::equal_to<>{});
    case OpId::not_equal_elem: return compare_elem_op(dt, name, a, o, n, s0, std::not_equal_to<>{});
    case OpId::greater_elem: return compare_elem_op(dt, name, a, o, n, s0, std::greater<>{});
    case OpId::greater_equal_elem: return compare_elem_op(dt, name, a, o, n, s0, std::greater_equal<>{});
    case OpId::lower_elem: return compare_elem_op(dt, name, a, o, n, s0, std::less<>{});
    case OpId::lower_equal_elem: return compare_elem_op(dt, name, a, o, n, s0, std::less_equal<>{});
    // bool
    case OpId::bool_not: return map1<uint8_t, uint8_t>(a, o, n, [](uint8_t v) { return static_cast<uint8_t>(v == 0); });
    case OpId::bool_and:
      return map2<uint8_t, uint8_t>(a, b, o, n,
                                    [](uint8_t x, uint8_t y) { return static_cast<uint8_t>((x != 0) & (y != 0)); });
    case OpId::bool_or:
      return map2<uint8_t, uint8_t>(a, b, o, n,
                                    [](uint8_t x, uint8_t y) { return static_cast<uint8_t>((x != 0) | (y != 0)); });
    case OpId::bool_xor:
      return map2<uint8_t, uint8_t>(a, b, o, n,
                                    [](uint8_t x, uint8_t y) { return static_cast<uint8_t>((x != 0) != (y != 0)); });
    // masks and casts move element bits as the eager kernels do
    case OpId::mask_where: return by_size_of(dt, [&]<typename E>() { mask_where_loop<E>(a, b, c, o, n); });
    case OpId::mask_fill:
      return visit_dtype(dt, [&]<DType D>() {
        using E = typename Conv<D>::Storage;
        mask_fill_loop<E>(a, b, o, n, scalar_to<D>(s0));
      });
    case OpId::cast:
      return visit_dtype(dt, [&]<DType S>() {
        visit_dtype(in.param_dtype, [&]<DType D>() {
          using SS = typename Conv<S>::Storage;
          using DS = typename Conv<D>::Storage;
          map1<SS, DS>(a, o, n, [](SS v) { return Conv<D>::store(Conv<S>::load(v)); });
        });
      });
    default: throw Error(name, "internal: the fused executor was given an op it does not run");
  }
}

// The elementwise part of a program (all of it, or a reduce instruction's prologue), evaluated over
// ranges of its flat iteration space: stored outputs go straight into their tensors, every other
// register lives in per-thread tile buffers.
class Prologue {
 public:
  // Per-thread state: tile buffers and the registers' pointers.
  struct Ctx {
    std::unique_ptr<uint64_t[]> scratch;
    std::vector<void*> ptr;
  };

  // `ncode` instructions of `p` run here; `keep` (or -1) is a register read after them (the reduce's
  // argument), so its tile buffer is never reused.
  Prologue(const FusedProgram& p, const Prims& inputs, size_t ncode, int32_t keep, std::vector<int32_t> output_of,
           std::vector<uint8_t*> out_base)
      : p_(p), ncode_(ncode), output_of_(std::move(output_of)), out_base_(std::move(out_base)) {
    const size_t nin = p.num_inputs, nregs = p.reg_dtype.size();
    // Inputs no prologue instruction reads (a norm's weight and bias) are not loaded per tile.
    std::vector<uint8_t> read(nin, 0);
    for (size_t k = 0; k < ncode; ++k)
      for (size_t q = 0; q < p.code[k].n_args; ++q)
        if (p.code[k].args[q] < nin) read[p.code[k].args[q]] = 1;
    if (keep >= 0 && static_cast<size_t>(keep) < nin) read[keep] = 1;
    in_.resize(nin);
    for (size_t i = 0; i < nin; ++i) {
      const CpuTensor* t = as_cpu(inputs[i], "fused").get();
      // The plan guarantees it; a wrong shape here would index out of the input's buffer.
      if (read[i] && shape_rules::try_broadcast(t->shape(), p.shape) != p.shape)
        throw Error("fused", "internal: input " + std::to_string(i) + " of shape " + t->shape().to_string() +
                                 " does not broadcast to the program's shape " + p.shape.to_string());
      in_[i] = {static_cast<const uint8_t*>(t->raw()),
                read[i] ? broadcast_strides(*t, p.shape) : std::vector<int64_t>(p.shape.rank(), 0),
                t->is_contiguous() && t->shape() == p.shape, read[i] != 0};
    }
    // Tile buffers: a register that is neither a flat input nor an output gets a slot, freed after
    // its last reader, so the working set is the live registers only.
    std::vector<int64_t> last_use(nregs, -1);
    for (size_t k = 0; k < ncode; ++k)
      for (size_t q = 0; q < p.code[k].n_args; ++q) last_use[p.code[k].args[q]] = static_cast<int64_t>(k);
    if (keep >= 0) last_use[keep] = std::numeric_limits<int64_t>::max();
    slot_.assign(nregs, -1);
    std::vector<int32_t> free_slots;
    std::vector<uint8_t> released(nregs, 0);
    auto take = [&] {
      if (!free_slots.empty()) {
        const int32_t sl = free_slots.back();
        free_slots.pop_back();
        return sl;
      }
      return num_slots_++;
    };
    for (size_t i = 0; i < nin; ++i)
      if (in_[i].loaded && !in_[i].flat) slot_[i] = take();
    std::vector<uint8_t> stored(nregs, 0);
    for (size_t r = 0; r < nregs; ++r) stored[r] = output_of_[r] >= 0 || static_cast<int32_t>(r) == keep;
    chain_ = plan_chain(p, ncode, stored);
    // An elementwise program's outputs too large to stay in cache leave with streaming stores.
    if (chain_ && keep < 0) {
      size_t out_bytes = 0;
      for (size_t r = nin; r < nregs; ++r)
        if (output_of_[r] >= 0) out_bytes += static_cast<size_t>(p.shape.num_elements()) * dtype_size(p.reg_dtype[r]);
      const bool stream = streaming_stores_pay(out_bytes);
      for (ChainStep& st : chain_->steps)
        if (stream && st.store >= 0 && output_of_[st.store] >= 0) st.stream = chain_->streams = true;
      // Nothing then needs a tile buffer: the chain runs over a whole range in one call.
      untiled_ = std::all_of(in_.begin(), in_.end(), [](const Input& in) { return in.flat || !in.loaded; });
    }
    for (size_t k = 0; k < ncode; ++k) {
      // The result gets a slot before the operands read for the last time give theirs back: writing
      // over an operand is unsafe when the element sizes differ (a widening cast).
      const size_t r = nin + k;
      if (output_of_[r] < 0) slot_[r] = take();
      for (size_t q = 0; q < p.code[k].n_args; ++q) {
        const uint16_t a = p.code[k].args[q];
        if (last_use[a] == static_cast<int64_t>(k) && slot_[a] >= 0 && !released[a]) {
          free_slots.push_back(slot_[a]);
          released[a] = 1;
        }
      }
    }
  }

  Ctx context() const {
    return {std::unique_ptr<uint64_t[]>(new uint64_t[static_cast<size_t>(std::max(num_slots_, 1)) * kFusedTile]),
            std::vector<void*>(p_.reg_dtype.size(), nullptr)};
  }

  // Evaluates elements [s, s + len); with reg >= 0, copies register `reg` of them to dst.
  void eval(Ctx& ctx, int64_t s, int64_t len, int32_t reg, void* dst) const {
    if (untiled_ && reg < 0) {
      tile(ctx, s, len, -1, nullptr, 0);
      finish_chain(*chain_);
      return;
    }
    const size_t es = reg >= 0 ? dtype_size(p_.reg_dtype[reg]) : 0;
    for (int64_t t = s; t < s + len; t += kFusedTile) {
      const int64_t n = std::min(kFusedTile, s + len - t);
      void* d = reg >= 0 ? static_cast<uint8_t*>(dst) + (t - s) * static_cast<int64_t>(es) : nullptr;
      tile(ctx, t, n, reg, d, std::min(kFusedTile, s + len - t - n));
      // An input or a stored register lives elsewhere: copied.
      if (reg >= 0 && d != ctx.ptr[reg]) std::memcpy(d, ctx.ptr[reg], static_cast<size_t>(n) * es);
    }
    if (chain_) finish_chain(*chain_);
  }

 private:
  struct Input {
    const uint8_t* base;
    std::vector<int64_t> strides;
    bool flat;
    bool loaded;
  };

  // Elements [s, s + n), n <= kFusedTile (any n for an untiled_ chain, which touches no tile buffer);
  // register `direct` (if a tile-buffer register) is computed into
  // `dst` instead of its buffer; the next `next_n` elements are prefetched.
  void tile(Ctx& ctx, int64_t s, int64_t n, int32_t direct, void* dst, int64_t next_n) const {
    const size_t nin = p_.num_inputs;
    void** ptr = ctx.ptr.data();
    for (size_t i = 0; i < nin; ++i) {
      if (!in_[i].loaded) continue;
      const size_t es = dtype_size(p_.reg_dtype[i]);
      if (in_[i].flat) {
        ptr[i] = const_cast<uint8_t*>(in_[i].base + s * static_cast<int64_t>(es));
        continue;
      }
      void* buf = ctx.scratch.get() + static_cast<size_t>(slot_[i]) * kFusedTile;
      ptr[i] = buf;
      by_size_of(p_.reg_dtype[i], [&]<typename E>() {
        gather_strided(reinterpret_cast<const E*>(in_[i].base), in_[i].strides, p_.shape, s, n, static_cast<E*>(buf));
      });
    }
    for (size_t k = 0; k < ncode_; ++k) {
      const size_t r = nin + k;
      if (output_of_[r] >= 0)
        ptr[r] = out_base_[output_of_[r]] + s * static_cast<int64_t>(dtype_size(p_.reg_dtype[r]));
      else if (static_cast<int32_t>(r) == direct)
        ptr[r] = dst;
      else
        ptr[r] = ctx.scratch.get() + static_cast<size_t>(slot_[r]) * kFusedTile;
      if (chain_) continue;
      exec(p_.code[k], p_.reg_dtype, ptr, n);
      if (next_n > 0) prefetch_part(s + n, next_n, k, ncode_);
    }
    if (chain_) run_chain(*chain_, ptr, n);
  }

  // The k-th of `parts` slices of the flat inputs of elements [s, s + n) (the next tile), asked for
  // between this tile's instructions: memory then streams while they compute (single-threaded 16M
  // chain 10% faster), and a slice at a time does not flood the cache's miss buffers.
  void prefetch_part(int64_t s, int64_t n, size_t k, size_t parts) const {
    for (size_t i = 0; i < p_.num_inputs; ++i) {
      if (!in_[i].loaded || !in_[i].flat) continue;
      const int64_t es = static_cast<int64_t>(dtype_size(p_.reg_dtype[i]));
      const int64_t bytes = n * es, ki = static_cast<int64_t>(k), np = static_cast<int64_t>(parts);
      const uint8_t* b = in_[i].base + s * es;
      for (int64_t off = bytes * ki / np / 64 * 64; off < bytes * (ki + 1) / np; off += 64) __builtin_prefetch(b + off);
    }
  }

  const FusedProgram& p_;
  size_t ncode_;
  std::vector<int32_t> output_of_;
  std::vector<uint8_t*> out_base_;
  std::vector<Input> in_;
  std::vector<int32_t> slot_;
  int32_t num_slots_ = 0;
  std::optional<ChainPlan> chain_;  // set when the instructions are one f32 chain: run in registers
  bool untiled_ = false;            // a chain reading flat inputs and storing only outputs: eval skips the tiles
};

// A reduction kernel's source (ops/reduce_kernels.hpp) that computes the prologue's register `reg`.
template <typename T>
auto prologue_source(const Prologue& pro, int32_t reg, int64_t end) {
  return reducek::make_filled_source<T>(
      end, [&pro, ctx = pro.context(), reg](int64_t s, int64_t n, T* dst) mutable { pro.eval(ctx, s, n, reg, dst); });
}

bool reduce_supported(const FusedProgram& p, const FusedInstr& in) {
  const bool norm = in.op == OpId::layer_norm || in.op == OpId::rms_norm;
  if (in.n_args != (in.op == OpId::layer_norm ? 3 : in.op == OpId::rms_norm ? 2 : 1)) return false;
  if (in.args[0] >= p.reg_dtype.size()) return false;
  const DType a = p.reg_dtype[in.args[0]], r = p.reg_dtype[in.out];
  // A norm's weight and bias: absent, or inputs of x's dtype.
  for (size_t q = 1; norm && q < in.n_args; ++q)
    if (in.args[q] != kNoRegister && (in.args[q] >= p.num_inputs || p.reg_dtype[in.args[q]] != a)) return false;
  switch (in.op) {
    case OpId::sum_dim:
    case OpId::mean_dim:
    case OpId::max_dim:
    case OpId::min_dim: return numeric(a) && r == a;
    case OpId::argmax:
    case OpId::argmin: return numeric(a) && r == DType::I64;
    case OpId::softmax:
    case OpId::log_softmax:
    case OpId::layer_norm:
    case OpId::rms_norm: return floating(a) && r == a;
    default: return false;
  }
}

// Layer / RMS norm: the prologue is written where the result goes, a block of rows at a time, and the
// eager row kernel normalises it in place.
void run_norm(const FusedProgram& p, const FusedInstr& red, const Prologue& pro, const Prims& inputs, void* out) {
  const char* name = op_info(red.op).name;
  const size_t nd = red.dim;
  if (nd == 0 || nd > p.shape.rank()) throw Error(name, "internal: normalized dims outside the program's rank");
  int64_t n = 1;
  for (size_t d = p.shape.rank() - nd; d < p.shape.rank(); ++d) n *= p.shape[d];
  const int64_t m = p.shape.num_elements() / n;
  auto operand = [&](size_t q) -> CpuPtr {
    if (q >= red.n_args || red.args[q] == kNoRegister) return nullptr;
    CpuPtr t = contiguous(as_cpu(inputs[red.args[q]], name));
    if (t->shape().num_elements() != n)
      throw Error(name, "internal: weight or bias does not match the normalized dims");
    return t;
  };
  const CpuPtr w = operand(1), b = operand(2);
  const int32_t arg = red.args[0];
  dispatch<Dtypes::Float>(p.reg_dtype[arg], name, [&]<typename T>() {
    T* y = static_cast<T*>(out);
    const T* pw = w ? w->data<T>() : nullptr;
    const T* pb = b ? b->data<T>() : nullptr;
    const T eps = static_cast<T>(red.params[0]);
    const bool rms = red.op == OpId::rms_norm;
    parallel_for(m, std::max<int64_t>(1, (int64_t(1) << 15) / n), [&](int64_t r0, int64_t r1) {
      Prologue::Ctx ctx = pro.context();
      const int64_t rows = std::max<int64_t>(1, kFusedTile * 4 / n);
      for (int64_t r = r0; r < r1; r += rows) {
        const int64_t re = std::min(r1, r + rows);
        pro.eval(ctx, r * n, (re - r) * n, arg, y + r * n);
        norm_rows_forward(y + r * n, y + r * n, re - r, n, pw, pb, eps, rms);
      }
    });
  });
}

// Runs the reduce instruction `red` over the prologue's register red.args[0] into `out`.
void run_reduce(const FusedProgram& p, const FusedInstr& red, const Prologue& pro, const Prims& inputs, void* out) {
  using namespace reducek;
  const char* name = op_info(red.op).name;
  if (red.op == OpId::layer_norm || red.op == OpId::rms_norm) return run_norm(p, red, pro, inputs, out);
  shape_rules::check_dim(p.shape, red.dim, name);
  const Lanes l = lanes_of(p.shape, red.dim);
  const int32_t arg = red.args[0];
  const DType dt = p.reg_dtype[arg];
  if (fused_reduce_keeps_shape(red.op)) {
    // Softmax: the prologue is written where the result goes, then the eager lane kernel runs in place.
    const bool log = red.op == OpId::log_softmax;
    return dispatch<Dtypes::Float>(dt, name, [&]<typename T>() {
      T* y = static_cast<T*>(out);
      const int64_t n = l.n, inner = l.inner;
      if (inner == 1) {
        parallel_for(l.outer, std::max<int64_t>(1, kGrain / std::max<int64_t>(1, n)), [&](int64_t b, int64_t e) {
          Prologue::Ctx ctx = pro.context();
          const int64_t rows = std::max<int64_t>(1, kFusedTile * 4 / std::max<int64_t>(1, n));
          for (int64_t r = b; r < e; r += rows) {
            const int64_t re = std::min(e, r + rows);
            pro.eval(ctx, r * n, (re - r) * n, arg, y + r * n);
            if constexpr (std::is_same_v<T, float>)
              softmax_rows(y + r * n, y + r * n, re - r, n, log, false);
            else
              softmax_rows(y + r * n, y + r * n, re - r, n, log);
          }
        });
        return;
      }
      const int64_t chunks = (inner + kSoftmaxCols - 1) / kSoftmaxCols;
      const int64_t width = std::min(inner, kSoftmaxCols);
      parallel_for(l.outer * chunks, std::max<int64_t>(1, kGrain / std::max<int64_t>(1, n * width)),
                   [&](int64_t b, int64_t e) {
                     Prologue::Ctx ctx = pro.context();
                     for (int64_t t = b; t < e; ++t) {
                       const int64_t o = t / chunks, j0 = (t % chunks) * kSoftmaxCols;
                       const int64_t w = std::min(kSoftmaxCols, inner - j0), off = o * n * inner + j0;
                       if (w == inner)
                         pro.eval(ctx, off, n * inner, arg, y + off);
                       else
                         for (int64_t k = 0; k < n; ++k) pro.eval(ctx, off + k * inner, w, arg, y + off + k * inner);
                       softmax_block(y + off, y + off, n, inner, w, log);
                     }
                   });
    });
  }
  dispatch<Dtypes::Numeric>(dt, name, [&]<typename T>() {
    auto make = [&](int64_t end) { return prologue_source<T>(pro, arg, end); };
    switch (red.op) {
      case OpId::sum_dim: return reduce_lanes<SumOp<T>, T>(make, static_cast<T*>(out), l);
      case OpId::mean_dim: return reduce_lanes<MeanOp<T>, T>(make, static_cast<T*>(out), l);
      case OpId::max_dim: return reduce_lanes<MaxOp<T>, T>(make, static_cast<T*>(out), l);
      case OpId::min_dim: return reduce_lanes<MinOp<T>, T>(make, static_cast<T*>(out), l);
      case OpId::argmax: return arg_lanes<true, T>(make, nullptr, static_cast<int64_t*>(out), l);
      case OpId::argmin: return arg_lanes<false, T>(make, nullptr, static_cast<int64_t*>(out), l);
      default: throw Error(name, "internal: the fused executor was given a reduce it does not run");
    }
  });
}

// A matmul, conv or conv_transpose anchor: operands are inputs of one float dtype (a conv's bias absent or
// of that dtype too).
bool anchor_supported(const FusedProgram& p, const FusedInstr& in) {
  if (in.n_args != (in.op == OpId::matmul ? 2 : 3)) return false;
  const DType r = p.reg_dtype[in.out];
  if (!floating(r)) return false;
  for (size_t q = 0; q < in.n_args; ++q) {
    if (in.op != OpId::matmul && q == 2 && in.args[q] == kNoRegister) continue;
    if (in.args[q] >= p.num_inputs || p.reg_dtype[in.args[q]] != r) return false;
  }
  return true;
}

// Operand q of an anchor: its input, or null for an absent bias.
Prim anchor_arg(const FusedInstr& in, const Prims& inputs, size_t q) {
  return in.args[q] == kNoRegister ? nullptr : inputs[in.args[q]];
}

// Runs an anchor with the eager kernel itself (same blocking, same threads, same sums: bit for bit the
// unfused op); its result is a new contiguous tensor of the program's shape.
CpuPtr run_anchor(const FusedProgram& p, const FusedInstr& in, const Prims& inputs) {
  static CpuBackend eager;
  const char* name = op_info(in.op).name;
  auto arg = [&](size_t q) { return anchor_arg(in, inputs, q); };
  Prim y = in.op == OpId::matmul ? eager.matmul(arg(0), arg(1))
           : in.op == OpId::conv ? eager.conv(arg(0), arg(1), arg(2), in.conv)
                                 : eager.conv_transpose(arg(0), arg(1), arg(2), in.conv_transpose);
  CpuPtr t = as_cpu(y, name);
  if (t->shape() != p.shape || t->dtype() != p.reg_dtype[in.out] || !t->is_contiguous())
    throw Error(name, "internal: the anchor's result does not match the fused program");
  return t;
}

class CpuFusedExecutor final : public FusedExecutor {
 public:
  bool can_run(const FusedProgram& p) const override {
    if (p.code.empty() || p.reg_dtype.size() != p.num_inputs + p.code.size()) return false;
    int64_t red = -1;  // the reduce (or anchor) instruction, if any
    for (size_t k = 0; k < p.code.size(); ++k) {
      const FusedInstr& in = p.code[k];
      if (is_fused_anchor(in.op)) {
        if (k != 0 || !anchor_supported(p, in)) return false;
        red = 0;  // the epilogue may read everything: the anchor has no prologue
        continue;
      }
      if (is_fused_reduce(in.op)) {
        if (red >= 0 || !reduce_supported(p, in)) return false;
        red = static_cast<int64_t>(k);
        continue;
      }
      if (!supported(in, p.reg_dtype)) return false;
      // The epilogue reads inputs, the reduce's result and itself: the prologue's registers are gone.
      for (size_t q = 0; red >= 0 && q < in.n_args; ++q)
        if (in.args[q] >= p.num_inputs && in.args[q] < p.num_inputs + static_cast<size_t>(red)) return false;
    }
    return true;
  }

  bool fits(const FusedProgram&) const override { return true; }  // no kernel limit on line lengths
  bool owns(const Primitive& p) const override { return dynamic_cast<const CpuTensor*>(&p) != nullptr; }

  Prims run(const FusedProgram& p, const Prims& inputs) override { return run_program(p, inputs, {}); }

 private:
  // `preset` (empty, or one per output): outputs already allocated, written in place.
  Prims run_program(const FusedProgram& p, const Prims& inputs, const Prims& preset) {
    if (!p.code.empty() && is_fused_anchor(p.code[0].op)) return run_anchored(p, inputs);
    const size_t nin = p.num_inputs, nregs = p.reg_dtype.size();
    if (inputs.size() != nin) throw Error("fused", "internal: the program and its inputs disagree");
    size_t rk = p.code.size();  // the reduce instruction's index, if any
    for (size_t k = 0; k < p.code.size(); ++k)
      if (is_fused_reduce(p.code[k].op)) rk = k;
    const FusedInstr* red = rk < p.code.size() ? &p.code[rk] : nullptr;
    Shape red_shape;
    if (red) {
      red_shape = fused_reduce_keeps_shape(red->op)
                      ? p.shape
                      : shape_rules::reduce_dim(p.shape, red->dim, false, op_info(red->op).name);
    }
    // Outputs, and which register each one is; the epilogue's come from its own pass below.
    Prims outs(p.outputs.size());
    std::vector<int32_t> output_of(nregs, -1);
    std::vector<uint8_t*> out_base(p.outputs.size(), nullptr);
    for (size_t j = 0; j < p.outputs.size(); ++j) {
      const uint16_t r = p.outputs[j];
      output_of[r] = static_cast<int32_t>(j);
      if (red && r > red->out) continue;
      if (!preset.empty() && preset[j]) {
        out_base[j] = static_cast<uint8_t*>(as_cpu(preset[j], "fused")->raw());
        outs[j] = preset[j];
        continue;
      }
      CpuPtr t = alloc(red && r == red->out ? red_shape : p.shape, p.reg_dtype[r]);
      out_base[j] = static_cast<uint8_t*>(t->raw());
      outs[j] = std::move(t);
    }
    const int64_t total = p.shape.num_elements();
    // The fusion stream records no reduction of an empty tensor (it runs them eagerly, for their errors).
    if (total == 0 && red) throw Error(op_info(red->op).name, "internal: a fused reduction over an empty tensor");
    if (total == 0) return outs;
    const Prologue pro(p, inputs, rk, red ? red->args[0] : -1, output_of, out_base);
    if (!red) {
      parallel_for(total, std::max<int64_t>(kFusedTile, kElementwiseGrain), [&](int64_t b, int64_t e) {
        Prologue::Ctx ctx = pro.context();
        pro.eval(ctx, b, e - b, -1, nullptr);
      });
      return outs;
    }
    // The reduce's result: an output, or a temporary that only the epilogue reads.
    Prim red_t = output_of[red->out] >= 0 ? outs[output_of[red->out]] : alloc(red_shape, p.reg_dtype[red->out]);
    run_reduce(p, *red, pro, inputs, as_cpu(red_t, "fused")->raw());
    if (rk + 1 < p.code.size()) run_epilogue(p, rk, red_t, inputs, outs, false);
    return outs;
  }

  // A matmul or conv anchor: the eager kernel writes its result, then the epilogue runs over it as one
  // elementwise pass. When nobody keeps the anchor's result, one epilogue output is written over it.
  // A conv whose epilogue is a residual add, a relu or both runs them inside the conv kernel, per tile.
  Prims run_anchored(const FusedProgram& p, const Prims& inputs) {
    if (Prim y = conv_in_kernel(p, inputs)) return Prims{y};
    const FusedInstr& an = p.code[0];
    CpuPtr t = run_anchor(p, an, inputs);
    Prims outs(p.outputs.size());
    bool stored = false;
    for (size_t j = 0; j < p.outputs.size(); ++j)
      if (p.outputs[j] == an.out) {
        outs[j] = t;
        stored = true;
      }
    if (p.code.size() > 1) run_epilogue(p, 0, t, inputs, outs, !stored);
    return outs;
  }

  // The conv anchors whose epilogue conv_with_epilogue takes: conv then relu, + r, or + r then relu, with
  // only the last register stored and r an input of the result's shape; null for any other program.
  static Prim conv_in_kernel(const FusedProgram& p, const Prims& inputs) {
    const FusedInstr& an = p.code[0];
    if (an.op != OpId::conv || p.code.size() > 3 || p.outputs.size() != 1 || p.outputs[0] != p.code.back().out)
      return nullptr;
    Prim residual;
    uint16_t prev = an.out;
    bool relu = false;
    for (size_t k = 1; k < p.code.size(); ++k) {
      const FusedInstr& in = p.code[k];
      if (in.op == OpId::add && in.n_args == 2 && !residual && !relu) {
        const uint16_t other = in.args[0] == prev ? in.args[1] : in.args[1] == prev ? in.args[0] : kNoRegister;
        if (other >= p.num_inputs) return nullptr;
        residual = inputs[other];
      } else if (in.op == OpId::relu && in.n_args == 1 && in.args[0] == prev && !relu) {
        relu = true;
      } else {
        return nullptr;
      }
      if (p.reg_dtype[in.out] != DType::F32) return nullptr;
      prev = in.out;
    }
    if (!residual && !relu) return nullptr;
    Prim y = conv_with_epilogue(anchor_arg(an, inputs, 0), anchor_arg(an, inputs, 1), anchor_arg(an, inputs, 2),
                                an.conv, residual, relu);
    if (y && y->shape() != p.shape) throw Error("conv", "internal: the conv's result does not match the fused program");
    return y;
  }

  // The instructions after the reduce (or anchor): one elementwise program over its result, whose
  // registers are that result, the inputs the epilogue reads, then the epilogue's own. With
  // `overwrite`, the result is ours alone and one output of its dtype may be written over it, provided
  // no instruction after that output's reads the result.
  void run_epilogue(const FusedProgram& p, size_t rk, const Prim& red_t, const Prims& inputs, Prims& outs,
                    bool overwrite) {
    const FusedInstr& red = p.code[rk];
    FusedProgram ep;
    ep.shape = red_t->shape();
    std::vector<int32_t> map(p.reg_dtype.size(), -1);
    Prims ep_in{red_t};
    map[red.out] = 0;
    ep.reg_dtype.push_back(p.reg_dtype[red.out]);
    for (size_t k = rk + 1; k < p.code.size(); ++k)
      for (size_t q = 0; q < p.code[k].n_args; ++q) {
        const uint16_t a = p.code[k].args[q];
        if (a < p.num_inputs && map[a] < 0) {
          map[a] = static_cast<int32_t>(ep_in.size());
          ep_in.push_back(inputs[a]);
          ep.reg_dtype.push_back(p.reg_dtype[a]);
        }
      }
    ep.num_inputs = ep_in.size();
    for (size_t k = rk + 1; k < p.code.size(); ++k) {
      FusedInstr in = p.code[k];
      for (size_t q = 0; q < in.n_args; ++q) in.args[q] = static_cast<uint16_t>(map[in.args[q]]);
      in.out = static_cast<uint16_t>(ep.reg_dtype.size());
      map[p.code[k].out] = in.out;
      ep.reg_dtype.push_back(p.reg_dtype[p.code[k].out]);
      ep.code.push_back(in);
    }
    std::vector<size_t> which;
    for (size_t j = 0; j < p.outputs.size(); ++j)
      if (p.outputs[j] > red.out) {
        ep.outputs.push_back(static_cast<uint16_t>(map[p.outputs[j]]));
        which.push_back(j);
      }
    Prims preset;
    if (overwrite) {
      for (size_t i = 0; i < ep.outputs.size() && preset.empty(); ++i) {
        const uint16_t r = ep.outputs[i];
        if (ep.reg_dtype[r] != ep.reg_dtype[0]) continue;
        bool read_after = false;
        for (size_t k = r - ep.num_inputs + 1; k < ep.code.size(); ++k)
          for (size_t q = 0; q < ep.code[k].n_args; ++q) read_after = read_after || ep.code[k].args[q] == 0;
        if (read_after) continue;
        preset.assign(ep.outputs.size(), nullptr);
        preset[i] = red_t;
      }
    }
    Prims eo = run_program(ep, ep_in, preset);
    for (size_t i = 0; i < which.size(); ++i) outs[which[i]] = std::move(eo[i]);
  }
};

}  // namespace

bool f32_instruction_supported(const FusedInstr& in) { return supported(in, kF32Registers); }

void run_f32_instruction(const FusedInstr& in, void* const* ptr, int64_t n) { exec(in, kF32Registers, ptr, n); }

FusedExecutor& fused_executor() {
  static CpuFusedExecutor executor;
  return executor;
}

}  // namespace burn::cpu
