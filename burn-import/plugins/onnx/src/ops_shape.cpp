// Shape and indexing ops: Shape, Reshape, Transpose, Concat, Split, Slice, Gather*, Scatter*, Squeeze,
// Unsqueeze, Expand, Tile, Pad, Constant*, Range, Trilu, DepthToSpace/SpaceToDepth, NonZero, OneHot.
#include <algorithm>
#include <cmath>
#include <limits>

#include "burn/tensor/shape_rules.hpp"
#include "engine.hpp"

namespace burn::onnx {
namespace {

using Hs = std::vector<H>;

// Negative indices count from the end of a dim of size n (Gather, GatherElements, Scatter*).
H wrap_indices(const H& idx, int64_t n) {
  H i = idx.prim->dtype() == DType::I64 ? idx : api::cast(idx, DType::I64);
  H neg = api::compare_elem(OpId::lower_elem, i, Scalar(int64_t{0}));
  return api::mask_where(i, neg, api::add_scalar(i, Scalar(n)));
}

Hs shape(OpContext& c) {
  const Shape& s = c.shape(0);
  int64_t r = static_cast<int64_t>(s.rank());
  int64_t start = c.attr_i("start", 0), end = c.attr_i("end", r);
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, 0, r);
  std::vector<int64_t> dims;
  for (int64_t i = start; i < end; ++i) dims.push_back(s[static_cast<size_t>(i)]);
  return {ints_tensor(c.device(), dims)};
}

Hs size(OpContext& c) {
  return {scalar_tensor(c.device(), static_cast<double>(c.shape(0).num_elements()), DType::I64)};
}

Hs reshape(OpContext& c) {
  std::vector<int64_t> dims = c.opset() >= 5 ? c.ints(1) : c.attr_ints("shape");
  bool allowzero = c.attr_i("allowzero", 0);
  const Shape& s = c.shape(0);
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] == 0 && !allowzero) {
      if (i >= s.rank()) c.invalid("shape has a 0 at dim " + std::to_string(i) + " beyond the input's rank");
      dims[i] = s[i];
    }
  return {api::reshape(c.in(0), dims)};
}

Hs flatten(OpContext& c) {
  const Shape& s = c.shape(0);
  int64_t r = static_cast<int64_t>(s.rank());
  int64_t axis = c.attr_i("axis", 1);
  if (axis < 0) axis += r;
  if (axis < 0 || axis > r) c.invalid("axis outside [-r, r]");
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < r; ++i) (i < axis ? outer : inner) *= s[static_cast<size_t>(i)];
  return {api::reshape(c.in(0), {outer, inner})};
}

Hs transpose(OpContext& c) {
  std::vector<int64_t> perm = c.attr_ints("perm");
  if (perm.empty())
    for (int64_t i = static_cast<int64_t>(c.rank(0)) - 1; i >= 0; --i) perm.push_back(i);
  return {api::permute(c.in(0), perm)};
}

Hs concat(OpContext& c) {
  std::vector<H> xs;
  for (size_t i = 0; i < c.num_inputs(); ++i)
    if (c.has(i)) xs.push_back(c.in(i));
  int64_t axis = c.axis(c.attr_i("axis", 0), c.rank(0));
  return {api::cat(xs, axis)};
}

Hs split(OpContext& c) {
  int64_t axis = c.axis(c.attr_i("axis", 0), c.rank(0));
  std::vector<int64_t> sizes = c.opset() >= 13 ? (c.has(1) ? c.ints(1) : std::vector<int64_t>{}) : c.attr_ints("split");
  int64_t n = c.shape(0)[static_cast<size_t>(axis)];
  if (sizes.empty() && c.opset() >= 18 && c.has_attr("num_outputs")) {
    // Opset 18: num_outputs parts of ceil(n / num_outputs), the last one smaller when it does not divide.
    int64_t parts = c.attr_i("num_outputs", 0);
    if (parts <= 0 || parts != static_cast<int64_t>(c.num_outputs()))
      c.invalid("num_outputs " + std::to_string(parts) + " for " + std::to_string(c.num_outputs()) + " outputs");
    int64_t chunk = (n + parts - 1) / parts;
    for (int64_t i = 0; i < parts; ++i) sizes.push_back(std::max<int64_t>(0, std::min(chunk, n - i * chunk)));
  }
  if (sizes.empty()) {
    int64_t parts = static_cast<int64_t>(c.num_outputs());
    if (n % parts)
      c.invalid("dim " + std::to_string(n) + " does not split into " + std::to_string(parts) + " equal parts");
    sizes.assign(static_cast<size_t>(parts), n / parts);
  }
  return api::split_with_sizes(c.in(0), sizes, axis);
}

Hs slice(OpContext& c) {
  std::vector<int64_t> starts, ends, axes, steps;
  if (c.opset() < 10) {
    starts = c.attr_ints("starts");
    ends = c.attr_ints("ends");
    axes = c.attr_ints("axes");
  } else {
    starts = c.ints(1);
    ends = c.ints(2);
    if (c.has(3)) axes = c.ints(3);
    if (c.has(4)) steps = c.ints(4);
  }
  size_t r = c.rank(0);
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    c.invalid("starts, ends, axes and steps differ in length");
  std::vector<Slice> sl(r, Slice::all());
  const Shape& s = c.shape(0);
  for (size_t i = 0; i < starts.size(); ++i) {
    size_t a = static_cast<size_t>(c.axis(axes[i], r));
    int64_t n = s[a], st = steps[i];
    if (st == 0) c.invalid("step 0");
    // ONNX clamps like NumPy. burn's negative step walks [start, end) backwards, so ONNX's walk from
    // `start` down to `end` (exclusive) becomes the range (end, start].
    auto norm = [&](int64_t v) { return v < 0 ? v + n : v; };
    Slice x;
    x.step = st;
    if (st > 0) {
      x.start = std::clamp<int64_t>(norm(starts[i]), 0, n);
      x.end = std::clamp<int64_t>(norm(ends[i]), 0, n);
    } else {
      int64_t s0 = std::clamp<int64_t>(norm(starts[i]), -1, n - 1);
      int64_t e0 = std::clamp<int64_t>(norm(ends[i]), -1, n - 1);
      x.start = e0 + 1;
      x.end = std::max(s0 + 1, e0 + 1);
    }
    sl[a] = x;
  }
  return {api::slice(c.in(0), sl)};
}

Hs gather(OpContext& c) {
  int64_t axis = c.axis(c.attr_i("axis", 0), c.rank(0));
  const Shape& s = c.shape(0);
  const Shape& is = c.shape(1);
  H idx = wrap_indices(c.in(1), s[static_cast<size_t>(axis)]);
  H y = api::select(c.in(0), axis, api::reshape(idx, {-1}));
  std::vector<int64_t> out;
  for (int64_t i = 0; i < axis; ++i) out.push_back(s[static_cast<size_t>(i)]);
  for (int64_t d : is) out.push_back(d);
  for (size_t i = static_cast<size_t>(axis) + 1; i < s.rank(); ++i) out.push_back(s[i]);
  return {api::reshape(y, out)};
}

Hs gather_elements(OpContext& c) {
  int64_t axis = c.axis(c.attr_i("axis", 0), c.rank(0));
  H idx = wrap_indices(c.in(1), c.shape(0)[static_cast<size_t>(axis)]);
  return {api::gather(c.in(0), axis, idx)};
}

Hs gather_nd(OpContext& c) {
  int64_t bd = c.attr_i("batch_dims", 0);
  H idx = api::cast(c.in(1), DType::I64);
  if (bd == 0) return {api::gather_nd(c.in(0), idx)};
  // Leading batch dims: one gather per batch entry (flattened), stacked and reshaped back.
  const Shape& ds = c.shape(0);
  const Shape& is = c.shape(1);
  if (bd < 0 || static_cast<size_t>(bd) >= std::min(ds.rank(), is.rank())) c.invalid("batch_dims out of range");
  std::vector<int64_t> batch(ds.dims().begin(), ds.dims().begin() + bd);
  int64_t nb = 1;
  for (int64_t b : batch) nb *= b;
  std::vector<int64_t> dflat{nb}, iflat{nb};
  dflat.insert(dflat.end(), ds.dims().begin() + bd, ds.dims().end());
  iflat.insert(iflat.end(), is.dims().begin() + bd, is.dims().end());
  H d = api::reshape(c.in(0), dflat);
  idx = api::reshape(idx, iflat);
  std::vector<H> parts;
  for (int64_t b = 0; b < nb; ++b)
    parts.push_back(api::gather_nd(api::squeeze_dims(api::narrow(d, 0, b, 1), {0}),
                                   api::squeeze_dims(api::narrow(idx, 0, b, 1), {0})));
  H y = api::stack(parts, 0);
  std::vector<int64_t> out = batch;
  const Shape ys = shape_of(y);
  out.insert(out.end(), ys.dims().begin() + 1, ys.dims().end());
  return {api::reshape(y, out)};
}

// Scatter with reduction mul (16), max or min (18) on the host: `targets[i]` is the flat position of
// data that update i combines into, in order (duplicates combine, as the reference).
H scatter_reduce_host(OpContext& c, const H& data, const std::vector<int64_t>& targets, const H& updates,
                      const std::string& red) {
  TensorData d = api::into_data(data), u = api::into_data(updates);
  DType dt = d.dtype();
  std::vector<double> x = d.to_f64_vec(), v = u.to_f64_vec();
  if (v.size() != targets.size()) c.invalid("updates and indices disagree in size");
  for (size_t i = 0; i < targets.size(); ++i) {
    double& t = x[static_cast<size_t>(targets[i])];
    if (red == "mul")
      t *= v[i];
    else if (red == "max")
      t = std::max(t, v[i]);
    else
      t = std::min(t, v[i]);
  }
  TensorData out = TensorData::from_vector(x, d.shape()).convert(dt);
  return api::from_data(c.device(), out, api::kind_of(dt));
}

bool host_reduction(OpContext& c, const std::string& red) {
  if (red == "mul" || ((red == "max" || red == "min") && c.opset() >= 18)) return true;
  if (red != "none" && red != "add") c.unsupported("reduction '" + red + "'");
  return false;
}

Hs scatter_nd(OpContext& c) {
  std::string red = c.attr_s("reduction", "none");
  if (host_reduction(c, red)) {
    const Shape& ds = c.shape(0);
    std::vector<int64_t> idx = c.ints(1);
    const Shape& is = c.shape(1);
    size_t k = static_cast<size_t>(is[is.rank() - 1]);
    if (k > ds.rank()) c.invalid("index depth " + std::to_string(k) + " exceeds the data rank");
    int64_t inner = 1;
    for (size_t i = k; i < ds.rank(); ++i) inner *= ds[i];
    std::vector<int64_t> targets;
    for (size_t q = 0; q < idx.size() / std::max<size_t>(k, 1); ++q) {
      int64_t base = 0;
      for (size_t j = 0; j < k; ++j) {
        int64_t i = idx[q * k + j], dim = ds[j];
        if (i < -dim || i >= dim) c.invalid("index " + std::to_string(i) + " outside dim " + std::to_string(j));
        base = base * dim + (i < 0 ? i + dim : i);
      }
      for (int64_t e = 0; e < inner; ++e) targets.push_back(base * inner + e);
    }
    return {scatter_reduce_host(c, c.in(0), targets, c.in(2), red)};
  }
  ScatterReduction r = red == "add" ? ScatterReduction::Add : ScatterReduction::None;
  return {api::scatter_nd(c.in(0), api::cast(c.in(1), DType::I64), c.in(2), r)};
}

Hs scatter_elements(OpContext& c) {
  int64_t axis = c.axis(c.attr_i("axis", 0), c.rank(0));
  std::string red = c.attr_s("reduction", "none");
  H x = c.in(0), upd = c.in(2);
  H idx = wrap_indices(c.in(1), c.shape(0)[static_cast<size_t>(axis)]);
  if (host_reduction(c, red)) {
    // The flat data position of each update: its own index with the axis coordinate replaced.
    const Shape& ds = c.shape(0);
    const Shape us = shape_of(upd);
    if (us != c.shape(1) || us.rank() != ds.rank())
      c.invalid("indices " + c.shape(1).to_string() + " and updates " + us.to_string() +
                " must have one shape, of the data's rank " + std::to_string(ds.rank()));
    for (size_t d = 0; d < us.rank(); ++d)
      if (static_cast<int64_t>(d) != axis && us[d] > ds[d])
        c.invalid("updates " + us.to_string() + " exceed the data " + ds.to_string() + " in dim " + std::to_string(d));
    std::vector<int64_t> iv = api::into_data(api::cast(idx, DType::I64)).to_vec<int64_t>(), targets(iv.size());
    const int64_t extent = ds[static_cast<size_t>(axis)];
    for (int64_t i : iv)
      if (i < 0 || i >= extent)
        c.invalid("index " + std::to_string(i) + " outside [0, " + std::to_string(extent) + ")");
    std::vector<int64_t> pos(us.rank(), 0);
    for (size_t f = 0; f < iv.size(); ++f) {
      int64_t flat = 0;
      for (size_t d = 0; d < us.rank(); ++d) flat = flat * ds[d] + (static_cast<int64_t>(d) == axis ? iv[f] : pos[d]);
      targets[f] = flat;
      for (size_t d = us.rank(); d-- > 0;) {
        if (++pos[d] < us[d]) break;
        pos[d] = 0;
      }
    }
    return {scatter_reduce_host(c, x, targets, upd, red)};
  }
  if (red == "add") return {api::scatter_add(x, axis, idx, upd)};
  // Replacement as masking then adding: the positions written are cleared, then the updates added
  // (ONNX leaves duplicate indices undefined for reduction none).
  H zeros = api::full(c.device(), shape_of(x), Scalar(0), x.prim->dtype());
  H ones = api::full(c.device(), shape_of(upd), Scalar(1), x.prim->dtype());
  H hit = api::compare_elem(OpId::greater_elem, api::scatter_add(zeros, axis, idx, ones), Scalar(0));
  return {api::scatter_add(api::mask_fill(x, hit, Scalar(0)), axis, idx, upd)};
}

Hs unsqueeze(OpContext& c) {
  std::vector<int64_t> axes = c.opset() >= 13 ? c.ints(1) : c.attr_ints("axes");
  size_t out_rank = c.rank(0) + axes.size();
  for (auto& a : axes) a = c.axis(a, out_rank);
  std::sort(axes.begin(), axes.end());
  return {api::unsqueeze_dims(c.in(0), axes)};
}

Hs squeeze(OpContext& c) {
  std::vector<int64_t> axes = c.opset() >= 13 ? (c.has(1) ? c.ints(1) : std::vector<int64_t>{}) : c.attr_ints("axes");
  for (auto& a : axes) a = c.axis(a, c.rank(0));
  if (axes.empty()) {
    const Shape& s = c.shape(0);
    for (size_t i = 0; i < s.rank(); ++i)
      if (s[i] == 1) axes.push_back(static_cast<int64_t>(i));
    if (axes.empty()) return {c.in(0)};
  }
  return {api::squeeze_dims(c.in(0), axes)};
}

Hs expand(OpContext& c) {
  Shape target = shape_rules::broadcast(c.shape(0), Shape(c.ints(1)), "Expand");
  return {api::expand(c.in(0), target.dims())};
}

Hs tile(OpContext& c) { return {api::repeat(c.in(0), c.ints(1))}; }

// Pad's wrap mode (opset 19): each axis extended with copies of its other end; negative pads crop.
H pad_wrap(OpContext& c, H x, const std::vector<int64_t>& pads) {
  size_t r = shape_of(x).rank();
  for (size_t a = 0; a < r; ++a) {
    int64_t b = pads[a], e = pads[a + r], n = shape_of(x)[a];
    auto ax = static_cast<int64_t>(a);
    if (n + std::min<int64_t>(b, 0) + std::min<int64_t>(e, 0) < 0)
      c.invalid("negative pads crop more than dim " + std::to_string(a) + " holds");
    if (b < 0) x = api::narrow(x, ax, -b, n + b), n += b, b = 0;
    if (e < 0) x = api::narrow(x, ax, 0, n + e), n += e, e = 0;
    if (b == 0 && e == 0) continue;
    if (n == 0) c.invalid("wrap padding of the empty dim " + std::to_string(a));
    std::vector<int64_t> idx;
    for (int64_t i = -b; i < n + e; ++i) idx.push_back(((i % n) + n) % n);
    x = api::select(x, ax, ints_tensor(x.device, idx));
  }
  return x;
}

Hs pad(OpContext& c) {
  std::string mode = c.attr_s("mode", "constant");
  std::vector<int64_t> pads;
  double value = 0;
  if (c.opset() < 11) {
    pads = c.attr_ints("pads");
    value = c.attr_f("value", 0.0);
  } else {
    pads = c.ints(1);
    if (c.has(2)) value = c.scalar(2);
  }
  size_t r = c.rank(0);
  if (c.opset() >= 18 && c.has(3)) {
    // Opset 18: pads for the listed axes only (begins then ends), the others unpadded.
    std::vector<int64_t> axes = c.ints(3);
    if (pads.size() != 2 * axes.size())
      c.invalid("pads has " + std::to_string(pads.size()) + " values for " + std::to_string(axes.size()) + " axes");
    std::vector<int64_t> full(2 * r, 0);
    for (size_t i = 0; i < axes.size(); ++i) {
      size_t a = static_cast<size_t>(c.axis(axes[i], r));
      full[a] = pads[i];
      full[a + r] = pads[i + axes.size()];
    }
    pads = full;
  }
  if (pads.size() != 2 * r)
    c.invalid("pads has " + std::to_string(pads.size()) + " values for rank " + std::to_string(r));
  std::vector<int64_t> bp;  // (left, right) from the last dim, torch style
  for (size_t i = r; i-- > 0;) {
    bp.push_back(pads[i]);
    bp.push_back(pads[i + r]);
  }
  if (mode == "wrap" && c.opset() >= 19) return {pad_wrap(c, c.in(0), pads)};
  PadMode m = mode == "constant" ? PadMode::Constant : mode == "reflect" ? PadMode::Reflect : PadMode::Replicate;
  if (mode != "constant" && mode != "reflect" && mode != "edge") c.unsupported("mode '" + mode + "'");
  DType dt = c.dtype(0);
  Scalar v = is_float(dt) ? Scalar(value) : is_bool(dt) ? Scalar(value != 0) : Scalar(static_cast<int64_t>(value));
  return {api::pad(c.in(0), bp, m, v)};
}

H tensor_attr(OpContext& c, const ::onnx::TensorProto& t) {
  TensorData d = tensor_from_proto(t, c.where());
  return api::from_data(c.device(), d, api::kind_of(d.dtype()));
}

Hs constant(OpContext& c) {
  if (const auto* a = c.attr("value")) return {tensor_attr(c, a->t())};
  if (const auto* a = c.attr("value_float")) return {scalar_tensor(c.device(), a->f(), DType::F32)};
  if (const auto* a = c.attr("value_int")) return {scalar_tensor(c.device(), static_cast<double>(a->i()), DType::I64)};
  if (const auto* a = c.attr("value_floats")) {
    std::vector<float> v(a->floats().begin(), a->floats().end());
    return {api::from_data(c.device(), TensorData::from_vector(v, Shape{static_cast<int64_t>(v.size())}), Kind::Float)};
  }
  if (const auto* a = c.attr("value_ints")) {
    return {ints_tensor(c.device(), std::vector<int64_t>(a->ints().begin(), a->ints().end()))};
  }
  c.unsupported("a constant other than a tensor, float(s) or int(s) (strings, sparse)");
}

Hs constant_of_shape(OpContext& c) {
  std::vector<int64_t> dims = c.ints(0);
  if (const auto* a = c.attr("value")) {
    TensorData d = tensor_from_proto(a->t(), c.where());
    if (d.num_elements() != 1) c.invalid("value must hold one element");
    double v = d.value_f64(0);
    DType dt = d.dtype();
    Scalar s = is_float(dt) ? Scalar(v) : is_bool(dt) ? Scalar(v != 0) : Scalar(static_cast<int64_t>(v));
    return {api::full(c.device(), Shape(dims), s, dt)};
  }
  return {api::full(c.device(), Shape(dims), Scalar(0.0), DType::F32)};
}

Hs range(OpContext& c) {
  DType dt = c.dtype(0);
  double start = c.scalar(0), limit = c.scalar(1), delta = c.scalar(2);
  if (delta == 0) c.invalid("delta 0");
  int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((limit - start) / delta)));
  if (!is_float(dt)) {
    auto s = static_cast<int64_t>(start), d = static_cast<int64_t>(delta);
    return {api::arange(c.device(), s, s + n * d, d, dt)};
  }
  H i = api::arange(c.device(), 0, n, 1, DType::I64);
  H f = api::cast(i, dt);
  return {api::add_scalar(api::mul_scalar(f, Scalar(delta)), Scalar(start))};
}

Hs trilu(OpContext& c) {
  int64_t k = c.has(1) ? c.ints(1).at(0) : 0;
  return {c.attr_i("upper", 1) ? api::triu(c.in(0), k) : api::tril(c.in(0), k)};
}

Hs depth_to_space(OpContext& c) {
  const Shape& s = c.shape(0);
  if (s.rank() != 4) c.invalid("input must be 4-D");
  int64_t b = c.attr_i("blocksize", 0), N = s[0], C = s[1], Hh = s[2], W = s[3];
  if (b <= 0 || C % (b * b)) c.invalid("blocksize must divide the channels");
  H x = c.in(0);
  if (c.attr_s("mode", "DCR") == "DCR") {
    x = api::reshape(x, {N, b, b, C / (b * b), Hh, W});
    x = api::permute(x, {0, 3, 4, 1, 5, 2});
  } else {
    x = api::reshape(x, {N, C / (b * b), b, b, Hh, W});
    x = api::permute(x, {0, 1, 4, 2, 5, 3});
  }
  return {api::reshape(x, {N, C / (b * b), Hh * b, W * b})};
}

Hs space_to_depth(OpContext& c) {
  const Shape& s = c.shape(0);
  if (s.rank() != 4) c.invalid("input must be 4-D");
  int64_t b = c.attr_i("blocksize", 0), N = s[0], C = s[1], Hh = s[2], W = s[3];
  if (b <= 0 || Hh % b || W % b) c.invalid("blocksize must divide height and width");
  H x = api::reshape(c.in(0), {N, C, Hh / b, b, W / b, b});
  x = api::permute(x, {0, 3, 5, 1, 2, 4});
  return {api::reshape(x, {N, C * b * b, Hh / b, W / b})};
}

Hs non_zero(OpContext& c) {
  H x = c.in(0);
  if (c.rank(0) == 0) x = api::reshape(x, {1});
  H w = api::argwhere(x);  // [n, rank]
  if (w.prim->dtype() != DType::I64) w = api::cast(w, DType::I64);
  return {api::permute(w, {1, 0})};
}

Hs one_hot(OpContext& c) {
  int64_t depth = static_cast<int64_t>(c.scalar(1));
  TensorData vals = api::into_data(c.in(2));
  if (vals.num_elements() != 2) c.invalid("values must hold [off, on]");
  int64_t r = static_cast<int64_t>(c.rank(0));
  int64_t axis = c.attr_i("axis", -1);
  if (axis < 0) axis += r + 1;
  H idx = wrap_indices(
      c.in(0).prim->dtype() == DType::F32 || is_float(c.dtype(0)) ? api::cast(c.in(0), DType::I64) : c.in(0), depth);
  std::vector<int64_t> view(static_cast<size_t>(r + 1), 1);
  view[static_cast<size_t>(axis)] = depth;
  H ar = api::reshape(api::arange(c.device(), 0, depth, 1, DType::I64), view);
  H hit = api::compare(OpId::equal, api::unsqueeze_dims(idx, {axis}), ar);
  DType dt = vals.dtype();
  H off = api::expand(scalar_tensor(c.device(), vals.value_f64(0), dt), shape_of(hit).dims());
  H on = api::expand(scalar_tensor(c.device(), vals.value_f64(1), dt), shape_of(hit).dims());
  return {api::mask_where(off, hit, on)};
}

Hs eye_like(OpContext& c) {
  const Shape& s = c.shape(0);
  if (s.rank() != 2) c.invalid("input must be 2-D");
  DType dt = c.has_attr("dtype") ? dtype_from_onnx(static_cast<int32_t>(c.attr_i("dtype", 1)), c.where()) : c.dtype(0);
  int64_t k = c.attr_i("k", 0);
  H ones = api::full(c.device(), s, Scalar(int64_t{1}), DType::I64);
  H band = api::sub(api::triu(ones, k), api::triu(ones, k + 1));
  return {api::cast(band, dt)};
}

}  // namespace

void add_shape_ops(std::vector<OpRow>& r) {
  const int k = kMaxOpset;
  r.insert(r.end(), {
                        {"Shape", 1, k, shape},
                        {"Size", 1, k, size},
                        {"Reshape", 5, k, reshape},
                        {"Flatten", 1, k, flatten},
                        {"Transpose", 1, k, transpose},
                        {"Concat", 4, k, concat},
                        {"Split", 2, k, split},
                        {"Slice", 1, k, slice},
                        {"Gather", 1, k, gather},
                        {"GatherElements", 11, k, gather_elements},
                        {"GatherND", 11, k, gather_nd},
                        {"ScatterND", 11, k, scatter_nd},
                        {"ScatterElements", 11, k, scatter_elements},
                        {"Scatter", 9, 10, scatter_elements},
                        {"Unsqueeze", 1, k, unsqueeze},
                        {"Squeeze", 1, k, squeeze},
                        {"Expand", 8, k, expand},
                        {"Tile", 6, k, tile},
                        {"Pad", 2, k, pad},
                        {"Constant", 1, k, constant},
                        {"ConstantOfShape", 9, k, constant_of_shape},
                        {"Range", 11, k, range},
                        {"Trilu", 14, k, trilu},
                        {"DepthToSpace", 1, k, depth_to_space},
                        {"SpaceToDepth", 1, k, space_to_depth},
                        {"NonZero", 9, k, non_zero},
                        {"OneHot", 9, k, one_hot},
                        {"EyeLike", 9, k, eye_like},
                    });
}

}  // namespace burn::onnx
