// Tensor API: shape and layout functions, composed from the backend's view ops.
#include <algorithm>
#include <numeric>

#include "burn/tensor/shape_rules.hpp"
#include "checks.hpp"

namespace burn::api {
using namespace detail;

namespace {

// One dim of a Python-style slice, clamped like Python; returns the positive-step range and
// whether the dim must be flipped afterwards (negative step).
std::pair<SliceRange, bool> normalize_slice(const Slice& s, int64_t n, size_t dim, const char* op) {
  if (s.step == 0) throw ValueError(op, "slice step for dim " + std::to_string(dim) + " is 0");
  if (s.index && (*s.start < -n || *s.start >= n))
    throw IndexError(op, "index " + std::to_string(*s.start) + " is out of range for dim " + std::to_string(dim) +
                             " of size " + std::to_string(n));
  auto clampi = [n](int64_t v) { return std::clamp(v < 0 ? v + n : v, int64_t{0}, n); };
  int64_t start = s.start ? clampi(*s.start) : 0;
  int64_t end = s.end ? clampi(*s.end) : n;
  if (end < start) end = start;
  // |INT64_MIN| does not fit; any step of at least the dim's size selects one element anyway.
  int64_t step = s.step > 0 ? s.step : s.step == INT64_MIN ? INT64_MAX : -s.step;
  if (s.step > 0 || end == start) return {{start, end, step}, s.step < 0};
  // Walking [start, end) backwards from end - 1 selects the elements congruent to end - 1.
  int64_t first = start + (end - 1 - start) % step;
  return {{first, end, step}, true};
}

struct NormalizedSlices {
  Slices ranges;
  Axes flips;
  Shape region;
};

NormalizedSlices normalize_slices(const H& h, const std::vector<Slice>& slices, const char* op) {
  const Shape& s = shape(h);
  if (slices.size() > s.rank())
    throw IndexError(op, std::to_string(slices.size()) + " slices for a tensor of rank " + std::to_string(s.rank()));
  NormalizedSlices out;
  for (size_t d = 0; d < s.rank(); ++d) {
    auto [r, flip] =
        d < slices.size() ? normalize_slice(slices[d], s[d], d, op) : std::pair<SliceRange, bool>{{0, s[d], 1}, false};
    out.ranges.push_back(r);
    if (flip) out.flips.push_back(static_cast<int64_t>(d));
  }
  out.region = shape_rules::slice(s, out.ranges, op);
  return out;
}

}  // namespace

H reshape(H h, const std::vector<int64_t>& dims) {
  Backend& b = be(h, "reshape");
  Shape target = shape_rules::reshape(shape(h), Shape(dims));
  if (target == shape(h)) return h;
  return with(h, b.reshape(std::move(h.prim), target));
}

H permute(H h, const std::vector<int64_t>& axes) {
  Backend& b = be(h, "permute");
  shape_rules::permute(shape(h), axes);
  return with(h, b.permute(std::move(h.prim), shape_rules::normalize_axes(axes, rank(h), "permute")));
}

H swap_dims(H h, int64_t a, int64_t c) {
  size_t r = rank(h);
  size_t da = normalize_dim(a, r, "swap_dims"), dc = normalize_dim(c, r, "swap_dims");
  if (da == dc) return h;
  std::vector<int64_t> axes(r);
  std::iota(axes.begin(), axes.end(), 0);
  std::swap(axes[da], axes[dc]);
  return permute(std::move(h), axes);
}

H flatten(H h, int64_t start, int64_t end) {
  size_t r = rank(h);
  size_t s = normalize_dim(start, r, "flatten"), e = normalize_dim(end, r, "flatten");
  if (s > e)
    throw IndexError("flatten", "start dim " + std::to_string(start) + " is after end dim " + std::to_string(end));
  std::vector<int64_t> dims;
  int64_t merged = 1;
  for (size_t i = 0; i < r; ++i) {
    if (i < s || i > e) {
      dims.push_back(shape(h)[i]);
    } else {
      merged *= shape(h)[i];
      if (i == e) dims.push_back(merged);
    }
  }
  return reshape(std::move(h), dims);
}

H squeeze_dims(H h, const std::vector<int64_t>& dims) {
  const Shape& s = shape(h);
  std::vector<bool> drop(s.rank(), false);
  if (dims.empty()) {
    for (size_t i = 0; i < s.rank(); ++i) drop[i] = s[i] == 1;
  } else {
    for (int64_t a : shape_rules::normalize_axes(dims, s.rank(), "squeeze")) {
      const auto d = static_cast<size_t>(a);
      if (s[d] != 1)
        throw ShapeError("squeeze", "dim " + std::to_string(d) + " of " + s.to_string() + " has size " +
                                        std::to_string(s[d]) + ", not 1");
      drop[d] = true;
    }
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < s.rank(); ++i)
    if (!drop[i]) out.push_back(s[i]);
  return reshape(std::move(h), out);
}

H unsqueeze_dims(H h, const std::vector<int64_t>& dims) {
  const Shape& s = shape(h);
  size_t out_rank = s.rank() + dims.size();
  std::vector<bool> is_new(out_rank, false);
  for (int64_t d : shape_rules::normalize_axes(dims, out_rank, "unsqueeze")) is_new[static_cast<size_t>(d)] = true;
  std::vector<int64_t> out;
  size_t k = 0;
  for (size_t i = 0; i < out_rank; ++i) out.push_back(is_new[i] ? 1 : s[k++]);
  return reshape(std::move(h), out);
}

H expand(H h, const std::vector<int64_t>& dims) {
  Backend& b = be(h, "expand");
  const Shape target = shape_rules::expand(shape(h), Shape(dims));
  // New leading dims first, as 1s: the backend then stretches dims of one rank.
  Prim p = std::move(h.prim);
  if (target.rank() > p->shape().rank()) {
    std::vector<int64_t> in(target.rank() - p->shape().rank(), 1);
    in.insert(in.end(), p->shape().begin(), p->shape().end());
    p = b.reshape(std::move(p), Shape(std::move(in)));
  }
  if (target == p->shape()) return with(h, std::move(p));
  return with(h, b.expand(std::move(p), target));
}

H flip(H h, const std::vector<int64_t>& axes) {
  Backend& b = be(h, "flip");
  Axes norm = shape_rules::normalize_axes(axes, rank(h), "flip");
  if (norm.empty()) return h;
  return with(h, b.flip(std::move(h.prim), std::move(norm)));
}

H roll(H h, const std::vector<int64_t>& shifts, const std::vector<int64_t>& dims) {
  Backend& b = be(h, "roll");
  if (shifts.size() != dims.size())
    throw ShapeError("roll", std::to_string(shifts.size()) + " shifts for " + std::to_string(dims.size()) + " dims");
  for (size_t i = 0; i < dims.size(); ++i) {
    size_t d = normalize_dim(dims[i], rank(h), "roll");
    int64_t n = shape(h)[d];
    if (n == 0) continue;
    int64_t s = shifts[i] % n;  // in (-n, n); + n only when negative, so it cannot overflow
    if (s < 0) s += n;
    if (s == 0) continue;
    Slices tail(rank(h)), head(rank(h));
    for (size_t k = 0; k < rank(h); ++k) tail[k] = head[k] = {0, shape(h)[k], 1};
    tail[d] = {n - s, n, 1};
    head[d] = {0, n - s, 1};
    h = with(h, b.cat({b.slice(h.prim, tail), b.slice(h.prim, head)}, d));
  }
  return h;
}

H repeat(H h, const std::vector<int64_t>& sizes) {
  Backend& b = be(h, "repeat");
  if (sizes.size() < rank(h))
    throw ShapeError("repeat",
                     std::to_string(sizes.size()) + " repeat counts for a tensor of rank " + std::to_string(rank(h)));
  if (sizes.size() > rank(h)) {
    std::vector<int64_t> lead(sizes.size() - rank(h));
    std::iota(lead.begin(), lead.end(), 0);
    h = unsqueeze_dims(std::move(h), lead);
  }
  // The whole output must be countable (and allocatable) before the first copy is made.
  Shape out = shape(h);
  for (size_t d = 0; d < sizes.size(); ++d) out = shape_rules::repeat_dim(out, d, sizes[d], "repeat");
  checked_bytes(out, dtype_size(h.prim->dtype()), "repeat");
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] != 1) h = with(h, b.repeat_dim(std::move(h.prim), d, sizes[d]));
  return h;
}

H narrow(H h, int64_t dim, int64_t start, int64_t length) {
  size_t d = normalize_dim(dim, rank(h), "narrow");
  int64_t n = shape(h)[d];
  int64_t s = start < 0 ? start + n : start;
  if (s < 0 || s > n || length < 0 || length > n - s)  // not s + length > n: that can overflow
    throw IndexError("narrow", "start " + std::to_string(start) + " and length " + std::to_string(length) +
                                   " exceed dim " + std::to_string(d) + " of size " + std::to_string(n));
  std::vector<Slice> sl(d + 1);
  sl[d] = Slice::range(s, s + length);
  return slice(std::move(h), sl);
}

Hs split_with_sizes(H h, const std::vector<int64_t>& sizes, int64_t dim) {
  size_t d = normalize_dim(dim, rank(h), "split_with_sizes");
  const int64_t n = shape(h)[d];
  int64_t total = 0;
  bool exceeds = false;  // summing stops at n, so huge sizes cannot overflow into a match
  for (int64_t s : sizes) {
    if (s < 0)
      throw ValueError("split_with_sizes", "negative size " + std::to_string(s) + " in " + Shape(sizes).to_string());
    if (s > n - total) exceeds = true;
    if (!exceeds) total += s;
  }
  if (exceeds || total != n)
    throw ShapeError("split_with_sizes", "sizes " + Shape(sizes).to_string() +
                                             (exceeds ? " sum to more than" : " do not sum to") + " dim " +
                                             std::to_string(d) + " of size " + std::to_string(n));
  Hs out;
  int64_t at = 0;
  for (int64_t s : sizes) {
    out.push_back(narrow(h, static_cast<int64_t>(d), at, s));
    at += s;
  }
  return out;
}

Hs split(H h, int64_t size, int64_t dim) {
  if (size <= 0) throw ValueError("split", "split size must be positive, got " + std::to_string(size));
  size_t d = normalize_dim(dim, rank(h), "split");
  int64_t n = shape(h)[d];
  // One handle per piece: an expanded dim of 2^62 split by 1 is refused, not 2^62 push_backs.
  checked_bytes(Shape{n / size + 1}, sizeof(H) + sizeof(int64_t), "split");
  std::vector<int64_t> sizes;
  for (int64_t at = 0; at < n; at += std::min(size, n - at)) sizes.push_back(std::min(size, n - at));
  if (sizes.empty()) sizes.push_back(0);
  return split_with_sizes(std::move(h), sizes, dim);
}

Hs chunk(H h, int64_t chunks, int64_t dim) {
  if (chunks <= 0) throw ValueError("chunk", "number of chunks must be positive, got " + std::to_string(chunks));
  size_t d = normalize_dim(dim, rank(h), "chunk");
  int64_t n = shape(h)[d];
  int64_t size = n == 0 ? 1 : (n - 1) / chunks + 1;  // ceil(n / chunks) without overflowing n + chunks
  return split(std::move(h), size, static_cast<int64_t>(d));
}

H cat(const Hs& hs, int64_t dim) {
  if (hs.empty()) throw ValueError("cat", "needs at least one tensor");
  const H& first = hs[0];
  Backend& b = be(first, "cat");
  size_t d = normalize_dim(dim, rank(first), "cat");
  Prims prims;
  std::vector<const Shape*> shapes;
  for (size_t i = 0; i < hs.size(); ++i) {
    same_device(first, hs[i], "cat");
    if (hs[i].prim->dtype() != first.prim->dtype())
      throw DTypeError("cat", "tensor " + std::to_string(i) + " is " + dt(hs[i].prim->dtype()) + ", tensor 0 is " +
                                  dt(first.prim->dtype()));
    prims.push_back(hs[i].prim);
    shapes.push_back(&shape(hs[i]));
  }
  shape_rules::cat(shapes, d);
  if (prims.size() == 1) return first;
  return with(first, b.cat(prims, d));
}

H stack(const Hs& hs, int64_t dim) {
  if (hs.empty()) throw ValueError("stack", "needs at least one tensor");
  size_t d = normalize_dim(dim, rank(hs[0]) + 1, "stack");
  Hs parts;
  for (size_t i = 0; i < hs.size(); ++i) {
    if (shape(hs[i]) != shape(hs[0]))
      throw ShapeError("stack", "tensor " + std::to_string(i) + " has shape " + shape(hs[i]).to_string() +
                                    ", tensor 0 has " + shape(hs[0]).to_string());
    parts.push_back(unsqueeze_dims(hs[i], {static_cast<int64_t>(d)}));
  }
  return cat(parts, static_cast<int64_t>(d));
}

H slice(H h, const std::vector<Slice>& slices) {
  Backend& b = be(h, "slice");
  NormalizedSlices n = normalize_slices(h, slices, "slice");
  bool whole = n.region == shape(h);
  for (const auto& r : n.ranges) whole = whole && r.start == 0 && r.step == 1;
  Prim p = whole ? std::move(h.prim) : b.slice(std::move(h.prim), n.ranges);
  if (!n.flips.empty()) p = b.flip(std::move(p), n.flips);
  return with(h, std::move(p));
}

H slice_assign(H h, const std::vector<Slice>& slices, const H& value) {
  Backend& b = be(h, "slice_assign");
  same_device(h, value, "slice_assign");
  same_dtype(h, value, "slice_assign");
  NormalizedSlices n = normalize_slices(h, slices, "slice_assign");
  shape_rules::slice_assign(shape(h), n.ranges, shape(value));
  H v = expand(value, n.region.dims());
  if (!n.flips.empty()) v = with(v, b.flip(v.prim, n.flips));
  if (n.region.num_elements() == 0) return h;
  return with(h, b.slice_assign(std::move(h.prim), n.ranges, std::move(v.prim)));
}

H slice_fill(H h, const std::vector<Slice>& slices, Scalar value) {
  Backend& b = be(h, "slice_fill");
  NormalizedSlices n = normalize_slices(h, slices, "slice_fill");
  if (n.region.num_elements() == 0) return h;
  Prim v = b.full(n.region, value, h.prim->dtype());
  return with(h, b.slice_assign(std::move(h.prim), n.ranges, std::move(v)));
}

H pad(H h, const std::vector<int64_t>& pads, PadMode mode, Scalar value) {
  Backend& b = be(h, "pad");
  size_t r = rank(h);
  if (pads.size() % 2 != 0 || pads.size() / 2 > r)
    throw ShapeError("pad", std::to_string(pads.size()) + " padding values for a tensor of rank " + std::to_string(r) +
                                "; expected (left, right) pairs for at most " + std::to_string(r) + " trailing dims");
  for (size_t i = 0; i < pads.size() / 2; ++i) {
    size_t d = r - 1 - i;
    int64_t left = pads[2 * i], right = pads[2 * i + 1], n = shape(h)[d];
    if (left == 0 && right == 0) continue;
    if (mode == PadMode::Constant) {
      // Negative padding crops, as in torch.nn.functional.pad; compared before negating (INT64_MIN).
      if (left < -n || right < -n)
        throw ShapeError("pad", "negative padding " + std::to_string(left) + ", " + std::to_string(right) +
                                    " removes more than dim " + std::to_string(d) + " of size " + std::to_string(n));
      int64_t crop_l = std::max<int64_t>(0, -left), crop_r = std::max<int64_t>(0, -right);
      if (crop_l + crop_r > n)
        throw ShapeError("pad", "negative padding " + std::to_string(left) + ", " + std::to_string(right) +
                                    " removes more than dim " + std::to_string(d) + " of size " + std::to_string(n));
      if (crop_l || crop_r) h = narrow(std::move(h), static_cast<int64_t>(d), crop_l, n - crop_l - crop_r);
      int64_t pl = std::max<int64_t>(0, left), pr = std::max<int64_t>(0, right);
      if (pl == 0 && pr == 0) continue;
      std::vector<int64_t> dims = shape(h).dims();
      int64_t inner = dims[d];
      dims[d] = checked_add(dims[d], checked_add(pl, pr, "pad"), "pad");
      checked_bytes(Shape(dims), dtype_size(h.prim->dtype()), "pad");
      H out{h.device, b.full(Shape(dims), value, h.prim->dtype())};
      std::vector<Slice> region(d + 1);
      region[d] = Slice::range(pl, pl + inner);
      h = slice_assign(std::move(out), region, h);
    } else {
      const char* name = mode == PadMode::Reflect ? "reflect" : "replicate";
      if (left < 0 || right < 0)
        throw ValueError("pad", std::string(name) + " padding must be non-negative, got " + std::to_string(left) +
                                    ", " + std::to_string(right));
      if (mode == PadMode::Reflect && (left >= n || right >= n))
        throw ShapeError("pad", "reflect padding " + std::to_string(left) + ", " + std::to_string(right) +
                                    " must be smaller than dim " + std::to_string(d) + " of size " + std::to_string(n));
      if (n == 0) throw ShapeError("pad", std::string(name) + " padding of an empty dim " + std::to_string(d));
      // The output and the index list are checked before the list is built.
      std::vector<int64_t> dims = shape(h).dims();
      dims[d] = checked_add(n, checked_add(left, right, "pad"), "pad");
      checked_bytes(Shape(dims), dtype_size(h.prim->dtype()), "pad");
      checked_bytes(Shape{dims[d]}, sizeof(int64_t), "pad");
      std::vector<int64_t> idx;
      for (int64_t i = -left; i < n + right; ++i) {
        int64_t j = mode == PadMode::Reflect ? (i < 0    ? -i
                                                : i >= n ? 2 * (n - 1) - i
                                                         : i)
                                             : std::clamp<int64_t>(i, 0, n - 1);
        idx.push_back(j);
      }
      Prim ip = b.from_data(TensorData::from_vector(idx, Shape{static_cast<int64_t>(idx.size())}));
      h = with(h, b.select(std::move(h.prim), d, std::move(ip)));
    }
  }
  return h;
}

H movedim(H h, const std::vector<int64_t>& source, const std::vector<int64_t>& destination) {
  be(h, "movedim");
  const size_t r = rank(h);
  if (source.size() != destination.size())
    throw ShapeError("movedim", "source " + Shape(source).to_string() + " and destination " +
                                    Shape(destination).to_string() + " name different numbers of dims");
  const Axes src = shape_rules::normalize_axes(source, r, "movedim");
  const Axes dst = shape_rules::normalize_axes(destination, r, "movedim");
  // order[p] is the input dim that lands at output position p; the unnamed dims keep their order.
  std::vector<int64_t> order(r, -1);
  std::vector<bool> moved(r, false);
  for (size_t i = 0; i < src.size(); ++i) {
    order[static_cast<size_t>(dst[i])] = src[i];
    moved[static_cast<size_t>(src[i])] = true;
  }
  size_t next = 0;
  for (size_t p = 0; p < r; ++p) {
    if (order[p] >= 0) continue;
    while (moved[next]) ++next;
    order[p] = static_cast<int64_t>(next++);
  }
  bool identity = true;
  for (size_t p = 0; p < r; ++p) identity = identity && order[p] == static_cast<int64_t>(p);
  return identity ? h : permute(std::move(h), order);
}

H unfold(H h, int64_t dim, int64_t size, int64_t step) {
  Backend& b = be(h, "unfold");
  const size_t d = normalize_dim(dim, rank(h), "unfold");
  const int64_t n = shape(h)[d];
  if (step <= 0) throw ValueError("unfold", "step must be positive, got " + std::to_string(step));
  if (size < 0) throw ValueError("unfold", "window size must be non-negative, got " + std::to_string(size));
  if (size > n)
    throw ShapeError("unfold", "window size " + std::to_string(size) + " exceeds dim " + std::to_string(d) +
                                   " of size " + std::to_string(n) + " in " + shape(h).to_string());
  const int64_t windows = checked_add((n - size) / step, 1, "unfold");  // n + 1 empty windows when size is 0
  // The windows split dim d into [windows, size]; the window dim then moves last.
  std::vector<int64_t> split = shape(h).dims();
  split[d] = windows;
  split.insert(split.begin() + static_cast<std::ptrdiff_t>(d) + 1, size);
  int64_t count = 1;  // the output's elements: overlapping windows can outgrow the input
  for (int64_t s : split)
    if (__builtin_mul_overflow(count, s, &count))
      throw ShapeError("unfold", "windows of size " + std::to_string(size) + " step " + std::to_string(step) +
                                     " over " + shape(h).to_string() + " have more than 2^63 elements");
  const int64_t di = static_cast<int64_t>(d), last = static_cast<int64_t>(split.size()) - 1;
  if (size == 0) return movedim(reshape(narrow(std::move(h), di, 0, 0), split), {di + 1}, {last});
  // With g = gcd(size, step), dim d read as tiles of g holds window w as tiles w*q .. w*q + r - 1
  // (q = step / g, r = size / g): r strided slices of the tiles, side by side, are the windows. No
  // index tensor; a single view when r = 1 (step a multiple of size), one copy (cat) otherwise.
  const int64_t g = std::gcd(size, step), r = size / g, q = step / g;
  if (r <= 16) {
    const int64_t tiles = (windows - 1) * q + r;
    std::vector<int64_t> tiled = shape(h).dims();
    tiled[d] = tiles;
    tiled.insert(tiled.begin() + static_cast<std::ptrdiff_t>(d) + 1, g);
    H t = reshape(narrow(std::move(h), di, 0, tiles * g), tiled);
    Hs pieces;
    for (int64_t j = 0; j < r; ++j) {
      std::vector<Slice> sl(d + 1);
      sl[d] = Slice::range(j, j + (windows - 1) * q + 1, q);
      pieces.push_back(slice(t, sl));
    }
    return movedim(cat(pieces, di + 1), {di + 1}, {last});
  }
  // Long windows made of many tiles: one select with the indices w * step + j, made on the device.
  Prim w = b.mul_scalar(b.reshape(b.arange(0, windows, 1, DType::I64), Shape{windows, 1}), step);
  Prim j = b.reshape(b.arange(0, size, 1, DType::I64), Shape{1, size});
  H idx{h.device, b.reshape(b.add(std::move(w), std::move(j)), Shape{windows * size})};
  return movedim(reshape(select(std::move(h), di, idx), split), {di + 1}, {last});
}

Hs iter_dim(const H& h, int64_t dim) {
  be(h, "iter_dim");
  const size_t d = normalize_dim(dim, rank(h), "iter_dim");
  checked_bytes(Shape{shape(h)[d]}, sizeof(H), "iter_dim");  // one handle per index, as split
  Hs out;
  for (int64_t i = 0; i < shape(h)[d]; ++i) out.push_back(narrow(h, static_cast<int64_t>(d), i, 1));
  return out;
}

}  // namespace burn::api
