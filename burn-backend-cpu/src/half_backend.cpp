// f16 and bf16 compute on the cpu plugin, with the f32 kernels and no second family of math: every op
// runs in f32 on the widened values and its float results are rounded once to the input's format
// (round to nearest even, NaN kept and quiet); reductions, GEMM and convolution accumulate in f32
// because they are the f32 kernels. The plugin's backend is this decorator around CpuBackend, routing
// each op of the table one of four ways:
//   native:  the kernel copies element bits (creation, layout, gather, mask_where, embedding, ...): straight
//            through;
//   tile:    elementwise ops (numeric, compare, float_math, activation): an op that is one instruction of
//            the fused executor (fused_instr.hpp: add, exp, gelu, the comparisons, ...) runs in one parallel
//            split over the output, each task widening L1-sized tiles of its operands (broadcast and
//            strided ones gathered first) into stack buffers, running the instruction's f32 loop on them
//            and narrowing the result into the output (bf16 simple maps and exp over contiguous operands: one loop
//            widening, computing and rounding in registers, half_map.hpp); the others (atan2, powf, is_nan, ...) run
//            the whole f32 op on tiles of kWideningTile elements of contiguous operands. Either way the data crosses
//            memory once, in its 16-bit form;
//   reduce:  sum, mean, prod, max, min (all and _dim), argmax, argmin: the f32 reduction kernel reads the
//            input through a source that widens each span into a small buffer (reduce_widened, ops/reduce.cpp;
//            bf16 sums, products and extremes read in place, each element widened as the kernel's loop loads
//            it): the same folds in the same order as on the widened tensor, one pass over the 16-bit input;
//   promote: everything else (and tile ops over broadcast or strided operands): the inputs are widened
//            to f32 tensors (panels for GEMM and convolution are the whole operands), the f32 op runs,
//            its float outputs are narrowed.
// Conversions are half_convert.hpp's, chosen at run time.
#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "burn/tensor/shape_rules.hpp"
#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "elementwise.hpp"
#include "fused_instr.hpp"
#include "half_convert.hpp"
#include "half_map.hpp"

namespace burn::cpu {

namespace {

enum class HalfRoute : uint8_t { Native, Tile, Promote };

// Elements per tile: 32 KiB of f32 per operand, so a tile's buffers stay in L1/L2 between the widening,
// the f32 kernel and the narrowing.
constexpr int64_t kWideningTile = 8192;
// Tiles per parallel task: 64k elements, as the f32 elementwise loops' grain.
constexpr int64_t kTilesPerTask = 8;
// Elements per tile of the instruction route: 4 KiB of f32 per buffer, so an instruction's operands, its
// result and the staged 16-bit gather (18 KiB) stay in L1 from the widening to the narrowing.
constexpr int64_t kInstrTile = 1024;

HalfRoute route_of(OpId op) {
  static const std::array<HalfRoute, kOpCount> table = [] {
    std::array<HalfRoute, kOpCount> t{};
    for (const OpInfo& info : all_ops()) {
      HalfRoute r = HalfRoute::Promote;
      switch (info.group) {
        case OpGroup::layout: r = HalfRoute::Native; break;
        case OpGroup::numeric:
        case OpGroup::compare:
        case OpGroup::float_math:
        case OpGroup::activation: r = HalfRoute::Tile; break;
        default: break;
      }
      switch (info.id) {
        case OpId::empty:
        case OpId::full:
        case OpId::from_data:
        case OpId::into_data:
        case OpId::cast:
        case OpId::gather:
        case OpId::select:
        case OpId::mask_where:
        case OpId::mask_fill:
        case OpId::argwhere:
        case OpId::embedding: r = HalfRoute::Native; break;
        // Not elementwise: a row (softmax) or the whole operands (matmul) make each output.
        case OpId::matmul:
        case OpId::softmax:
        case OpId::log_softmax: r = HalfRoute::Promote; break;
        default: break;
      }
      t[static_cast<size_t>(info.id)] = r;
    }
    return t;
  }();
  return table[static_cast<size_t>(op)];
}

template <typename T>
constexpr bool is_prim_v = std::is_same_v<std::decay_t<T>, Prim>;

// The half dtype among an op's tensor and dtype arguments, kept in `h` (F32 when none).
template <typename T>
void find_half(const T& a, DType& h) {
  using U = std::decay_t<T>;
  if constexpr (std::is_same_v<U, Prim>) {
    if (a && is_half(a->dtype())) h = a->dtype();
  } else if constexpr (std::is_same_v<U, Prims>) {
    for (const Prim& p : a) find_half(p, h);
  } else if constexpr (std::is_same_v<U, DType>) {
    if (is_half(a)) h = a;
  }
}

// DTypeError when a float tensor argument is not of the half dtype `h`: f32 math would take it silently.
template <typename T>
void check_float_arg(const T& a, DType h, const char* op) {
  using U = std::decay_t<T>;
  if constexpr (std::is_same_v<U, Prim>) {
    if (a && is_float(a->dtype()) && a->dtype() != h)
      throw DTypeError(op, "operands mix " + std::string(dtype_name(h)) + " and " +
                               std::string(dtype_name(a->dtype())) + ": float operands must have one dtype");
  } else if constexpr (std::is_same_v<U, Prims>) {
    for (const Prim& p : a) check_float_arg(p, h, op);
  }
}

// Index of argument J among the Prim arguments (the tile buffers are numbered so).
template <size_t N>
constexpr size_t prim_rank(const std::array<bool, N>& is_prim, size_t j) {
  size_t k = 0;
  for (size_t i = 0; i < j; ++i) k += is_prim[i] ? 1 : 0;
  return k;
}

class CpuHalfBackend final : public ForwardingBackend {
 public:
  explicit CpuHalfBackend(BackendPtr inner) : ForwardingBackend(std::move(inner)) {}

  std::string name() const override { return inner()->name(); }

  bool supports(OpId op, DType dtype) const override {
    if (!is_half(dtype) || route_of(op) == HalfRoute::Native) return inner()->supports(op, dtype);
    return inner()->supports(op, DType::F32);
  }

#define BURN_X_HALF(group, name, tier, grad, bound, ret, ...)                                              \
  ret name BURN_OP_PARAMS(__VA_ARGS__) override {                                                          \
    return route<ret>(                                                                                     \
        OpId::name, [this](auto&&... a) -> ret { return inner()->name(std::forward<decltype(a)>(a)...); }, \
        BURN_OP_ARG_LIST(__VA_ARGS__));                                                                    \
  }
  BURN_OP_TABLE(BURN_X_HALF)
#undef BURN_X_HALF

 protected:
  std::string decorator_name() const override { return "half"; }

 private:
  template <typename Ret, typename Call, typename... A>
  Ret route(OpId op, Call&& call, A&&... args) {
    const HalfRoute r = route_of(op);
    if (r == HalfRoute::Native) return call(std::forward<A>(args)...);
    DType h = DType::F32;
    (find_half(args, h), ...);
    if (h == DType::F32) return call(std::forward<A>(args)...);
    const char* name = op_info(op).name;
    // quantized_linear's weight scales are f32 whatever x's dtype (its contract); its x and bias are checked alike
    // by the tensor api.
    if (op != OpId::quantized_linear) (check_float_arg(args, h, name), ...);
    if constexpr (std::is_same_v<Ret, Prim>) {
      if (r == HalfRoute::Tile) {
        if (const std::optional<FusedInstr> in = instruction_of(op, args...))
          if (Prim out = run_instruction(*in, h, args...)) return out;
        if (tileable(args...)) return run_tiles(op, h, call, args...);
      }
      if (Prim out = reduction(op, args...)) return narrow(std::move(out), h);
    }
    return narrow(call(widen(std::forward<A>(args))...), h);
  }

  // A reduction of one half tensor by the f32 kernel over widened spans (reduce_widened); null for other ops.
  template <typename... A>
  static Prim reduction(OpId op, const A&... args) {
    using Args = std::tuple<std::decay_t<A>...>;
    if constexpr (std::is_same_v<Args, std::tuple<Prim>>) {
      return reduce_widened(op, args..., 0);
    } else if constexpr (std::is_same_v<Args, std::tuple<Prim, size_t>>) {
      const auto& [x, dim] = std::tie(args...);
      return reduce_widened(op, x, dim);
    } else {
      return nullptr;
    }
  }

  // An argument of the f32 call: half tensors widened, a half dtype argument made f32.
  template <typename T>
  decltype(auto) widen(T&& a) {
    using U = std::decay_t<T>;
    if constexpr (std::is_same_v<U, Prim>) {
      return a && is_half(a->dtype()) ? inner()->cast(std::forward<T>(a), DType::F32) : Prim(std::forward<T>(a));
    } else if constexpr (std::is_same_v<U, Prims>) {
      Prims out;
      out.reserve(a.size());
      for (const Prim& p : a) out.push_back(p && is_half(p->dtype()) ? inner()->cast(p, DType::F32) : p);
      return out;
    } else if constexpr (std::is_same_v<U, DType>) {
      return is_half(a) ? DType::F32 : a;
    } else {
      return std::forward<T>(a);
    }
  }

  // The f32 call's float outputs rounded to `h`.
  Prim narrow(Prim r, DType h) { return r && r->dtype() == DType::F32 ? inner()->cast(std::move(r), h) : r; }
  PrimPair narrow(PrimPair r, DType h) { return {narrow(std::move(r.first), h), narrow(std::move(r.second), h)}; }
  Prims narrow(Prims r, DType h) {
    for (Prim& p : r) p = narrow(std::move(p), h);
    return r;
  }
  TensorData narrow(TensorData r, DType) { return r; }  // into_data is native; never promoted

  // The op as a lone f32 instruction of the fused executor (fused_instr.hpp), when it is one: its tensor
  // operands are registers 0.., its scalars, doubles and dtype parameter as the fusion decorator records them.
  template <typename... A>
  static std::optional<FusedInstr> instruction_of(OpId op, const A&... args) {
    FusedInstr in{};
    in.op = op;
    size_t n_scalars = 0, n_params = 0;
    bool ok = true;
    auto visit = [&](const auto& a) {
      using U = std::decay_t<decltype(a)>;
      if constexpr (std::is_same_v<U, Prim>) {
        if (in.n_args == 3)
          ok = false;
        else
          in.args[in.n_args] = in.n_args, ++in.n_args;
      } else if constexpr (std::is_same_v<U, Scalar>) {
        if (n_scalars == 2)
          ok = false;
        else
          in.scalars[n_scalars++] = a;
      } else if constexpr (std::is_same_v<U, double>) {
        if (n_params == 2)
          ok = false;
        else
          in.params[n_params++] = a;
      } else if constexpr (std::is_same_v<U, DType>) {
        in.param_dtype = a;
      } else {
        ok = false;  // an argument the instruction cannot carry (an axis, a bool): the op's own path
      }
    };
    (visit(args), ...);
    if (!ok || in.n_args == 0) return std::nullopt;
    in.out = in.n_args;
    if (!f32_instruction_supported(in)) return std::nullopt;
    return in;
  }

  // The instruction route: one parallel split over the output; each task widens a tile of every operand
  // (gathered first when strided or broadcast) into buffers on its stack, runs the f32 instruction on them
  // and narrows its result into the output. Null when the operands do not fit it (not cpu tensors, not all of
  // dtype h, shapes that do not broadcast: the f32 op reports those with its own name).
  template <typename... A>
  Prim run_instruction(const FusedInstr& in, DType h, const A&... args) {
    std::array<const CpuTensor*, 3> src{};
    size_t k = 0;
    bool ok = true;
    std::optional<Shape> out_shape;
    auto visit = [&](const auto& a) {
      if constexpr (std::is_same_v<std::decay_t<decltype(a)>, Prim>) {
        const CpuTensor* t = a ? dynamic_cast<const CpuTensor*>(a.get()) : nullptr;
        if (!t || t->dtype() != h) {
          ok = false;
          return;
        }
        src[k++] = t;
        if (ok) out_shape = out_shape ? shape_rules::try_broadcast(*out_shape, t->shape()) : t->shape();
        if (!out_shape) ok = false;
      }
    };
    (visit(args), ...);
    if (!ok || !out_shape) return nullptr;
    const Shape& shape = *out_shape;
    const int64_t n = shape.num_elements();
    const bool to_bool = op_info(in.op).group == OpGroup::compare;
    CpuPtr out = alloc(shape, to_bool ? DType::Bool : h);
    if (n == 0) return out;
    enum class Feed : uint8_t { Flat, Single, Strided };
    std::array<Feed, 3> feed{};
    std::array<std::vector<int64_t>, 3> strides;
    std::array<float, 3> single{};
    for (size_t i = 0; i < in.n_args; ++i) {
      const CpuTensor& t = *src[i];
      if (t.is_contiguous() && t.shape() == shape) {
        feed[i] = Feed::Flat;
      } else if (t.shape().num_elements() == 1) {
        feed[i] = Feed::Single;
        widen_to_f32(h, t.template data<uint16_t>(), &single[i], 1);
      } else {
        feed[i] = Feed::Strided;
        strides[i] = broadcast_strides(t, shape);
      }
    }
    uint8_t* const obase = out->template data<uint8_t>();
    const HalfIsa isa = half_isa();
    if (h == DType::BF16 && bf16_map_supported(in, isa) &&
        std::all_of(feed.begin(), feed.begin() + in.n_args, [](Feed f) { return f == Feed::Flat; })) {
      // The simple maps and exp over contiguous operands: widening, op and rounding in registers (half_map.hpp).
      parallel_for(n, kElementwiseGrain, [&](int64_t s, int64_t e) {
        const uint16_t* x[3] = {};
        for (size_t i = 0; i < in.n_args; ++i) x[i] = src[i]->template data<uint16_t>() + s;
        run_bf16_map(in, isa, x, reinterpret_cast<uint16_t*>(obase) + s, e - s);
      });
      return out;
    }
    parallel_for(n, kElementwiseGrain, [&](int64_t s, int64_t e) {
      alignas(64) float buf[4][kInstrTile];
      alignas(64) uint16_t staged[kInstrTile];
      void* ptr[4] = {buf[0], buf[1], buf[2], buf[3]};
      for (size_t i = 0; i < in.n_args; ++i)
        if (feed[i] == Feed::Single) std::fill(buf[i], buf[i] + kInstrTile, single[i]);
      for (int64_t b = s; b < e; b += kInstrTile) {
        const int64_t len = std::min(kInstrTile, e - b);
        for (size_t i = 0; i < in.n_args; ++i) {
          const uint16_t* x = src[i]->template data<uint16_t>();
          if (feed[i] == Feed::Flat) {
            widen_to_f32(h, x + b, buf[i], len);
          } else if (feed[i] == Feed::Strided) {
            gather_strided(x, strides[i], shape, b, len, staged);
            widen_to_f32(h, staged, buf[i], len);
          }
        }
        if (to_bool) {
          ptr[in.out] = obase + b;  // the comparison writes its bytes straight into the output
          run_f32_instruction(in, ptr, len);
        } else {
          run_f32_instruction(in, ptr, len);
          narrow_from_f32(h, buf[in.out], reinterpret_cast<uint16_t*>(obase) + b, len);
        }
      }
    });
    return out;
  }

  // Tiles cover the op when every tensor operand is contiguous and either the output's size (its layout
  // is then the output's, whatever the ranks) or a single element (broadcast to every tile).
  template <typename... A>
  static bool tileable(const A&... args) {
    bool ok = true;
    Shape out;
    bool first = true;
    auto visit = [&](const auto& a) {
      if constexpr (std::is_same_v<std::decay_t<decltype(a)>, Prim>) {
        if (!a || !ok) {
          ok = false;
          return;
        }
        const CpuTensor* t = dynamic_cast<const CpuTensor*>(a.get());
        if (!t || !t->is_contiguous()) ok = false;
        out = first ? a->shape() : shape_rules::broadcast(out, a->shape(), "half tiles");
        first = false;
      }
    };
    try {
      (visit(args), ...);
    } catch (const Error&) {
      return false;  // shapes that do not broadcast: the f32 op says so, with its own name
    }
    if (!ok || first) return false;
    const int64_t n = out.num_elements();
    auto sized = [&](const auto& a) {
      if constexpr (std::is_same_v<std::decay_t<decltype(a)>, Prim>) {
        const int64_t m = a->shape().num_elements();
        if (m != n && m != 1) ok = false;
      }
    };
    (sized(args), ...);
    return ok;
  }

  // The tile route: the output is allocated in its final dtype, and each tile's f32 result is narrowed
  // (float) or copied (bool) into it.
  template <typename Call, typename... A>
  Prim run_tiles(OpId op, DType h, Call& call, A&... args) {
    constexpr size_t kPrims = (size_t{0} + ... + (is_prim_v<A> ? 1 : 0));
    std::array<const CpuTensor*, kPrims> src{};
    std::array<Prim, kPrims> single{};  // a one-element operand, widened once and shared by every tile
    Shape out_shape;
    {
      size_t k = 0;
      bool first = true;
      auto visit = [&](const auto& a) {
        if constexpr (std::is_same_v<std::decay_t<decltype(a)>, Prim>) {
          src[k++] = static_cast<const CpuTensor*>(a.get());
          out_shape = first ? a->shape() : shape_rules::broadcast(out_shape, a->shape(), op_info(op).name);
          first = false;
        }
      };
      (visit(args), ...);
    }
    const int64_t n = out_shape.num_elements();
    for (size_t k = 0; k < kPrims; ++k)
      if (src[k]->shape().num_elements() == 1 && n != 1) {
        CpuPtr one = alloc(Shape{1}, DType::F32);
        widen_to_f32(h, src[k]->template data<uint16_t>(), one->template data<float>(), 1);
        single[k] = one;
      }
    const OpGroup group = op_info(op).group;
    const bool to_bool = group == OpGroup::compare || op == OpId::is_nan || op == OpId::is_inf || op == OpId::is_finite;
    const DType out_dtype = to_bool ? DType::Bool : h;
    CpuPtr out = alloc(out_shape, out_dtype);
    if (n == 0) return out;
    const int64_t tiles = (n + kWideningTile - 1) / kWideningTile;
    // The first operand that is not a single element is moved into the op, which may then write its result
    // there; that result, or the buffer the op allocated, is the operand's buffer for the next tile.
    size_t owned = kPrims;
    for (size_t k = 0; k < kPrims && owned == kPrims; ++k)
      if (!single[k]) owned = k;
    parallel_for(tiles, kTilesPerTask, [&](int64_t t0, int64_t t1) {
      std::array<CpuPtr, kPrims> bufs{};  // this task's f32 buffers, one per operand, reused tile after tile
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t begin = t * kWideningTile, len = std::min(kWideningTile, n - begin);
        std::array<Prim, kPrims> tile;
        for (size_t k = 0; k < kPrims; ++k) {
          if (single[k]) {
            tile[k] = single[k];
            continue;
          }
          if (!bufs[k] || bufs[k]->shape().num_elements() != len) bufs[k] = alloc(Shape{len}, DType::F32);
          widen_to_f32(h, src[k]->template data<uint16_t>() + begin, bufs[k]->template data<float>(), len);
          if (k == owned)
            tile[k] = std::move(bufs[k]);
          else
            tile[k] = bufs[k];
        }
        Prim r = call_tile(call, tile, std::index_sequence_for<A...>{}, args...);
        CpuPtr rt = as_cpu(r, op_info(op).name);
        r.reset();
        const DType rd = rt->dtype();
        if (rt->shape().num_elements() != len || !rt->is_contiguous() || (rd != DType::F32 && rd != out_dtype))
          throw Error(op_info(op).name, "internal: the f32 op's tile result does not match the half output");
        if (rd == DType::F32)
          narrow_from_f32(h, rt->template data<float>(), out->template data<uint16_t>() + begin, len);
        else
          std::memcpy(out->template data<uint8_t>() + begin * static_cast<int64_t>(dtype_size(rd)), rt->raw(),
                      static_cast<size_t>(len) * dtype_size(rd));
        // Adopt the result as the owned operand's next buffer unless it shares storage with another one.
        bool distinct = rd == DType::F32 && owned < kPrims;
        for (size_t k = 0; k < kPrims && distinct; ++k) {
          if (k == owned) continue;
          const CpuPtr other = bufs[k] ? bufs[k] : std::static_pointer_cast<CpuTensor>(single[k]);
          if (other && other->storage() == rt->storage()) distinct = false;
        }
        if (distinct) bufs[owned] = std::move(rt);
      }
    });
    return out;
  }

  // call(args...) with the Prim arguments replaced, in order, by the tile's f32 buffers.
  template <typename Call, size_t N, typename... A, size_t... I>
  static Prim call_tile(Call& call, std::array<Prim, N>& tile, std::index_sequence<I...>, A&... args) {
    constexpr std::array<bool, sizeof...(A) + 1> is_prim{is_prim_v<A>..., false};
    auto pick = [&]<size_t J, typename T>(T& a) -> decltype(auto) {
      if constexpr (is_prim[J])
        return std::move(tile[prim_rank(is_prim, J)]);
      else
        return static_cast<const T&>(a);
    };
    return call(pick.template operator()<I>(args)...);
  }
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuHalfBackend>(std::make_shared<CpuBackend>()); }

}  // namespace burn::cpu
