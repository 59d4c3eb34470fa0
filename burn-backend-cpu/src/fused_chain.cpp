// Compiled with -ffp-contract=off (CMakeLists.txt): a multiply and the add after it are two eager ops
// with two roundings, and must not become one FMA here.
#include "fused_chain.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>

#include "elementwise.hpp"
#include "ops/elementwise_fns.hpp"
#include "ops/simd_avx2.hpp"

namespace burn::cpu {
namespace {

enum ChainOp : uint8_t {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMax,
  kMin,  // with a tensor operand
  kAddS,
  kSubS,
  kMulS,
  kDivS,  // with a scalar
  kNeg,
  kAbs,
  kClamp,
  kClampMin,
  kClampMax,
  kRelu,
  kLeakyRelu,
  kSquare,
  kRecip,
  kSqrt,
  kFloor,
  kCeil,
  kTrunc,
  kRound,
  kExp,
  kKernel,  // the eager f32 loop over the block, through a buffer: ops whose vector form is GCC's
  kCmpEq,
  kCmpNe,
  kCmpLt,
  kCmpLe,
  kCmpGt,
  kCmpGe,     // the chain against a scalar: a mask (all ones or zero per lane), read by a kMaskFill next
  kMaskFill,  // an input register where the chain's mask is clear, the scalar where it is set
};

constexpr int kVecs = 8;  // ymm vectors per block: 64 floats, all held in registers
constexpr int64_t kBlock = 8 * kVecs;
constexpr int64_t kPrefetchAhead = 1024;  // elements (4 KiB of f32) ahead of the block being computed

bool binary(ChainOp k) { return k <= kMin || k == kMaskFill; }
bool comparison(ChainOp k) { return k >= kCmpEq && k <= kCmpGe; }

// The chain op of an instruction, if it has a register form.
std::optional<ChainOp> chain_op(OpId op) {
  switch (op) {
    case OpId::add: return kAdd;
    case OpId::sub: return kSub;
    case OpId::mul: return kMul;
    case OpId::div: return kDiv;
    case OpId::maximum: return kMax;
    case OpId::minimum: return kMin;
    case OpId::add_scalar: return kAddS;
    case OpId::sub_scalar: return kSubS;
    case OpId::mul_scalar: return kMulS;
    case OpId::div_scalar: return kDivS;
    case OpId::neg: return kNeg;
    case OpId::abs: return kAbs;
    case OpId::clamp: return kClamp;
    case OpId::clamp_min: return kClampMin;
    case OpId::clamp_max: return kClampMax;
    case OpId::relu: return kRelu;
    case OpId::leaky_relu: return kLeakyRelu;
    case OpId::square: return kSquare;
    case OpId::recip: return kRecip;
    case OpId::sqrt: return kSqrt;
    case OpId::floor: return kFloor;
    case OpId::ceil: return kCeil;
    case OpId::trunc: return kTrunc;
    case OpId::round: return kRound;
    case OpId::exp: return kExp;
    case OpId::sigmoid:
    case OpId::silu:
    case OpId::log:
    case OpId::tanh:
    case OpId::erf:
    case OpId::gelu:
    case OpId::gelu_tanh: return kKernel;
    case OpId::equal_elem: return kCmpEq;
    case OpId::not_equal_elem: return kCmpNe;
    case OpId::lower_elem: return kCmpLt;
    case OpId::lower_equal_elem: return kCmpLe;
    case OpId::greater_elem: return kCmpGt;
    case OpId::greater_equal_elem: return kCmpGe;
    case OpId::mask_fill: return kMaskFill;
    default: return std::nullopt;
  }
}

bool chain_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("BURN_CPU_FUSED_CHAIN");
    return cpu_has_avx2_fma() && !(v && std::strcmp(v, "off") == 0);
  }();
  return on;
}

}  // namespace

std::optional<ChainPlan> plan_chain(const FusedProgram& p, size_t ncode, const std::vector<uint8_t>& stored) {
  if (ncode == 0 || ncode > p.code.size() || !chain_enabled()) return std::nullopt;
  const size_t nin = p.num_inputs, nregs = p.reg_dtype.size();
  std::vector<int32_t> reads(nregs, 0);
  // Registers are f32, but for a comparison's mask (checked below: it lives in the chain only).
  for (size_t k = 0; k < ncode; ++k)
    for (size_t q = 0; q < p.code[k].n_args; ++q) {
      const uint16_t a = p.code[k].args[q];
      if (a >= nregs || (p.reg_dtype[a] != DType::F32 && (a < nin || p.reg_dtype[a] != DType::Bool)))
        return std::nullopt;
      ++reads[a];
    }
  ChainPlan plan;
  for (size_t k = 0; k < ncode; ++k) {
    const FusedInstr& in = p.code[k];
    const size_t r = nin + k;
    const std::optional<ChainOp> op = chain_op(in.op);
    if (!op || p.reg_dtype[r] != (comparison(*op) ? DType::Bool : DType::F32) || in.n_args != (binary(*op) ? 2 : 1))
      return std::nullopt;
    // A mask goes straight into the next instruction, a mask_fill of an f32 input where it is set;
    // a mask_fill's mask is that chain (its tensor operand is an input, never a mask).
    if (comparison(*op) && (stored[r] || k + 1 >= ncode || p.code[k + 1].op != OpId::mask_fill ||
                            p.code[k + 1].args[1] != r || p.code[k + 1].args[0] == r))
      return std::nullopt;
    if (*op == kMaskFill && (k == 0 || in.args[1] != r - 1 || !comparison(*chain_op(p.code[k - 1].op))))
      return std::nullopt;
    ChainStep st;
    st.kind = *op;
    // The chain so far: the source for the first instruction, else the one before.
    const int64_t chain = k == 0 ? -1 : static_cast<int64_t>(r - 1);
    const uint16_t a0 = in.args[0], a1 = in.n_args > 1 ? in.args[1] : 0;
    if (k == 0) {
      if (a0 >= nin || (binary(*op) && a1 >= nin)) return std::nullopt;
      plan.source = a0;
      if (binary(*op)) st.operand = a1 == a0 ? -1 : a1;
    } else if (!binary(*op)) {
      if (a0 != chain) return std::nullopt;
    } else if (a0 == chain && a1 == chain) {
      st.operand = -1;
    } else if (a0 == chain && a1 < nin) {
      st.operand = a1;
    } else if (a1 == chain && a0 < nin) {
      st.operand = a0;
      st.chain_lhs = false;
    } else {
      return std::nullopt;
    }
    // Every intermediate is read by the next instruction only: otherwise it would have to live on.
    if (k + 1 < ncode) {
      int32_t next_reads = 0;
      for (size_t q = 0; q < p.code[k + 1].n_args; ++q) next_reads += p.code[k + 1].args[q] == r;
      if (next_reads == 0 || next_reads != reads[r]) return std::nullopt;
    } else if (!stored[r]) {
      return std::nullopt;
    }
    if (stored[r]) st.store = static_cast<int32_t>(r);
    if (k == 0) plan.inputs.push_back(plan.source);
    if (st.operand >= 0 && std::find(plan.inputs.begin(), plan.inputs.end(), st.operand) == plan.inputs.end())
      plan.inputs.push_back(static_cast<uint16_t>(st.operand));
    switch (in.op) {
      case OpId::add_scalar:
      case OpId::sub_scalar:
      case OpId::mul_scalar:
      case OpId::div_scalar:
      case OpId::clamp_min:
      case OpId::clamp_max:
      case OpId::equal_elem:
      case OpId::not_equal_elem:
      case OpId::lower_elem:
      case OpId::lower_equal_elem:
      case OpId::greater_elem:
      case OpId::greater_equal_elem:
      case OpId::mask_fill: st.c0 = scalar_as<float>(in.scalars[0]); break;
      case OpId::clamp:
        st.c0 = scalar_as<float>(in.scalars[0]);
        st.c1 = scalar_as<float>(in.scalars[1]);
        break;
      case OpId::leaky_relu: st.c0 = static_cast<float>(in.params[0]); break;
      // Their loops are GCC's vectorisation of the per-element function: calling them on the block
      // gives their bits whatever the block's length, as the tile interpreter relies on too.
      case OpId::sigmoid: st.kernel = sigmoid_f32; break;
      case OpId::silu: st.kernel = silu_f32; break;
      case OpId::log: st.kernel = log_f32; break;
      case OpId::tanh: st.kernel = tanh_f32; break;
      case OpId::erf: st.kernel = erf_f32; break;
      case OpId::gelu: st.kernel = gelu_f32; break;
      case OpId::gelu_tanh: st.kernel = gelu_tanh_f32; break;
      default: break;
    }
    plan.steps.push_back(st);
  }
  return plan;
}

// The kernels: every function here, lambdas included, is compiled for AVX2 and FMA, and runs only
// where plan_chain found them (chain_enabled()).
#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace {

template <bool kTail>
[[gnu::always_inline]] inline __m256 load(const float* p, const __m256i* mask, int j) {
  if constexpr (kTail)
    return _mm256_maskload_ps(p + 8 * j, mask[j]);
  else
    return _mm256_loadu_ps(p + 8 * j);
}

template <bool kTail>
[[gnu::always_inline]] inline void store(float* p, __m256 x, const __m256i* mask, int j) {
  if constexpr (kTail)
    _mm256_maskstore_ps(p + 8 * j, mask[j], x);
  else
    _mm256_storeu_ps(p + 8 * j, x);
}

// max_of / min_of (elementwise_fns.hpp): a NaN on the left wins; maxps/minps would return the right.
[[gnu::always_inline]] inline __m256 max_v(__m256 a, __m256 b) {
  return _mm256_blendv_ps(_mm256_max_ps(a, b), a, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
}
[[gnu::always_inline]] inline __m256 min_v(__m256 a, __m256 b) {
  return _mm256_blendv_ps(_mm256_min_ps(a, b), a, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
}

// A block's eight vectors are eight locals passed by reference (not an array, which GCC keeps on the
// stack): once inlined, each is a ymm register for the whole chain.
#define BURN_CHAIN_V8 __m256 &v0, __m256 &v1, __m256 &v2, __m256 &v3, __m256 &v4, __m256 &v5, __m256 &v6, __m256 &v7
#define BURN_CHAIN_EACH(S) S(0) S(1) S(2) S(3) S(4) S(5) S(6) S(7)

// v_j = f(v_j, j) for each vector.
template <typename F>
[[gnu::always_inline]] inline void each(BURN_CHAIN_V8, F f) {
#define BURN_CHAIN_APPLY(j) v##j = f(v##j, j);
  BURN_CHAIN_EACH(BURN_CHAIN_APPLY)
#undef BURN_CHAIN_APPLY
}

template <bool kTail, typename F>
[[gnu::always_inline]] inline void zip(const ChainStep& st, void* const* ptr, int64_t i, const __m256i* mask,
                                       BURN_CHAIN_V8, F f) {
  if (st.operand < 0) return each(v0, v1, v2, v3, v4, v5, v6, v7, [&](__m256 x, int) { return f(x, x); });
  const float* o = static_cast<const float*>(ptr[st.operand]) + i;
  if (st.chain_lhs)
    each(v0, v1, v2, v3, v4, v5, v6, v7, [&](__m256 x, int j) { return f(x, load<kTail>(o, mask, j)); });
  else
    each(v0, v1, v2, v3, v4, v5, v6, v7, [&](__m256 x, int j) { return f(load<kTail>(o, mask, j), x); });
}

template <typename F>
[[gnu::always_inline]] inline void map(BURN_CHAIN_V8, F f) {
  each(v0, v1, v2, v3, v4, v5, v6, v7, [&](__m256 x, int) { return f(x); });
}

// Blocks [i, end) (kTail: the one block at i, lanes past `mask` neither read nor written).
template <bool kTail>
void chain_blocks(const ChainPlan& plan, void* const* ptr, int64_t i, int64_t end, const __m256i* mask) {
  const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
  const char* source_ahead = static_cast<const char*>(ptr[plan.source]) + kPrefetchAhead * 4;
  const bool more_inputs = plan.inputs.size() > 1;
#define V8 v0, v1, v2, v3, v4, v5, v6, v7
  for (; i < end; i += kBlock) {
    // The hardware prefetcher alone falls behind once an exp fills the reorder buffer between two
    // blocks' loads (16M exp chain, 2 threads: 6.8 -> 5.9 ms in a standalone loop); a prefetch retires
    // without waiting for its line, so these keep the reads in flight through the block's compute.
    // The source's lines outside the loop over the inputs: with the loop, a one-op exp chain ran 8%
    // slower (16M, 2 threads, 5 alternating rounds); the other inputs, when there are any, in it.
    if constexpr (!kTail) {
      for (int l = 0; l < kBlock * 4 / 64; ++l) _mm_prefetch(source_ahead + i * 4 + 64 * l, _MM_HINT_T0);
      if (more_inputs)
        for (size_t q = 1; q < plan.inputs.size(); ++q)
          for (int l = 0; l < kBlock * 4 / 64; ++l)
            _mm_prefetch(static_cast<const char*>(ptr[plan.inputs[q]]) + (i + kPrefetchAhead) * 4 + 64 * l,
                         _MM_HINT_T0);
    }
    const float* src = static_cast<const float*>(ptr[plan.source]) + i;
    __m256 v0, v1, v2, v3, v4, v5, v6, v7;
    each(v0, v1, v2, v3, v4, v5, v6, v7, [&](__m256, int j) { return load<kTail>(src, mask, j); });
    for (const ChainStep& st : plan.steps) {
      const __m256 c0 = _mm256_set1_ps(st.c0), c1 = _mm256_set1_ps(st.c1);
      switch (static_cast<ChainOp>(st.kind)) {
        case kAdd: zip<kTail>(st, ptr, i, mask, V8, [&](__m256 a, __m256 b) { return _mm256_add_ps(a, b); }); break;
        case kSub: zip<kTail>(st, ptr, i, mask, V8, [&](__m256 a, __m256 b) { return _mm256_sub_ps(a, b); }); break;
        case kMul: zip<kTail>(st, ptr, i, mask, V8, [&](__m256 a, __m256 b) { return _mm256_mul_ps(a, b); }); break;
        case kDiv: zip<kTail>(st, ptr, i, mask, V8, [&](__m256 a, __m256 b) { return _mm256_div_ps(a, b); }); break;
        case kMax: zip<kTail>(st, ptr, i, mask, V8, [&](__m256 a, __m256 b) { return max_v(a, b); }); break;
        case kMin: zip<kTail>(st, ptr, i, mask, V8, [&](__m256 a, __m256 b) { return min_v(a, b); }); break;
        case kAddS: map(V8, [&](__m256 x) { return _mm256_add_ps(x, c0); }); break;
        case kSubS: map(V8, [&](__m256 x) { return _mm256_sub_ps(x, c0); }); break;
        case kMulS: map(V8, [&](__m256 x) { return _mm256_mul_ps(x, c0); }); break;
        case kDivS: map(V8, [&](__m256 x) { return _mm256_div_ps(x, c0); }); break;
        case kNeg: map(V8, [&](__m256 x) { return _mm256_sub_ps(zero, x); }); break;
        // a < 0 ? 0 - a : a, so -0 stays -0 as abs_of keeps it.
        case kAbs:
          map(V8, [&](__m256 x) {
            return _mm256_blendv_ps(x, _mm256_sub_ps(zero, x), _mm256_cmp_ps(x, zero, _CMP_LT_OQ));
          });
          break;
        // maxps(lo, a) is a < lo ? lo : a exactly (a NaN a is returned); minps(hi, a) likewise.
        case kClamp: map(V8, [&](__m256 x) { return _mm256_min_ps(c1, _mm256_max_ps(c0, x)); }); break;
        case kClampMin: map(V8, [&](__m256 x) { return _mm256_max_ps(c0, x); }); break;
        case kClampMax: map(V8, [&](__m256 x) { return _mm256_min_ps(c0, x); }); break;
        case kRelu: map(V8, [&](__m256 x) { return _mm256_max_ps(zero, x); }); break;
        case kLeakyRelu:
          map(V8,
              [&](__m256 x) { return _mm256_blendv_ps(_mm256_mul_ps(x, c0), x, _mm256_cmp_ps(x, zero, _CMP_GT_OQ)); });
          break;
        case kSquare: map(V8, [&](__m256 x) { return _mm256_mul_ps(x, x); }); break;
        case kRecip: map(V8, [&](__m256 x) { return _mm256_div_ps(one, x); }); break;
        case kSqrt: map(V8, [&](__m256 x) { return _mm256_sqrt_ps(x); }); break;
        case kFloor:
          map(V8, [&](__m256 x) { return _mm256_round_ps(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); });
          break;
        case kCeil:
          map(V8, [&](__m256 x) { return _mm256_round_ps(x, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); });
          break;
        case kTrunc:
          map(V8, [&](__m256 x) { return _mm256_round_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); });
          break;
        case kRound:
          map(V8, [&](__m256 x) { return _mm256_round_ps(x, _MM_FROUND_CUR_DIRECTION | _MM_FROUND_NO_EXC); });
          break;
        case kExp: {
          // One range test for the block instead of exp8's one per vector (a block is rarely mixed): the
          // largest |x| as integer bits, where NaN counts as out of range, so no NaN hides a large lane.
          const __m256i abs_bits = _mm256_set1_epi32(0x7fffffff);
          const auto a = [&](__m256 v) { return _mm256_and_si256(_mm256_castps_si256(v), abs_bits); };
          const __m256i m =
              _mm256_max_epi32(_mm256_max_epi32(_mm256_max_epi32(a(v0), a(v1)), _mm256_max_epi32(a(v2), a(v3))),
                               _mm256_max_epi32(_mm256_max_epi32(a(v4), a(v5)), _mm256_max_epi32(a(v6), a(v7))));
          const __m256i limit = _mm256_set1_epi32(std::bit_cast<int32_t>(kExpNormal));
          if (_mm256_movemask_epi8(_mm256_cmpgt_epi32(m, limit)) == 0)
            map(V8, [&](__m256 x) { return exp8_normal(x); });
          else
            map(V8, [&](__m256 x) { return exp8_full_range(x); });
          break;
        }
        // The comparisons of with_elem_predicate on floats: false against NaN but for !=.
        case kCmpEq: map(V8, [&](__m256 x) { return _mm256_cmp_ps(x, c0, _CMP_EQ_OQ); }); break;
        case kCmpNe: map(V8, [&](__m256 x) { return _mm256_cmp_ps(x, c0, _CMP_NEQ_UQ); }); break;
        case kCmpLt: map(V8, [&](__m256 x) { return _mm256_cmp_ps(x, c0, _CMP_LT_OQ); }); break;
        case kCmpLe: map(V8, [&](__m256 x) { return _mm256_cmp_ps(x, c0, _CMP_LE_OQ); }); break;
        case kCmpGt: map(V8, [&](__m256 x) { return _mm256_cmp_ps(x, c0, _CMP_GT_OQ); }); break;
        case kCmpGe: map(V8, [&](__m256 x) { return _mm256_cmp_ps(x, c0, _CMP_GE_OQ); }); break;
        case kMaskFill:
          zip<kTail>(st, ptr, i, mask, V8, [&](__m256 x, __m256 m) { return _mm256_blendv_ps(x, c0, m); });
          break;
        case kKernel: {
          alignas(32) float in[kBlock], out[kBlock];
          each(V8, [&](__m256 x, int j) {
            _mm256_store_ps(in + 8 * j, x);
            return x;
          });
          st.kernel(in, out, kBlock);
          each(V8, [&](__m256, int j) { return _mm256_load_ps(out + 8 * j); });
          break;
        }
      }
      if (st.store >= 0) {
        float* d = static_cast<float*>(ptr[st.store]) + i;
        const bool stream = !kTail && st.stream && (reinterpret_cast<uintptr_t>(d) & 31) == 0;
        each(V8, [&](__m256 x, int j) {
          if (stream)
            _mm256_stream_ps(d + 8 * j, x);
          else
            store<kTail>(d, x, mask, j);
          return x;
        });
      }
    }
  }
}

#undef V8

void run_chain_avx2(const ChainPlan& plan, void* const* ptr, int64_t n) {
  const int64_t full = n / kBlock * kBlock;
  chain_blocks<false>(plan, ptr, 0, full, nullptr);
  if (full == n) return;
  __m256i mask[kVecs];
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (int j = 0; j < kVecs; ++j)
    mask[j] = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n - full) - 8 * j), lane);
  chain_blocks<true>(plan, ptr, full, full + 1, mask);
}

}  // namespace
#pragma GCC pop_options

void run_chain(const ChainPlan& plan, void* const* ptr, int64_t n) { run_chain_avx2(plan, ptr, n); }

void finish_chain(const ChainPlan& plan) {
  if (plan.streams) _mm_sfence();
}

}  // namespace burn::cpu
