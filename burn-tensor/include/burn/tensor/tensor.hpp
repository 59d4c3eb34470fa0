// Tensor<D, K>: Burn's tensor API with a static rank D and kind K (Float, Int, Bool). A cheap value
// handle; every method is a one-line forward to the non-template functions of api.hpp.
#pragma once

#include <array>
#include <optional>
#include <ostream>
#include <string_view>
#include <type_traits>
#include <vector>

#include "burn/tensor/api.hpp"
#include "burn/tensor/autodiff.hpp"

namespace burn {

struct Float {
  static constexpr Kind kind = Kind::Float;
  static constexpr DType dtype = DType::F32;
};
struct Int {
  static constexpr Kind kind = Kind::Int;
  static constexpr DType dtype = DType::I64;
};
struct Bool {
  static constexpr Kind kind = Kind::Bool;
  static constexpr DType dtype = DType::Bool;
};

template <size_t D, typename K = Float>
class Tensor;

namespace detail {
template <size_t D>
std::vector<int64_t> dims_of(const int64_t (&a)[D]) {
  return std::vector<int64_t>(a, a + D);
}
}  // namespace detail

// Elementwise methods get an rvalue overload so that `std::move(x).exp()` and chains such as
// `(x * 2 + 1).relu()` hand the backend their only reference and it can reuse the buffer.
// `requires` makes kind misuse (exp of an Int tensor) a compile error rather than a run-time one.
#define BURN_TENSOR_UNARY(method, op, when)                                          \
  Tensor method() const& requires(when) { return Tensor(api::unary(OpId::op, h_)); } \
  Tensor method() && requires(when) { return Tensor(api::unary(OpId::op, std::move(h_))); }
#define BURN_TENSOR_UNARY_TO(method, op, K2)                                                         \
  Tensor<D, K2> method() const& requires(kFloat) { return Tensor<D, K2>(api::unary(OpId::op, h_)); } \
  Tensor<D, K2> method() && requires(kFloat) { return Tensor<D, K2>(api::unary(OpId::op, std::move(h_))); }

template <size_t D, typename K>
class Tensor {
  static_assert(D >= 1, "Tensor rank must be at least 1");
  static constexpr bool kFloat = std::is_same_v<K, Float>;
  static constexpr bool kInt = std::is_same_v<K, Int>;
  static constexpr bool kBool = std::is_same_v<K, Bool>;
  static constexpr bool kNumeric = kFloat || kInt;

 public:
  Tensor() = default;
  explicit Tensor(TensorHandle h) : h_(std::move(h)) { api::check_tensor(h_, D, K::kind, "Tensor"); }

  // ---- creation ----
  static Tensor empty(const Shape& s, const Device& d, DType dt = K::dtype) { return Tensor(api::empty(d, s, dt)); }
  static Tensor zeros(const Shape& s, const Device& d, DType dt = K::dtype) { return Tensor(api::full(d, s, 0, dt)); }
  static Tensor ones(const Shape& s, const Device& d, DType dt = K::dtype) { return Tensor(api::full(d, s, 1, dt)); }
  static Tensor full(const Shape& s, Scalar v, const Device& d, DType dt = K::dtype) {
    return Tensor(api::full(d, s, v, dt));
  }
  static Tensor from_data(const TensorData& data, const Device& d) { return Tensor(api::from_data(d, data, K::kind)); }
  template <typename T>
  static Tensor from_vector(const std::vector<T>& v, const Shape& s, const Device& d) {
    return from_data(TensorData::from_vector(v, s), d);
  }
  template <typename T>
  static Tensor from_list(std::initializer_list<T> v, const Device& d) {
    static_assert(D == 1, "from_list makes a 1-D tensor; use from_vector with a shape");
    return from_vector(std::vector<T>(v), Shape{static_cast<int64_t>(v.size())}, d);
  }
  static Tensor arange(int64_t start, int64_t end, const Device& d, int64_t step = 1, DType dt = K::dtype) {
    static_assert(D == 1, "arange makes a 1-D tensor");
    return Tensor(api::arange(d, start, end, step, dt));
  }
  static Tensor eye(int64_t n, const Device& d, DType dt = K::dtype) {
    static_assert(D == 2, "eye makes a 2-D tensor");
    return Tensor(api::eye(d, n, n, dt));
  }
  static Tensor random(const Shape& s, const Distribution& dist, const Device& d, DType dt = K::dtype) {
    return Tensor(api::random(d, s, dist, dt));
  }
  Tensor empty_like() const { return empty(shape(), device(), dtype()); }
  Tensor zeros_like() const { return zeros(shape(), device(), dtype()); }
  Tensor ones_like() const { return ones(shape(), device(), dtype()); }
  Tensor full_like(Scalar v) const { return full(shape(), v, device(), dtype()); }
  Tensor random_like(const Distribution& dist) const { return random(shape(), dist, device(), dtype()); }
  // [..s, D]: each element's coordinates (Burn): Tensor<2, Int>::cartesian_grid({2, 3}, d) is [2, 3, 2].
  static Tensor<D + 1, Int> cartesian_grid(const Shape& s, const Device& d, DType dt = DType::I64) requires(kInt) {
    return Tensor<D + 1, Int>(api::cartesian_grid(d, s, dt));
  }
  // N 1-D tensors -> N grids of rank N (torch.meshgrid; Matrix = "ij", Cartesian = "xy").
  template <size_t N>
  static std::array<Tensor<N, K>, N> meshgrid(const std::array<Tensor, N>& ts,
                                              GridIndexing indexing = GridIndexing::Matrix) requires(D == 1) {
    std::vector<TensorHandle> hs = api::meshgrid(handles(std::vector<Tensor>(ts.begin(), ts.end())), indexing);
    std::array<Tensor<N, K>, N> out;
    for (size_t i = 0; i < N; ++i) out[i] = Tensor<N, K>(std::move(hs[i]));
    return out;
  }
  // Class indices drawn per row of weights (torch.multinomial), from the device's generator.
  Tensor<D, Int> categorical(int64_t num_samples, bool replacement = false) const requires(kFloat&& D <= 2) {
    return Tensor<D, Int>(api::categorical(h_, num_samples, replacement));
  }

  // ---- information and data ----
  // An empty (default-constructed or moved-from) tensor has no primitive: these throw ValueError.
  const Shape& shape() const { return prim("shape").shape(); }
  int64_t dim(int64_t i) const { return prim("dim").shape()[normalize_dim(i, D, "dim")]; }
  DType dtype() const { return prim("dtype").dtype(); }
  const Device& device() const { return h_.device; }
  static constexpr size_t rank() { return D; }
  int64_t num_elements() const { return prim("num_elements").shape().num_elements(); }
  const TensorHandle& handle() const { return h_; }
  TensorData into_data() const { return api::into_data(h_); }
  TensorData to_data() const { return api::into_data(h_); }
  template <typename T>
  std::vector<T> to_vec() const {
    return into_data().convert(dtype_of<T>()).template to_vec<T>();
  }
  template <typename T>
  T item() const {
    return to_vec<T>().at(0);
  }
  Tensor to_device(const Device& d) const { return Tensor(api::to_device(h_, d)); }
  std::string to_string() const { return api::to_string(h_); }

  // ---- kinds and dtypes ----
  Tensor cast(DType dt) const { return Tensor(api::cast(h_, dt)); }
  Tensor<D, Float> to_float(DType dt = DType::F32) const { return Tensor<D, Float>(api::cast(h_, dt)); }
  Tensor<D, Int> to_int(DType dt = DType::I64) const { return Tensor<D, Int>(api::cast(h_, dt)); }
  Tensor<D, Bool> to_bool() const { return Tensor<D, Bool>(api::cast(h_, DType::Bool)); }

  // ---- layout ----
  template <size_t D2>
  Tensor<D2, K> reshape(const int64_t (&dims)[D2]) const {
    return Tensor<D2, K>(api::reshape(h_, detail::dims_of(dims)));
  }
  template <size_t D2>
  Tensor<D2, K> reshape(const Shape& s) const {
    return Tensor<D2, K>(api::reshape(h_, s.dims()));
  }
  Tensor permute(const int64_t (&axes)[D]) const { return Tensor(api::permute(h_, detail::dims_of(axes))); }
  Tensor swap_dims(int64_t a, int64_t b) const { return Tensor(api::swap_dims(h_, a, b)); }
  Tensor transpose() const { return Tensor(api::swap_dims(h_, -2, -1)); }
  template <size_t D2>
  Tensor<D2, K> flatten(int64_t start, int64_t end) const {
    return Tensor<D2, K>(api::flatten(h_, start, end));
  }
  template <size_t D2>
  Tensor<D2, K> squeeze(int64_t dim) const {
    return Tensor<D2, K>(api::squeeze_dims(h_, {dim}));
  }
  template <size_t D2>
  Tensor<D2, K> squeeze_dims(const std::vector<int64_t>& dims) const {
    return Tensor<D2, K>(api::squeeze_dims(h_, dims));
  }
  template <size_t D2>
  Tensor<D2, K> unsqueeze() const {  // adds leading dims, as Burn
    std::vector<int64_t> dims;
    for (size_t i = 0; i < D2 - D; ++i) dims.push_back(static_cast<int64_t>(i));
    return Tensor<D2, K>(api::unsqueeze_dims(h_, dims));
  }
  template <size_t D2>
  Tensor<D2, K> unsqueeze_dim(int64_t dim) const {
    return Tensor<D2, K>(api::unsqueeze_dims(h_, {dim}));
  }
  template <size_t D2>
  Tensor<D2, K> unsqueeze_dims(const std::vector<int64_t>& dims) const {
    return Tensor<D2, K>(api::unsqueeze_dims(h_, dims));
  }
  template <size_t D2>
  Tensor<D2, K> expand(const int64_t (&dims)[D2]) const {
    return Tensor<D2, K>(api::expand(h_, detail::dims_of(dims)));
  }
  Tensor flip(const std::vector<int64_t>& axes) const { return Tensor(api::flip(h_, axes)); }
  Tensor roll(const std::vector<int64_t>& shifts, const std::vector<int64_t>& dims) const {
    return Tensor(api::roll(h_, shifts, dims));
  }
  Tensor roll_dim(int64_t shift, int64_t dim) const { return Tensor(api::roll(h_, {shift}, {dim})); }
  Tensor repeat(const int64_t (&sizes)[D]) const { return Tensor(api::repeat(h_, detail::dims_of(sizes))); }
  Tensor repeat_dim(int64_t dim, int64_t times) const {
    std::vector<int64_t> s(D, 1);
    s[normalize_dim(dim, D, "repeat_dim")] = times;
    return Tensor(api::repeat(h_, s));
  }
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const {
    return Tensor(api::narrow(h_, dim, start, length));
  }
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim) const { return wrap_all(api::chunk(h_, chunks, dim)); }
  std::vector<Tensor> split(int64_t size, int64_t dim) const { return wrap_all(api::split(h_, size, dim)); }
  std::vector<Tensor> split_with_sizes(const std::vector<int64_t>& sizes, int64_t dim) const {
    return wrap_all(api::split_with_sizes(h_, sizes, dim));
  }
  static Tensor cat(const std::vector<Tensor>& ts, int64_t dim) { return Tensor(api::cat(handles(ts), dim)); }
  template <size_t D2>
  static Tensor<D2, K> stack(const std::vector<Tensor>& ts, int64_t dim) {
    return Tensor<D2, K>(api::stack(handles(ts), dim));
  }
  Tensor slice(const std::vector<Slice>& s) const { return Tensor(api::slice(h_, s)); }
  Tensor slice_assign(const std::vector<Slice>& s, const Tensor& v) const {
    return Tensor(api::slice_assign(h_, s, v.h_));
  }
  Tensor slice_fill(const std::vector<Slice>& s, Scalar v) const { return Tensor(api::slice_fill(h_, s, v)); }
  Tensor pad(const std::vector<int64_t>& pads, PadMode mode = PadMode::Constant, Scalar value = 0) const {
    return Tensor(api::pad(h_, pads, mode, value));
  }
  // Windows of `size` every `step` along dim, as a new last dim (torch.Tensor.unfold).
  Tensor<D + 1, K> unfold(int64_t dim, int64_t size, int64_t step) const {
    return Tensor<D + 1, K>(api::unfold(h_, dim, size, step));
  }
  Tensor movedim(int64_t source, int64_t destination) const {
    return Tensor(api::movedim(h_, {source}, {destination}));
  }
  Tensor movedim(const std::vector<int64_t>& source, const std::vector<int64_t>& destination) const {
    return Tensor(api::movedim(h_, source, destination));
  }
  // The slices along dim, each keeping it with size 1 (Burn's iter_dim), as views.
  std::vector<Tensor> iter_dim(int64_t dim) const { return wrap_all(api::iter_dim(h_, dim)); }

  // ---- indexing ----
  Tensor select(int64_t dim, const Tensor<1, Int>& idx) const { return Tensor(api::select(h_, dim, idx.handle())); }
  Tensor select_assign(int64_t dim, const Tensor<1, Int>& idx, const Tensor& v) const {
    return Tensor(api::select_assign(h_, dim, idx.handle(), v.h_));
  }
  Tensor gather(int64_t dim, const Tensor<D, Int>& idx) const { return Tensor(api::gather(h_, dim, idx.handle())); }
  Tensor scatter(int64_t dim, const Tensor<D, Int>& idx, const Tensor& v) const {  // adds, as Burn's scatter
    return Tensor(api::scatter_add(h_, dim, idx.handle(), v.h_));
  }
  Tensor mask_where(const Tensor<D, Bool>& mask, const Tensor& v) const {
    return Tensor(api::mask_where(h_, mask.handle(), v.h_));
  }
  Tensor mask_fill(const Tensor<D, Bool>& mask, Scalar v) const { return Tensor(api::mask_fill(h_, mask.handle(), v)); }
  Tensor<2, Int> argwhere() const { return Tensor<2, Int>(api::argwhere(h_)); }
  std::vector<Tensor<1, Int>> nonzero() const {
    std::vector<Tensor<1, Int>> out;
    for (auto& h : api::nonzero(h_)) out.emplace_back(std::move(h));
    return out;
  }
  template <typename K2 = K>
  Tensor<D + 1, K2> one_hot(int64_t num_classes, DType dt = K2::dtype) const {
    return Tensor<D + 1, K2>(api::one_hot(h_, num_classes, dt));
  }
  Tensor tril(int64_t diagonal = 0) const { return Tensor(api::tril(h_, diagonal)); }
  Tensor triu(int64_t diagonal = 0) const { return Tensor(api::triu(h_, diagonal)); }
  static Tensor<D, Bool> tril_mask(const Shape& s, int64_t diagonal, const Device& d) {
    return Tensor<D, Bool>(api::tril_mask(d, s, diagonal));
  }
  static Tensor<D, Bool> triu_mask(const Shape& s, int64_t diagonal, const Device& d) {
    return Tensor<D, Bool>(api::triu_mask(d, s, diagonal));
  }
  // Flat (row-major) indices, negative from the end; the result has the indices' shape (torch.take).
  template <size_t DI>
  Tensor<DI, K> take(const Tensor<DI, Int>& indices) const {
    return Tensor<DI, K>(api::take(h_, indices.handle()));
  }
  // ONNX GatherND / ScatterND (batch_dims 0); the output rank depends on indices.shape[-1]: name it.
  template <size_t DO, size_t DI>
  Tensor<DO, K> gather_nd(const Tensor<DI, Int>& indices) const {
    return Tensor<DO, K>(api::gather_nd(h_, indices.handle()));
  }
  template <size_t DI, size_t DU>
  Tensor scatter_nd(const Tensor<DI, Int>& indices, const Tensor<DU, K>& updates,
                    ScatterReduction reduction = ScatterReduction::None) const {
    return Tensor(api::scatter_nd(h_, indices.handle(), updates.handle(), reduction));
  }
  // The elements where the mask (broadcast with the tensor) is true, in row-major order.
  template <size_t DM>
  Tensor<1, K> mask_select(const Tensor<DM, Bool>& mask) const {
    return Tensor<1, K>(api::mask_select(h_, mask.handle()));
  }

  // ---- numeric ----
  Tensor add(const Tensor& o) const requires(kNumeric) { return Tensor(api::add(h_, o.h_)); }
  Tensor sub(const Tensor& o) const requires(kNumeric) { return Tensor(api::sub(h_, o.h_)); }
  Tensor mul(const Tensor& o) const requires(kNumeric) { return Tensor(api::mul(h_, o.h_)); }
  Tensor div(const Tensor& o) const requires(kNumeric) { return Tensor(api::div(h_, o.h_)); }
  Tensor remainder(const Tensor& o) const requires(kNumeric) { return Tensor(api::remainder(h_, o.h_)); }
  Tensor add_scalar(Scalar s) const requires(kNumeric) { return Tensor(api::add_scalar(h_, s)); }
  Tensor sub_scalar(Scalar s) const requires(kNumeric) { return Tensor(api::sub_scalar(h_, s)); }
  Tensor mul_scalar(Scalar s) const requires(kNumeric) { return Tensor(api::mul_scalar(h_, s)); }
  Tensor div_scalar(Scalar s) const requires(kNumeric) { return Tensor(api::div_scalar(h_, s)); }
  Tensor remainder_scalar(Scalar s) const requires(kNumeric) { return Tensor(api::remainder_scalar(h_, s)); }
  Tensor fmod(const Tensor& o) const requires(kNumeric) { return Tensor(api::fmod(h_, o.h_)); }  // sign of this
  Tensor fmod_scalar(Scalar s) const requires(kNumeric) { return Tensor(api::fmod_scalar(h_, s)); }
  Tensor powf(const Tensor& o) const requires(kFloat) { return Tensor(api::powf(h_, o.h_)); }
  Tensor powf_scalar(Scalar s) const requires(kFloat) { return Tensor(api::powf_scalar(h_, s)); }
  Tensor powi(const Tensor<D, Int>& o) const { return Tensor(api::powi(h_, o.handle())); }
  Tensor powi_scalar(int64_t e) const { return Tensor(api::powi_scalar(h_, e)); }
  Tensor max_pair(const Tensor& o) const requires(kNumeric) { return Tensor(api::maximum(h_, o.h_)); }
  Tensor min_pair(const Tensor& o) const requires(kNumeric) { return Tensor(api::minimum(h_, o.h_)); }
  Tensor matmul(const Tensor& o) const requires(kNumeric) { return Tensor(api::matmul(h_, o.h_)); }
  Tensor clamp(Scalar lo, Scalar hi) const { return Tensor(api::clamp(h_, lo, hi)); }
  Tensor clamp_min(Scalar lo) const { return Tensor(api::clamp_min(h_, lo)); }
  Tensor clamp_max(Scalar hi) const { return Tensor(api::clamp_max(h_, hi)); }
  Tensor cross(const Tensor& o, int64_t dim = -1) const requires(kNumeric) { return Tensor(api::cross(h_, o.h_, dim)); }
  Tensor<1, K> dot(const Tensor& o) const requires(kNumeric&& D == 1) { return Tensor<1, K>(api::dot(h_, o.h_)); }
  BURN_TENSOR_UNARY(neg, neg, kNumeric)
  BURN_TENSOR_UNARY(abs, abs, kNumeric)
  BURN_TENSOR_UNARY(sign, sign, kNumeric)

  // ---- bitwise (Int tensors: i64, i32, i8, u8) ----
  Tensor bitwise_and(const Tensor& o) const requires(kInt) { return Tensor(api::bitwise_and(h_, o.h_)); }
  Tensor bitwise_or(const Tensor& o) const requires(kInt) { return Tensor(api::bitwise_or(h_, o.h_)); }
  Tensor bitwise_xor(const Tensor& o) const requires(kInt) { return Tensor(api::bitwise_xor(h_, o.h_)); }
  Tensor bitwise_left_shift(const Tensor& o) const requires(kInt) { return Tensor(api::bitwise_left_shift(h_, o.h_)); }
  Tensor bitwise_right_shift(const Tensor& o) const requires(kInt) {
    return Tensor(api::bitwise_right_shift(h_, o.h_));
  }
  Tensor bitwise_and_scalar(Scalar s) const requires(kInt) { return Tensor(api::bitwise_and_scalar(h_, s)); }
  Tensor bitwise_or_scalar(Scalar s) const requires(kInt) { return Tensor(api::bitwise_or_scalar(h_, s)); }
  Tensor bitwise_xor_scalar(Scalar s) const requires(kInt) { return Tensor(api::bitwise_xor_scalar(h_, s)); }
  Tensor bitwise_left_shift_scalar(Scalar s) const requires(kInt) {
    return Tensor(api::bitwise_left_shift_scalar(h_, s));
  }
  Tensor bitwise_right_shift_scalar(Scalar s) const requires(kInt) {
    return Tensor(api::bitwise_right_shift_scalar(h_, s));
  }
  BURN_TENSOR_UNARY(bitwise_not, bitwise_not, kInt)

  // ---- reductions ----
  Tensor<1, K> sum() const { return Tensor<1, K>(api::reduce_all(OpId::sum, h_)); }
  Tensor<1, K> mean() const { return Tensor<1, K>(api::reduce_all(OpId::mean, h_)); }
  Tensor<1, K> prod() const { return Tensor<1, K>(api::reduce_all(OpId::prod, h_)); }
  Tensor<1, K> max() const { return Tensor<1, K>(api::reduce_all(OpId::max, h_)); }
  Tensor<1, K> min() const { return Tensor<1, K>(api::reduce_all(OpId::min, h_)); }
  Tensor<1, Bool> any() const { return Tensor<1, Bool>(api::reduce_all(OpId::any, h_)); }
  Tensor<1, Bool> all() const { return Tensor<1, Bool>(api::reduce_all(OpId::all, h_)); }
  Tensor sum_dim(int64_t dim) const { return Tensor(api::reduce_dim(OpId::sum_dim, h_, dim)); }
  Tensor mean_dim(int64_t dim) const { return Tensor(api::reduce_dim(OpId::mean_dim, h_, dim)); }
  Tensor prod_dim(int64_t dim) const { return Tensor(api::reduce_dim(OpId::prod_dim, h_, dim)); }
  Tensor max_dim(int64_t dim) const { return Tensor(api::reduce_dim(OpId::max_dim, h_, dim)); }
  Tensor min_dim(int64_t dim) const { return Tensor(api::reduce_dim(OpId::min_dim, h_, dim)); }
  Tensor<D, Bool> any_dim(int64_t dim) const { return Tensor<D, Bool>(api::reduce_dim(OpId::any_dim, h_, dim)); }
  Tensor<D, Bool> all_dim(int64_t dim) const { return Tensor<D, Bool>(api::reduce_dim(OpId::all_dim, h_, dim)); }
  Tensor<D, Int> argmax(int64_t dim) const { return Tensor<D, Int>(api::reduce_dim(OpId::argmax, h_, dim)); }
  Tensor<D, Int> argmin(int64_t dim) const { return Tensor<D, Int>(api::reduce_dim(OpId::argmin, h_, dim)); }
  std::pair<Tensor, Tensor<D, Int>> max_dim_with_indices(int64_t dim) const {
    return pair_of(api::reduce_dim_with_indices(OpId::max_dim_with_indices, h_, dim));
  }
  std::pair<Tensor, Tensor<D, Int>> min_dim_with_indices(int64_t dim) const {
    return pair_of(api::reduce_dim_with_indices(OpId::min_dim_with_indices, h_, dim));
  }
  Tensor cumsum(int64_t dim) const { return Tensor(api::reduce_dim(OpId::cumsum, h_, dim)); }
  Tensor cumprod(int64_t dim) const { return Tensor(api::reduce_dim(OpId::cumprod, h_, dim)); }
  Tensor cummax(int64_t dim) const { return Tensor(api::reduce_dim(OpId::cummax, h_, dim)); }
  Tensor cummin(int64_t dim) const { return Tensor(api::reduce_dim(OpId::cummin, h_, dim)); }
  Tensor var(int64_t dim, int64_t correction = 1) const requires(kFloat) {
    return Tensor(api::var(h_, dim, correction));
  }
  std::pair<Tensor, Tensor> var_mean(int64_t dim, int64_t correction = 1) const {
    auto [v, m] = api::var_mean(h_, dim, correction);
    return {Tensor(std::move(v)), Tensor(std::move(m))};
  }
  Tensor sort(int64_t dim, bool descending = false, bool stable = false) const {
    return Tensor(api::sort_with_indices(h_, dim, descending, stable).first);
  }
  std::pair<Tensor, Tensor<D, Int>> sort_with_indices(int64_t dim, bool descending = false, bool stable = false) const {
    return pair_of(api::sort_with_indices(h_, dim, descending, stable));
  }
  Tensor<D, Int> argsort(int64_t dim, bool descending = false, bool stable = false) const {
    return Tensor<D, Int>(api::argsort(h_, dim, descending, stable));
  }
  Tensor topk(int64_t k, int64_t dim, bool largest = true) const {
    return Tensor(api::topk_with_indices(h_, k, dim, largest).first);
  }
  std::pair<Tensor, Tensor<D, Int>> topk_with_indices(int64_t k, int64_t dim, bool largest = true) const {
    return pair_of(api::topk_with_indices(h_, k, dim, largest));
  }
  Tensor<1, K> max_abs() const requires(kNumeric) { return Tensor<1, K>(api::max_abs(h_)); }
  Tensor max_abs_dim(int64_t dim) const requires(kNumeric) { return Tensor(api::max_abs_dim(h_, dim)); }
  // The lower median (torch.median); NaN wins.
  Tensor<1, K> median() const requires(kNumeric) { return Tensor<1, K>(api::median(h_)); }
  Tensor median_dim(int64_t dim) const requires(kNumeric) { return Tensor(api::median_dim(h_, dim).first); }
  std::pair<Tensor, Tensor<D, Int>> median_dim_with_indices(int64_t dim) const requires(kNumeric) {
    return pair_of(api::median_dim(h_, dim));
  }
  // torch.cov: rows are variables, columns observations; [V, V], or [1] for a 1-D tensor.
  Tensor<D, Float> cov(int64_t correction = 1, const std::optional<Tensor<1, Int>>& fweights = std::nullopt,
                       const std::optional<Tensor<1, Float>>& aweights = std::nullopt) const
      requires(kNumeric&& D <= 2) {
    auto h = [](const auto& w) { return w ? std::optional<TensorHandle>(w->handle()) : std::nullopt; };
    return Tensor<D, Float>(api::cov(h_, correction, h(fweights), h(aweights)));
  }

  // ---- comparison ----
  Tensor<D, Bool> equal(const Tensor& o) const { return cmp(OpId::equal, o); }
  Tensor<D, Bool> not_equal(const Tensor& o) const { return cmp(OpId::not_equal, o); }
  Tensor<D, Bool> greater(const Tensor& o) const { return cmp(OpId::greater, o); }
  Tensor<D, Bool> greater_equal(const Tensor& o) const { return cmp(OpId::greater_equal, o); }
  Tensor<D, Bool> lower(const Tensor& o) const { return cmp(OpId::lower, o); }
  Tensor<D, Bool> lower_equal(const Tensor& o) const { return cmp(OpId::lower_equal, o); }
  Tensor<D, Bool> equal_elem(Scalar s) const { return cmp_elem(OpId::equal_elem, s); }
  Tensor<D, Bool> not_equal_elem(Scalar s) const { return cmp_elem(OpId::not_equal_elem, s); }
  Tensor<D, Bool> greater_elem(Scalar s) const { return cmp_elem(OpId::greater_elem, s); }
  Tensor<D, Bool> greater_equal_elem(Scalar s) const { return cmp_elem(OpId::greater_equal_elem, s); }
  Tensor<D, Bool> lower_elem(Scalar s) const { return cmp_elem(OpId::lower_elem, s); }
  Tensor<D, Bool> lower_equal_elem(Scalar s) const { return cmp_elem(OpId::lower_equal_elem, s); }
  // torch.isclose / torch.allclose (same defaults): |this - o| <= atol + rtol * |o|.
  Tensor<D, Bool> is_close(const Tensor& o, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false) const
      requires(kNumeric) {
    return Tensor<D, Bool>(api::is_close(h_, o.h_, rtol, atol, equal_nan));
  }
  bool all_close(const Tensor& o, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false) const
      requires(kNumeric) {
    return api::all_close(h_, o.h_, rtol, atol, equal_nan);
  }

  // ---- bool ----
  Tensor bool_and(const Tensor& o) const requires(kBool) { return Tensor(api::bool_binary(OpId::bool_and, h_, o.h_)); }
  Tensor bool_or(const Tensor& o) const requires(kBool) { return Tensor(api::bool_binary(OpId::bool_or, h_, o.h_)); }
  Tensor bool_xor(const Tensor& o) const requires(kBool) { return Tensor(api::bool_binary(OpId::bool_xor, h_, o.h_)); }
  BURN_TENSOR_UNARY(bool_not, bool_not, kBool)

  // ---- float math ----
  BURN_TENSOR_UNARY(exp, exp, kFloat)
  BURN_TENSOR_UNARY(log, log, kFloat)
  BURN_TENSOR_UNARY(log1p, log1p, kFloat)
  BURN_TENSOR_UNARY(sqrt, sqrt, kFloat)
  BURN_TENSOR_UNARY(recip, recip, kFloat)
  BURN_TENSOR_UNARY(square, square, kFloat)
  BURN_TENSOR_UNARY(sin, sin, kFloat)
  BURN_TENSOR_UNARY(cos, cos, kFloat)
  BURN_TENSOR_UNARY(tan, tan, kFloat)
  BURN_TENSOR_UNARY(sinh, sinh, kFloat)
  BURN_TENSOR_UNARY(cosh, cosh, kFloat)
  BURN_TENSOR_UNARY(tanh, tanh, kFloat)
  BURN_TENSOR_UNARY(asin, asin, kFloat)
  BURN_TENSOR_UNARY(acos, acos, kFloat)
  BURN_TENSOR_UNARY(atan, atan, kFloat)
  BURN_TENSOR_UNARY(asinh, asinh, kFloat)
  BURN_TENSOR_UNARY(acosh, acosh, kFloat)
  BURN_TENSOR_UNARY(atanh, atanh, kFloat)
  BURN_TENSOR_UNARY(erf, erf, kFloat)
  BURN_TENSOR_UNARY(round, round, kFloat)
  BURN_TENSOR_UNARY(floor, floor, kFloat)
  BURN_TENSOR_UNARY(ceil, ceil, kFloat)
  BURN_TENSOR_UNARY(trunc, trunc, kFloat)
  BURN_TENSOR_UNARY_TO(is_nan, is_nan, Bool)
  BURN_TENSOR_UNARY_TO(is_inf, is_inf, Bool)
  BURN_TENSOR_UNARY_TO(is_finite, is_finite, Bool)
  Tensor atan2(const Tensor& o) const requires(kFloat) { return Tensor(api::atan2(h_, o.h_)); }
  Tensor hypot(const Tensor& o) const requires(kFloat) { return Tensor(api::hypot(h_, o.h_)); }
  Tensor deg2rad() const requires(kFloat) { return Tensor(api::deg2rad(h_)); }
  Tensor rad2deg() const requires(kFloat) { return Tensor(api::rad2deg(h_)); }

  // ---- activations (burn::activation has the free-function forms) ----
  BURN_TENSOR_UNARY(relu, relu, kFloat)
  BURN_TENSOR_UNARY(gelu, gelu, kFloat)
  BURN_TENSOR_UNARY(gelu_tanh, gelu_tanh, kFloat)
  BURN_TENSOR_UNARY(sigmoid, sigmoid, kFloat)
  BURN_TENSOR_UNARY(log_sigmoid, log_sigmoid, kFloat)
  BURN_TENSOR_UNARY(silu, silu, kFloat)
  BURN_TENSOR_UNARY(mish, mish, kFloat)
  BURN_TENSOR_UNARY(selu, selu, kFloat)
  Tensor leaky_relu(double slope = 0.01) const requires(kFloat) { return Tensor(api::leaky_relu(h_, slope)); }
  Tensor softplus(double beta = 1.0, double threshold = 20.0) const requires(kFloat) {
    return Tensor(api::softplus(h_, beta, threshold));
  }
  Tensor hard_sigmoid(double alpha = 1.0 / 6.0, double beta = 0.5) const requires(kFloat) {
    return Tensor(api::hard_sigmoid(h_, alpha, beta));
  }
  Tensor elu(double alpha = 1.0) const requires(kFloat) { return Tensor(api::elu(h_, alpha)); }
  Tensor softmax(int64_t dim) const requires(kFloat) { return Tensor(api::softmax(h_, dim)); }
  Tensor log_softmax(int64_t dim) const requires(kFloat) { return Tensor(api::log_softmax(h_, dim)); }
  Tensor softmin(int64_t dim) const requires(kFloat) { return Tensor(api::softmin(h_, dim)); }
  Tensor quiet_softmax(int64_t dim) const requires(kFloat) { return Tensor(api::quiet_softmax(h_, dim)); }
  Tensor celu(double alpha = 1.0) const requires(kFloat) { return Tensor(api::celu(h_, alpha)); }
  Tensor glu(int64_t dim = -1) const requires(kFloat) { return Tensor(api::glu(h_, dim)); }  // halves dim
  Tensor hard_shrink(double lambda = 0.5) const requires(kFloat) { return Tensor(api::hard_shrink(h_, lambda)); }
  Tensor soft_shrink(double lambda = 0.5) const requires(kFloat) { return Tensor(api::soft_shrink(h_, lambda)); }
  Tensor hard_swish() const requires(kFloat) { return Tensor(api::hard_swish(h_)); }
  Tensor hardtanh(double min = -1.0, double max = 1.0) const requires(kFloat) {
    return Tensor(api::hardtanh(h_, min, max));
  }
  Tensor relu6() const requires(kFloat) { return Tensor(api::relu6(h_)); }
  Tensor prelu(const Tensor<1, K>& weight) const requires(kFloat) { return Tensor(api::prelu(h_, weight.handle())); }
  Tensor softsign() const requires(kFloat) { return Tensor(api::softsign(h_)); }
  Tensor tanhshrink() const requires(kFloat) { return Tensor(api::tanhshrink(h_)); }
  Tensor threshold(double threshold, double value) const requires(kFloat) {
    return Tensor(api::threshold(h_, threshold, value));
  }

  // ---- autodiff (on an autodiff device, e.g. Device::get("cpu").autodiff()) ----
  Tensor require_grad() const requires(kFloat) { return Tensor(api::set_require_grad(h_, true)); }
  Tensor set_require_grad(bool require) const requires(kFloat) { return Tensor(api::set_require_grad(h_, require)); }
  bool is_require_grad() const { return api::is_require_grad(h_); }
  Tensor detach() const { return Tensor(api::detach(h_)); }
  // Seeds the pass with ones of this tensor's shape (Burn); usually called on a scalar loss.
  Gradients backward(const BackwardOptions& options = {}) const requires(kFloat) { return api::backward(h_, options); }
  // On the inner device, or on the autodiff device for a create_graph backward; none if untracked.
  std::optional<Tensor> grad(const Gradients& grads) const requires(kFloat) { return opt(api::grad(h_, grads)); }
  std::optional<Tensor> grad_remove(Gradients& grads) const requires(kFloat) {
    return opt(api::grad_remove(h_, grads));
  }
  void grad_replace(Gradients& grads, const Tensor& grad) const requires(kFloat) {
    api::grad_replace(h_, grads, grad.h_);
  }
  // The same values on the inner device, untracked; from_inner wraps them back onto `autodiff_device`.
  Tensor inner() const { return Tensor(api::inner(h_)); }
  static Tensor from_inner(const Tensor& inner, const Device& autodiff_device) {
    return Tensor(api::from_inner(inner.h_, autodiff_device));
  }

  // ---- operators ----
  friend Tensor operator+(Tensor a, const Tensor& b) requires(kNumeric) {
    return Tensor(api::add(std::move(a.h_), b.h_));
  }
  friend Tensor operator-(Tensor a, const Tensor& b) requires(kNumeric) {
    return Tensor(api::sub(std::move(a.h_), b.h_));
  }
  friend Tensor operator*(Tensor a, const Tensor& b) requires(kNumeric) {
    return Tensor(api::mul(std::move(a.h_), b.h_));
  }
  friend Tensor operator/(Tensor a, const Tensor& b) requires(kNumeric) {
    return Tensor(api::div(std::move(a.h_), b.h_));
  }
  friend Tensor operator%(Tensor a, const Tensor& b) requires(kNumeric) {
    return Tensor(api::remainder(std::move(a.h_), b.h_));
  }
  friend Tensor operator+(Tensor a, Scalar b) requires(kNumeric) { return Tensor(api::add_scalar(std::move(a.h_), b)); }
  friend Tensor operator-(Tensor a, Scalar b) requires(kNumeric) { return Tensor(api::sub_scalar(std::move(a.h_), b)); }
  friend Tensor operator*(Tensor a, Scalar b) requires(kNumeric) { return Tensor(api::mul_scalar(std::move(a.h_), b)); }
  friend Tensor operator/(Tensor a, Scalar b) requires(kNumeric) { return Tensor(api::div_scalar(std::move(a.h_), b)); }
  friend Tensor operator%(Tensor a, Scalar b) requires(kNumeric) {
    return Tensor(api::remainder_scalar(std::move(a.h_), b));
  }
  friend Tensor operator+(Scalar a, Tensor b) requires(kNumeric) { return Tensor(api::add_scalar(std::move(b.h_), a)); }
  friend Tensor operator-(Scalar a, Tensor b) requires(kNumeric) {
    return Tensor(api::rsub_scalar(std::move(b.h_), a));
  }
  friend Tensor operator*(Scalar a, Tensor b) requires(kNumeric) { return Tensor(api::mul_scalar(std::move(b.h_), a)); }
  friend Tensor operator/(Scalar a, Tensor b) requires(kNumeric) {
    return Tensor(api::rdiv_scalar(std::move(b.h_), a));
  }
  friend Tensor operator-(Tensor a) requires(kNumeric) { return Tensor(api::unary(OpId::neg, std::move(a.h_))); }
  friend Tensor operator&(const Tensor& a, const Tensor& b) requires(kBool) { return a.bool_and(b); }
  friend Tensor operator|(const Tensor& a, const Tensor& b) requires(kBool) { return a.bool_or(b); }
  friend Tensor operator^(const Tensor& a, const Tensor& b) requires(kBool) { return a.bool_xor(b); }
  friend Tensor operator!(Tensor a) requires(kBool) { return std::move(a).bool_not(); }
  friend std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.to_string(); }

 private:
  template <size_t, typename>
  friend class Tensor;

  static std::vector<TensorHandle> handles(const std::vector<Tensor>& ts) {
    std::vector<TensorHandle> hs;
    hs.reserve(ts.size());
    for (const auto& t : ts) hs.push_back(t.h_);
    return hs;
  }
  static std::vector<Tensor> wrap_all(std::vector<TensorHandle> hs) {
    std::vector<Tensor> ts;
    ts.reserve(hs.size());
    for (auto& h : hs) ts.emplace_back(std::move(h));
    return ts;
  }
  static std::pair<Tensor, Tensor<D, Int>> pair_of(std::pair<TensorHandle, TensorHandle> p) {
    return {Tensor(std::move(p.first)), Tensor<D, Int>(std::move(p.second))};
  }
  static std::optional<Tensor> opt(std::optional<TensorHandle> h) {
    if (!h) return std::nullopt;
    return Tensor(std::move(*h));
  }
  const Primitive& prim(const char* op) const {
    if (!h_.prim) api::throw_empty_tensor(op);
    return *h_.prim;
  }
  Tensor<D, Bool> cmp(OpId op, const Tensor& o) const { return Tensor<D, Bool>(api::compare(op, h_, o.h_)); }
  Tensor<D, Bool> cmp_elem(OpId op, Scalar s) const { return Tensor<D, Bool>(api::compare_elem(op, h_, s)); }

  TensorHandle h_;
};

#undef BURN_TENSOR_UNARY
#undef BURN_TENSOR_UNARY_TO

// torch.einsum over tensors of one kind: burn::einsum<2>("ij,jk->ik", a, b). The output rank is
// named because the equation decides it at run time; a full contraction gives shape [1].
template <size_t DOut, typename K, size_t... Ds>
requires(!std::is_same_v<K, Bool>) Tensor<DOut, K> einsum(std::string_view equation, const Tensor<Ds, K>&... operands) {
  return Tensor<DOut, K>(api::einsum(equation, {operands.handle()...}));
}

}  // namespace burn
