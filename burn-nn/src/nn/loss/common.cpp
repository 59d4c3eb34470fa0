// Input checks and reductions shared by every loss.
#include "common.hpp"

#include <sstream>

namespace burn::nn::loss::detail {

const Shape& shape_of(const H& h, const char* op, const char* what) {
  if (!h.prim) throw ValueError(op, std::string(what) + " is an empty tensor");
  return h.prim->shape();
}

static void require_kind(const H& h, Kind k, const char* op, const char* what, int64_t rank) {
  const Shape& s = shape_of(h, op, what);
  if (api::kind_of(h.prim->dtype()) != k)
    throw DTypeError(op, std::string(what) + " must be " + (k == Kind::Float ? "a float" : "an int") + " tensor, got " +
                             std::string(dtype_name(h.prim->dtype())));
  if (rank >= 0 && static_cast<int64_t>(s.rank()) != rank)
    throw ShapeError(op,
                     std::string(what) + " must have rank " + std::to_string(rank) + ", got shape " + s.to_string());
}

void require_float(const H& h, const char* op, const char* what, int64_t rank) {
  require_kind(h, Kind::Float, op, what, rank);
}
void require_int(const H& h, const char* op, const char* what, int64_t rank) {
  require_kind(h, Kind::Int, op, what, rank);
}

void require_same_shape(const H& a, const H& b, const char* op, const char* what_a, const char* what_b) {
  const Shape& sa = shape_of(a, op, what_a);
  const Shape& sb = shape_of(b, op, what_b);
  if (sa != sb)
    throw ShapeError(op, std::string(what_a) + " " + sa.to_string() + " and " + what_b + " " + sb.to_string() +
                             " must have the same shape");
}

H reduce(H loss, Red r, const char* op) {
  if (!r) return loss;
  switch (*r) {
    case Reduction::Mean:
    case Reduction::Auto: return api::reduce_all(OpId::mean, std::move(loss));
    case Reduction::Sum: return api::reduce_all(OpId::sum, std::move(loss));
    case Reduction::BatchMean: break;
  }
  refuse_batch_mean(r, op);
  return loss;
}

void refuse_batch_mean(Red r, const char* op) {
  if (r == Reduction::BatchMean)
    throw ValueError(op, "Reduction::BatchMean is only for KlDivLoss; use Mean, Sum or forward_no_reduction");
}

std::optional<Tensor<1>> class_vector(const std::vector<double>& v, const Device& d) {
  if (v.empty()) return std::nullopt;
  return Tensor<1>::from_vector(v, Shape{static_cast<int64_t>(v.size())}, d);
}

H like(const H& h, const H& like) {
  H out = h.device == like.device ? h : api::to_device(h, like.device);
  return out.prim->dtype() == like.prim->dtype() ? out : api::cast(std::move(out), like.prim->dtype());
}

std::vector<int64_t> int_values(const H& h) { return api::into_data(h).convert(DType::I64).to_vec<int64_t>(); }

std::pair<double, double> min_max(const H& h) {
  if (shape_of(h, "min_max", "tensor").num_elements() == 0) return {0.0, 0.0};
  const double lo = api::into_data(api::reduce_all(OpId::min, h)).convert(DType::F64).to_vec<double>()[0];
  const double hi = api::into_data(api::reduce_all(OpId::max, h)).convert(DType::F64).to_vec<double>()[0];
  return {lo, hi};
}

std::string num(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace burn::nn::loss::detail
