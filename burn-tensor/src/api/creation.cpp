// Tensor API: creation, data movement, casts and printing.
#include <limits>
#include <sstream>

#include "burn/tensor/autodiff.hpp"
#include "checks.hpp"

namespace burn {

namespace api {
using namespace detail;

Kind kind_of(DType d) { return is_float(d) ? Kind::Float : is_bool(d) ? Kind::Bool : Kind::Int; }

DType default_dtype(Kind k) { return k == Kind::Float ? DType::F32 : k == Kind::Int ? DType::I64 : DType::Bool; }

void throw_empty_tensor(const char* op) {
  throw ValueError(op, "the tensor is empty (default-constructed or moved-from)");
}

void check_tensor(const H& h, size_t r, Kind kind, const char* op) {
  if (!h.prim) throw ValueError(op, "null tensor primitive");
  if (h.prim->shape().rank() != r)
    throw ShapeError(op, "a rank-" + std::to_string(r) + " tensor cannot hold shape " + h.prim->shape().to_string());
  if (kind_of(h.prim->dtype()) != kind) {
    static const char* names[] = {"Float", "Int", "Bool"};
    throw DTypeError(
        op, std::string("a ") + names[static_cast<int>(kind)] + " tensor cannot hold dtype " + dt(h.prim->dtype()));
  }
}

H empty(const Device& d, const Shape& s, DType t) {
  Backend& b = dev(d, "empty");
  checked_bytes(s, dtype_size(t), "empty");
  return {d, b.empty(s, t)};
}

H full(const Device& d, const Shape& s, Scalar v, DType t) {
  Backend& b = dev(d, "full");
  checked_bytes(s, dtype_size(t), "full");
  return {d, b.full(s, v, t)};
}

H from_data(const Device& d, const TensorData& data, Kind kind) {
  Backend& b = dev(d, "from_data");
  if (kind_of(data.dtype()) == kind) return {d, b.from_data(data)};
  return {d, b.from_data(data.convert(default_dtype(kind)))};
}

H arange(const Device& d, int64_t start, int64_t end, int64_t step, DType t) {
  Backend& b = dev(d, "arange");
  checked_bytes(Shape{arange_length(start, end, step, t, "arange")}, dtype_size(t), "arange");
  return {d, b.arange(start, end, step, t)};
}

H eye(const Device& d, int64_t n, int64_t m, DType t) {
  Backend& b = dev(d, "eye");
  if (n < 0 || m < 0) throw ShapeError("eye", "negative size " + std::to_string(n) + " x " + std::to_string(m));
  checked_bytes(Shape{n, m}, dtype_size(t), "eye");
  Prim rows = b.reshape(b.arange(0, n, 1, DType::I64), Shape{n, 1});
  Prim cols = b.reshape(b.arange(0, m, 1, DType::I64), Shape{1, m});
  return {d, b.cast(b.equal(std::move(rows), std::move(cols)), t)};
}

H random(const Device& d, const Shape& s, const Distribution& dist, DType t) {
  Backend& b = dev(d, "random");
  checked_bytes(s, dtype_size(t), "random");
  return {d, b.random(s, dist, t)};
}

TensorData into_data(const H& h) { return be(h, "into_data").into_data(h.prim); }

H to_device(const H& h, const Device& d) {
  Backend& b = dev(d, "to_device");
  if (h.device == d) return h;
  return {d, b.from_data(into_data(h))};
}

H cast(H h, DType t) {
  Backend& b = be(h, "cast");
  if (h.prim->dtype() == t) return h;
  return with(h, b.cast(std::move(h.prim), t));
}

H cartesian_grid(const Device& d, const Shape& s, DType t) {
  check_shape(s, "cartesian_grid");
  if (s.rank() == 0) throw ShapeError("cartesian_grid", "needs a shape of rank >= 1, got []");
  if (!is_int(t)) throw DTypeError("cartesian_grid", "coordinates are integers; got dtype " + dt(t));
  const size_t r = s.rank();
  std::vector<int64_t> grid = s.dims();
  grid.push_back(1);
  Hs coords;
  for (size_t i = 0; i < r; ++i) {
    std::vector<int64_t> line(r + 1, 1);
    line[i] = s[i];
    coords.push_back(expand(reshape(arange(d, 0, s[i], 1, t), line), grid));
  }
  return cat(coords, static_cast<int64_t>(r));
}

Hs meshgrid(const Hs& hs, GridIndexing indexing) {
  if (hs.empty()) throw ValueError("meshgrid", "needs at least one tensor");
  std::vector<int64_t> grid;
  for (size_t i = 0; i < hs.size(); ++i) {
    same_device(hs[0], hs[i], "meshgrid");
    if (hs[i].prim->dtype() != hs[0].prim->dtype())
      throw DTypeError("meshgrid", "tensor " + std::to_string(i) + " is " + dt(hs[i].prim->dtype()) + ", tensor 0 is " +
                                       dt(hs[0].prim->dtype()) + "; all must have one dtype");
    if (rank(hs[i]) != 1)
      throw ShapeError("meshgrid", "tensor " + std::to_string(i) + " has shape " + shape(hs[i]).to_string() +
                                       "; inputs must be 1-D");
    grid.push_back(shape(hs[i])[0]);
  }
  // "xy": the first two inputs index the grid's second and first dims.
  std::vector<size_t> at(hs.size());
  for (size_t i = 0; i < hs.size(); ++i) at[i] = i;
  if (indexing == GridIndexing::Cartesian && hs.size() >= 2) {
    std::swap(at[0], at[1]);
    std::swap(grid[0], grid[1]);
  }
  Hs out;
  for (size_t i = 0; i < hs.size(); ++i) {
    std::vector<int64_t> line(hs.size(), 1);
    line[at[i]] = shape(hs[i])[0];
    out.push_back(expand(reshape(hs[i], line), grid));
  }
  return out;
}

// With replacement: inverse-CDF sampling, v = u * total with u uniform in [0, 1), class = how many
// cumulative weights are <= v. For few draws that count compares each v with each cumulative weight
// (C * S); for many it is a stable sort of both (a cumulative weight equal to v sorts first), which
// costs O((C + S) log(C + S)) per row. A zero-weight class has the cumulative weight of the class
// before it, so no v falls into it.
// Without replacement: the S largest keys w / E, E ~ Exp(1) (an exponential race, equivalent to
// Gumbel top-k), draw sequentially without replacement exactly as torch.multinomial does.
H categorical(const H& weights, int64_t num_samples, bool replacement) {
  const char* op = "categorical";
  be(weights, op);
  require_float(weights, op);
  if (rank(weights) == 0 || rank(weights) > 2)
    throw ShapeError(op, "weights must be 1-D or 2-D (rows of class weights), got shape " + shape(weights).to_string());
  if (num_samples <= 0) throw ValueError(op, "num_samples must be positive, got " + std::to_string(num_samples));
  const bool one_row = rank(weights) == 1;
  H w = cast(detach(weights), DType::F64);
  if (one_row) w = reshape(std::move(w), {1, -1});
  const int64_t rows = shape(w)[0], classes = shape(w)[1];
  if (!replacement && num_samples > classes)
    throw ValueError(op, "cannot draw " + std::to_string(num_samples) + " samples without replacement from " +
                             std::to_string(classes) + " classes");
  const Device& dev = weights.device;
  std::vector<int64_t> out_shape =
      one_row ? std::vector<int64_t>{num_samples} : std::vector<int64_t>{rows, num_samples};
  if (rows == 0) return empty(dev, Shape(out_shape), DType::I64);
  if (classes == 0) throw ValueError(op, "weights " + shape(weights).to_string() + " have no classes");
  // Bad weights are found from the smallest and largest weight (NaN propagates through both) and
  // empty rows from the samples' own by-products, in one host read after the draw.
  H range = cat({reduce_all(OpId::min, w), reduce_all(OpId::max, w)}, 0);
  H picked, fewest;  // fewest: the smallest row total (with replacement) or positive count (without)
  if (replacement) {
    H cdf = reduce_dim(OpId::cumsum, w, 1);
    H total = narrow(cdf, 1, classes - 1, 1);
    H v = mul(random(dev, Shape{rows, num_samples}, Distribution::uniform(0.0, 1.0), DType::F64), total);
    // u * total can round up to total (probability < 2^-52, below the cumulative sum's own rounding):
    // such a draw is taken as u = 0, so no draw lies past the last class of positive weight.
    v = mask_fill(std::move(v), compare(OpId::greater_equal, v, total), 0.0);
    if (num_samples <= (int64_t{1} << 23) / classes / rows) {
      // Few draws (sampling a token per row): compare every draw with every cumulative weight.
      H le = compare(OpId::lower_equal, reshape(cdf, {rows, 1, classes}), reshape(v, {rows, num_samples, 1}));
      picked = cast(reshape(reduce_dim(OpId::sum_dim, cast(le, DType::I32), 2), {rows, num_samples}), DType::I64);
    } else {
      H order = argsort(cat({cdf, v}, 1), 1, false, true);
      H counts = reduce_dim(OpId::cumsum, cast(compare_elem(OpId::lower_elem, order, classes), DType::I64), 1);
      // counts[p] belongs to the merged entry order[p]; scatter puts it back in merged order.
      H back = scatter_add(full(dev, Shape{rows, classes + num_samples}, int64_t{0}, DType::I64), 1, order, counts);
      picked = narrow(back, 1, classes, num_samples);
    }
    fewest = reduce_all(OpId::min, total);
  } else {
    // The exponential race: keys w / E with E ~ Exp(1) (E = -log(1 - u), 1 - u in (0, 1]); zero
    // weights get -1, below every key of a positive weight (>= 0 even when w / E underflows).
    H e =
        unary(OpId::neg,
              unary(OpId::log,
                    rsub_scalar(random(dev, Shape{rows, classes}, Distribution::uniform(0.0, 1.0), DType::F64), 1.0)));
    H keys = mask_fill(div(w, e), compare_elem(OpId::equal_elem, w, 0.0), -1.0);
    auto [top, idx] = topk_with_indices(std::move(keys), num_samples, 1, true);
    picked = std::move(idx);
    fewest = cast(reduce_all(OpId::min, reduce_dim(OpId::sum_dim,
                                                   cast(compare_elem(OpId::greater_elem, top, -0.5), DType::I64), 1)),
                  DType::F64);
  }
  std::vector<double> st = into_data(cat({range, fewest}, 0)).to_vec<double>();
  if (!(st[0] >= 0) || !(st[1] < std::numeric_limits<double>::infinity()))
    throw ValueError(
        op, "weights must be finite and non-negative; found " +
                TensorData::from_vector(std::vector<double>{st[0] >= 0 ? st[1] : st[0]}, Shape{1}).to_string());
  if (!(st[2] > 0)) throw ValueError(op, "a row of weights is all zero: nothing to draw");
  if (!replacement && st[2] < static_cast<double>(num_samples))
    throw ValueError(op, "a row has only " + std::to_string(static_cast<int64_t>(st[2])) +
                             " classes of positive weight; cannot draw " + std::to_string(num_samples) +
                             " samples without replacement");
  return reshape(std::move(picked), out_shape);
}

std::string to_string(const H& h) {
  be(h, "to_string");
  std::ostringstream os;
  os << "Tensor {\n  data:\n"
     << into_data(h).to_string() << ",\n  shape:  " << shape(h).to_string() << ",\n  device:  " << h.device.name()
     << ",\n  dtype:  " << dt(h.prim->dtype()) << ",\n}";
  return os.str();
}

}  // namespace api
}  // namespace burn
