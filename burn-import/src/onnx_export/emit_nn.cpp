// Emitters of matmul, the reductions, sorts and scans, and the module ops (conv, deformable conv, pool,
// norm, interpolate, embedding, attention).
// Options are written out in full (one value per spatial dim); batch norm is exported in evaluation
// form only, as the trace runs the module as valid() does.
#include <cmath>
#include <limits>

#include "emit.hpp"

namespace burn::onnx_export {
namespace {

// One value per spatial dim: the option's values, or `fallback` repeated when it is empty.
std::vector<int64_t> per_dim(const std::vector<int64_t>& v, size_t n, int64_t fallback) {
  if (v.empty()) return std::vector<int64_t>(n, fallback);
  if (v.size() == 1 && n > 1) return std::vector<int64_t>(n, v[0]);
  return v;
}

std::vector<int64_t> pads_of(const std::vector<int64_t>& begin, const std::vector<int64_t>& end, size_t n) {
  std::vector<int64_t> pads = per_dim(begin, n, 0);
  const std::vector<int64_t> after = end.empty() ? pads : per_dim(end, n, 0);
  pads.insert(pads.end(), after.begin(), after.end());
  return pads;
}

// A keepdims reduction over `axes`: ReduceSum takes them as an input from opset 13 on, the others
// from opset 18 (an attribute before).
void reduce_node(Emit& e, const std::string& type, const std::string& in, const std::vector<int64_t>& axes,
                 const std::string& out) {
  if (type == "ReduceSum" || e.opset() >= 18) {
    set_attr(e.node(type, {in, e.const_ints(axes)}, {out}), "keepdims", int64_t{1});
    return;
  }
  auto& n = e.node(type, {in}, {out});
  set_attr(n, "axes", axes);
  set_attr(n, "keepdims", int64_t{1});
}

void reduce_dim(Emit& e, const char* type) { reduce_node(e, type, e.in(0), {e.int_arg(1)}, e.out()); }

// Over every element, reshaped to the traced output's shape (Burn keeps a [1]).
void reduce_all(Emit& e, const char* type) {
  const std::string r = e.tmp();
  set_attr(e.node(type, {e.in(0)}, {r}), "keepdims", int64_t{0});
  e.node("Reshape", {r, e.const_ints(e.out_shape().dims())}, {e.out()});
  e.set_batch_axis(0, -1);
}

void arg_reduce(Emit& e, const char* type) {
  auto& n = e.node(type, {e.in(0)}, {e.out()});
  set_attr(n, "axis", e.int_arg(1));
  set_attr(n, "keepdims", int64_t{1});
}

// A Conv or ConvTranspose node of x, the weights and the bias when there is one, with the attributes in
// the order both write them: kernel_shape (the weights' spatial dims), strides, pads, output_padding (a
// transposed conv's only), dilations and group.
template <typename Options>
void conv_node(Emit& e, const char* type, const Options& o, const std::vector<int64_t>& padding_end,
               const std::vector<int64_t>* padding_out) {
  const size_t n = e.shape(0).rank() - 2;
  std::vector<std::string> ins{e.in(0), e.in(1)};
  if (e.has(2)) ins.push_back(e.in(2));
  auto& node = e.node(type, ins, {e.out()});
  const auto& w = e.shape(1).dims();
  set_attr(node, "kernel_shape", std::vector<int64_t>(w.begin() + 2, w.end()));
  set_attr(node, "strides", per_dim(o.stride, n, 1));
  set_attr(node, "pads", pads_of(o.padding, padding_end, n));
  if (padding_out) set_attr(node, "output_padding", per_dim(*padding_out, n, 0));
  set_attr(node, "dilations", per_dim(o.dilation, n, 1));
  set_attr(node, "group", o.groups);
}

void conv(Emit& e) {
  const auto& o = e.arg<ConvOptions>(3);
  conv_node(e, "Conv", o, o.padding_end, nullptr);
}

void conv_transpose(Emit& e) {
  const auto& o = e.arg<ConvTransposeOptions>(3);
  conv_node(e, "ConvTranspose", o, {}, &o.padding_out);
}

void pool(Emit& e, bool max) {
  const auto& o = e.arg<PoolOptions>(1);
  const size_t n = e.shape(0).rank() - 2;
  auto& node = e.node(max ? "MaxPool" : "AveragePool", {e.in(0)}, {e.out()});
  set_attr(node, "kernel_shape", o.kernel);
  set_attr(node, "strides", o.stride.empty() ? o.kernel : per_dim(o.stride, n, 1));
  set_attr(node, "pads", pads_of(o.padding, o.padding_end, n));
  set_attr(node, "ceil_mode", int64_t{o.ceil_mode});
  if (max)
    set_attr(node, "dilations", per_dim(o.dilation, n, 1));
  else
    set_attr(node, "count_include_pad", int64_t{o.count_include_pad});
}

// Adaptive pools: global when the output is 1 per dim, a plain pool when the sizes divide.
void adaptive_pool(Emit& e, bool max) {
  const auto& out = e.arg<Shape>(1).dims();
  const auto& in = e.shape(0).dims();
  bool global = true, divides = true;
  std::vector<int64_t> kernel;
  for (size_t i = 0; i < out.size(); ++i) {
    global = global && out[i] == 1;
    divides = divides && out[i] > 0 && in[i + 2] % out[i] == 0;
    kernel.push_back(out[i] > 0 ? in[i + 2] / out[i] : 0);
  }
  if (global) {
    e.node(max ? "GlobalMaxPool" : "GlobalAveragePool", {e.in(0)}, {e.out()});
    return;
  }
  if (!divides)
    e.unsupported("adaptive pool of " + e.shape(0).to_string() + " to " + e.arg<Shape>(1).to_string() +
                  " (ONNX pools need the input sizes to be multiples of the output sizes)");
  auto& node = e.node(max ? "MaxPool" : "AveragePool", {e.in(0)}, {e.out()});
  set_attr(node, "kernel_shape", kernel);
  set_attr(node, "strides", kernel);
}

// A [C] tensor of ones or zeros standing in for an absent affine parameter.
std::string filled(Emit& e, int64_t c, double v, DType d) {
  const std::string scalar = e.const_scalar(Scalar(v), d);
  const std::string out = e.tmp();
  e.node("Expand", {scalar, e.const_ints({c})}, {out});
  return out;
}

void batch_norm(Emit& e) {
  if (e.arg<bool>(5)) e.unsupported("batch_norm in training mode (the export runs the module in evaluation)");
  if (!e.has(3) || !e.has(4)) e.unsupported("batch_norm without running statistics");
  const int64_t c = e.shape(0)[1];
  const DType d = e.dtype(0);
  auto& n = e.node(
      "BatchNormalization",
      {e.in(0), e.has(1) ? e.in(1) : filled(e, c, 1.0, d), e.has(2) ? e.in(2) : filled(e, c, 0.0, d), e.in(3), e.in(4)},
      {e.out()});
  set_attr(n, "epsilon", e.arg<double>(7));
  set_attr(n, "momentum", 1.0 - e.arg<double>(6));  // ONNX weighs the running value, PyTorch the batch's
}

void layer_norm(Emit& e) {
  if (e.opset() < 17) e.unsupported("layer_norm needs opset 17 (LayerNormalization)");
  const int64_t nd = e.int_arg(3);
  const auto& dims = e.shape(0).dims();
  std::string weight;
  if (e.has(1)) {
    weight = e.in(1);
  } else {
    const std::vector<int64_t> norm_shape(dims.end() - nd, dims.end());
    weight = e.tmp();
    e.node("Expand", {e.const_scalar(Scalar(1.0), e.dtype(0)), e.const_ints(norm_shape)}, {weight});
  }
  std::vector<std::string> ins{e.in(0), weight};
  if (e.has(2)) ins.push_back(e.in(2));
  auto& n = e.node("LayerNormalization", ins, {e.out()});
  set_attr(n, "axis", -nd);
  set_attr(n, "epsilon", e.arg<double>(4));
}

void rms_norm(Emit& e) {  // x / sqrt(mean(x^2 over the last dims) + eps) * weight
  const int64_t nd = e.int_arg(2);
  const int64_t r = static_cast<int64_t>(e.shape(0).rank());
  std::vector<int64_t> axes;
  for (int64_t i = r - nd; i < r; ++i) axes.push_back(i);
  const std::string sq = e.tmp(), mean = e.tmp(), shifted = e.tmp(), root = e.tmp(), normed = e.tmp();
  e.node("Mul", {e.in(0), e.in(0)}, {sq});
  reduce_node(e, "ReduceMean", sq, axes, mean);
  e.node("Add", {mean, e.const_scalar(Scalar(e.arg<double>(3)), e.dtype(0))}, {shifted});
  e.node("Sqrt", {shifted}, {root});
  if (!e.has(1)) {
    e.node("Div", {e.in(0), root}, {e.out()});
    return;
  }
  e.node("Div", {e.in(0), root}, {normed});
  e.node("Mul", {normed, e.in(1)}, {e.out()});
}

// softmax(q k^T * scale, masked) v, with burn's mask (true: the key is not attended).
void attention(Emit& e) {
  const auto& o = e.arg<AttentionOptions>(4);
  const Shape& q = e.shape(0);
  const size_t r = q.rank();
  const double scale = o.scale ? *o.scale : 1.0 / std::sqrt(static_cast<double>(q[r - 1]));
  std::vector<int64_t> perm;
  for (size_t i = 0; i < r; ++i) perm.push_back(static_cast<int64_t>(i));
  std::swap(perm[r - 1], perm[r - 2]);
  const std::string kt = e.tmp(), qk = e.tmp(), scaled = e.tmp();
  set_attr(e.node("Transpose", {e.in(1)}, {kt}), "perm", perm);
  e.node("MatMul", {e.in(0), kt}, {qk});
  e.node("Mul", {qk, e.const_scalar(Scalar(scale), e.dtype(0))}, {scaled});
  std::string scores = scaled;
  const std::string neg_inf = e.const_scalar(Scalar(-std::numeric_limits<double>::infinity()), e.dtype(0));
  if (e.has(3)) {
    if (e.dtype(3) != DType::Bool) e.unsupported("attention with a float mask");
    const std::string masked = e.tmp();
    e.node("Where", {e.in(3), neg_inf, scores}, {masked});
    scores = masked;
  }
  if (o.causal) {  // key j masked for query i when j > i (top-left also when Lq != Lk), as burn's attention
    const int64_t lq = q[r - 2], lk = e.shape(1)[r - 2];
    TensorData upper = TensorData::uninitialized(Shape({lq, lk}), DType::Bool);
    auto* p = static_cast<uint8_t*>(upper.raw());
    for (int64_t i = 0; i < lq; ++i)
      for (int64_t j = 0; j < lk; ++j) p[i * lk + j] = j > i ? 1 : 0;
    const std::string masked = e.tmp();
    e.node("Where", {e.const_data(upper), neg_inf, scores}, {masked});
    scores = masked;
  }
  const std::string weights = e.tmp();
  set_attr(e.node("Softmax", {scores}, {weights}), "axis", int64_t{-1});
  e.node("MatMul", {weights, e.in(2)}, {e.out()});
}

// Group norm: GroupNormalization with burn's per-channel affine from opset 21; before, the groups are
// normalised without affine (GroupNormalization from 18, whose scale and bias are per group; below,
// torch.onnx's decomposition: Reshape to [N, G, -1], InstanceNormalization, Reshape back) and burn's
// per-channel weight and bias applied after it (Mul, Add on [C, 1, ...]).
void group_norm(Emit& e) {
  const Shape& s = e.shape(0);
  if (s.rank() < 2) e.unsupported("group_norm of a rank-" + std::to_string(s.rank()) + " input");
  const int64_t c = s[1], g = e.int_arg(3);
  const double eps = e.arg<double>(4);
  const DType d = e.dtype(0);
  if (e.opset() >= 21) {
    auto& n = e.node("GroupNormalization",
                     {e.in(0), e.has(1) ? e.in(1) : filled(e, c, 1.0, d), e.has(2) ? e.in(2) : filled(e, c, 0.0, d)},
                     {e.out()});
    set_attr(n, "epsilon", eps);
    set_attr(n, "num_groups", g);
    return;
  }
  const bool affine = e.has(1) || e.has(2);
  std::string cur = affine ? e.tmp() : e.out();
  if (e.opset() >= 18) {
    auto& n = e.node("GroupNormalization", {e.in(0), filled(e, g, 1.0, d), filled(e, g, 0.0, d)}, {cur});
    set_attr(n, "epsilon", eps);
    set_attr(n, "num_groups", g);
  } else {
    const std::string grouped = e.tmp(), normed = e.tmp();
    e.node("Reshape", {e.in(0), e.const_ints({0, g, -1})}, {grouped});  // dim 0 copied: follows a dynamic batch
    set_attr(e.node("InstanceNormalization", {grouped, filled(e, g, 1.0, d), filled(e, g, 0.0, d)}, {normed}),
             "epsilon", eps);
    std::vector<int64_t> back = s.dims();
    back[0] = 0;
    e.node("Reshape", {normed, e.const_ints(back)}, {cur});
  }
  if (!affine) return;
  std::vector<int64_t> per_channel(s.rank() - 1, 1);
  per_channel[0] = c;
  auto apply = [&](const char* type, size_t i, bool last) {
    const std::string w = e.tmp(), next = last ? e.out() : e.tmp();
    e.node("Reshape", {e.in(i), e.const_ints(per_channel)}, {w});
    e.node(type, {cur, w}, {next});
    cur = next;
  };
  if (e.has(1)) apply("Mul", 1, !e.has(2));
  if (e.has(2)) apply("Add", 2, true);
}

// interpolate as Resize to the traced sizes, with the coordinates of burn's (PyTorch's) interpolate:
// nearest reads floor(o * in / out) (asymmetric, floor); linear and cubic align_corners, else half_pixel
// ((o + 0.5) * in / out - 0.5 also for an output of size 1, where pytorch_half_pixel gives 0; the
// negative coordinates linear clamps to 0 read the edge in Resize too); cubic with A = -0.75 and the
// edge repeated (exclude_outside 0), as PyTorch's bicubic.
void interpolate(Emit& e) {
  const auto& o = e.arg<InterpolateOptions>(2);
  const auto& out = e.out_shape().dims();
  std::string sizes;
  if (e.dynamic_batch() && e.batch_axis(0) != -1) {  // N and C read from the input when it runs
    const std::string shape = e.tmp(), nc = e.tmp();
    sizes = e.tmp();
    e.node("Shape", {e.in(0)}, {shape});
    e.node("Slice", {shape, e.const_ints({0}), e.const_ints({2})}, {nc});
    set_attr(e.node("Concat", {nc, e.const_ints(std::vector<int64_t>(out.begin() + 2, out.end()))}, {sizes}), "axis",
             int64_t{0});
  } else {
    sizes = e.const_ints(out);
  }
  auto& n = e.node("Resize", {e.in(0), "", "", sizes}, {e.out()});
  if (o.mode == InterpolateMode::Nearest) {
    set_attr(n, "mode", std::string("nearest"));
    set_attr(n, "coordinate_transformation_mode", std::string("asymmetric"));
    set_attr(n, "nearest_mode", std::string("floor"));
    return;
  }
  const bool cubic = o.mode == InterpolateMode::Cubic;
  set_attr(n, "mode", std::string(cubic ? "cubic" : "linear"));
  set_attr(n, "coordinate_transformation_mode", std::string(o.align_corners ? "align_corners" : "half_pixel"));
  if (cubic) {
    set_attr(n, "cubic_coeff_a", -0.75);
    set_attr(n, "exclude_outside", int64_t{0});
  }
}

void cumsum(Emit& e) {  // burn's cumsum is inclusive and runs forward
  auto& n = e.node("CumSum", {e.in(0), e.const_scalar(Scalar(e.int_arg(1)), DType::I64)}, {e.out()});
  set_attr(n, "exclusive", int64_t{0});
  set_attr(n, "reverse", int64_t{0});
}

// sort, argsort and topk as a sorted TopK (k = the dim's size for the sorts). TopK puts equal values in
// index order whether largest or not: burn's stable order (burn's unstable sort may order ties either
// way; the stable order is one of its results). NaN: burn sorts it as the largest; TopK leaves it open.
void top_k(Emit& e, int64_t k, int64_t dim, bool largest, const std::string& values, const std::string& indices) {
  const int axis = e.batch_axis(0);
  if (e.dynamic_batch() && (dim == axis || (dim == 0 && axis == -3)))
    e.unsupported("sorting along the batch dim (dynamic batch)");
  auto& n = e.node("TopK", {e.in(0), e.const_ints({k})}, {values, indices});
  set_attr(n, "axis", dim);
  set_attr(n, "largest", int64_t{largest});
  set_attr(n, "sorted", int64_t{1});
}

int64_t dim_size(Emit& e, size_t arg) { return e.shape(0)[static_cast<size_t>(e.int_arg(arg))]; }

// DeformConv (opset 19) with torchvision's layout of offsets and mask, which burn's deform_conv2d takes.
void deform_conv(Emit& e) {
  if (e.opset() < 19)
    e.unsupported("needs opset 19 (DeformConv is new in opset 19; this export writes opset " +
                  std::to_string(e.opset()) + ": export with opset 19 or later, `--opset 19`)");
  const auto& o = e.arg<DeformConvOptions>(5);
  const size_t n = 2;
  // X, W, offset, B, mask; an absent bias before a mask is the empty name.
  std::vector<std::string> ins{e.in(0), e.in(2), e.in(1)};
  if (e.has(4) || e.has(3)) ins.push_back(e.has(4) ? e.in(4) : std::string());
  if (e.has(3)) ins.push_back(e.in(3));
  auto& node = e.node("DeformConv", ins, {e.out()});
  const auto& w = e.shape(2).dims();
  set_attr(node, "kernel_shape", std::vector<int64_t>(w.begin() + 2, w.end()));
  set_attr(node, "strides", per_dim(o.stride, n, 1));
  set_attr(node, "pads", pads_of(o.padding, {}, n));
  set_attr(node, "dilations", per_dim(o.dilation, n, 1));
  set_attr(node, "group", o.weight_groups);
  set_attr(node, "offset_group", o.offset_groups);
}

}  // namespace

void register_nn(EmitTable& t) {
  auto set = [&](OpId op, EmitFn fn) { t[static_cast<size_t>(op)] = fn; };
  using O = OpId;
  set(O::matmul, [](Emit& e) { e.node("MatMul", {e.in(0), e.in(1)}, {e.out()}); });
  set(O::sum_dim, [](Emit& e) { reduce_dim(e, "ReduceSum"); });
  set(O::mean_dim, [](Emit& e) { reduce_dim(e, "ReduceMean"); });
  set(O::max_dim, [](Emit& e) { reduce_dim(e, "ReduceMax"); });
  set(O::min_dim, [](Emit& e) { reduce_dim(e, "ReduceMin"); });
  set(O::prod_dim, [](Emit& e) { reduce_dim(e, "ReduceProd"); });
  set(O::sum, [](Emit& e) { reduce_all(e, "ReduceSum"); });
  set(O::mean, [](Emit& e) { reduce_all(e, "ReduceMean"); });
  set(O::max, [](Emit& e) { reduce_all(e, "ReduceMax"); });
  set(O::min, [](Emit& e) { reduce_all(e, "ReduceMin"); });
  set(O::prod, [](Emit& e) { reduce_all(e, "ReduceProd"); });
  set(O::argmax, [](Emit& e) { arg_reduce(e, "ArgMax"); });
  set(O::argmin, [](Emit& e) { arg_reduce(e, "ArgMin"); });
  set(O::conv, conv);
  set(O::conv_transpose, conv_transpose);
  set(O::max_pool, [](Emit& e) { pool(e, true); });
  set(O::max_pool_with_indices, [](Emit& e) { pool(e, true); });  // the indices are not produced
  set(O::avg_pool, [](Emit& e) { pool(e, false); });
  set(O::adaptive_avg_pool, [](Emit& e) { adaptive_pool(e, false); });
  set(O::adaptive_max_pool, [](Emit& e) { adaptive_pool(e, true); });
  set(O::batch_norm, batch_norm);
  set(O::layer_norm, layer_norm);
  set(O::rms_norm, rms_norm);
  set(O::embedding, [](Emit& e) { e.node("Gather", {e.in(0), e.in(1)}, {e.out()}); });
  set(O::attention, attention);
  set(O::group_norm, group_norm);
  set(O::interpolate, interpolate);
  set(O::cumsum, cumsum);
  set(O::sort, [](Emit& e) { top_k(e, dim_size(e, 1), e.int_arg(1), e.arg<bool>(2), e.out(0), e.out(1)); });
  set(O::argsort, [](Emit& e) { top_k(e, dim_size(e, 1), e.int_arg(1), e.arg<bool>(2), e.tmp(), e.out(0)); });
  set(O::topk, [](Emit& e) { top_k(e, e.int_arg(1), e.int_arg(2), e.arg<bool>(3), e.out(0), e.out(1)); });
  set(O::deform_conv2d, deform_conv);
}

}  // namespace burn::onnx_export
