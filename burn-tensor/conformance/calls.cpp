// burn-conformance: the "call" table, one entry per burn::api function a fixture case can name.
#include <stdexcept>
#include <utility>

#include "call_helpers.hpp"
#include "conformance.hpp"

namespace burn::conformance {

namespace {


#define UNARY_CALL(fn, ...) [](const Device&, Hs& in, const json& a) { (void)a; return one(api::fn(std::move(in.at(0)), __VA_ARGS__)); }
#define BINARY_CALL(fn) [](const Device&, Hs& in, const json&) { return one(api::fn(std::move(in.at(0)), in.at(1))); }
#define SCALAR_CALL(fn) [](const Device&, Hs& in, const json& a) { return one(api::fn(std::move(in.at(0)), scalar(a, "scalar"))); }

std::map<std::string, CallFn> build_table() {
  std::map<std::string, CallFn> t;
  // creation
  t["identity"] = [](const Device&, Hs& in, const json&) { return one(std::move(in.at(0))); };
  t["empty"] = [](const Device& d, Hs&, const json& a) { return one(api::empty(d, shape_from_json(a.at("shape")), dtype(a))); };
  t["full"] = [](const Device& d, Hs&, const json& a) {
    return one(api::full(d, shape_from_json(a.at("shape")), scalar(a, "value"), dtype(a)));
  };
  t["cast"] = UNARY_CALL(cast, dtype(a));
  t["random"] = [](const Device& d, Hs&, const json& a) {
    return one(api::random(d, shape_from_json(a.at("shape")), distribution(a), dtype(a)));
  };
  t["arange"] = [](const Device& d, Hs&, const json& a) {
    return one(api::arange(d, i64(a, "start"), i64(a, "end"), i64(a, "step"), dtype(a)));
  };
  t["eye"] = [](const Device& d, Hs&, const json& a) { return one(api::eye(d, i64(a, "n"), i64(a, "m"), dtype(a))); };
  // layout
  t["reshape"] = UNARY_CALL(reshape, ints(a, "dims"));
  t["permute"] = UNARY_CALL(permute, ints(a, "axes"));
  t["swap_dims"] = UNARY_CALL(swap_dims, i64(a, "a"), i64(a, "b"));
  t["flatten"] = UNARY_CALL(flatten, i64(a, "start"), i64(a, "end"));
  t["squeeze_dims"] = UNARY_CALL(squeeze_dims, ints(a, "dims"));
  t["unsqueeze_dims"] = UNARY_CALL(unsqueeze_dims, ints(a, "dims"));
  t["expand"] = UNARY_CALL(expand, ints(a, "dims"));
  t["flip"] = UNARY_CALL(flip, ints(a, "axes"));
  t["roll"] = UNARY_CALL(roll, ints(a, "shifts"), ints(a, "dims"));
  t["repeat"] = UNARY_CALL(repeat, ints(a, "sizes"));
  t["narrow"] = UNARY_CALL(narrow, i64(a, "dim"), i64(a, "start"), i64(a, "length"));
  t["chunk"] = [](const Device&, Hs& in, const json& a) { return api::chunk(std::move(in.at(0)), i64(a, "chunks"), i64(a, "dim")); };
  t["split"] = [](const Device&, Hs& in, const json& a) { return api::split(std::move(in.at(0)), i64(a, "size"), i64(a, "dim")); };
  t["split_with_sizes"] = [](const Device&, Hs& in, const json& a) {
    return api::split_with_sizes(std::move(in.at(0)), ints(a, "sizes"), i64(a, "dim"));
  };
  t["cat"] = [](const Device&, Hs& in, const json& a) { return one(api::cat(in, i64(a, "dim"))); };
  t["stack"] = [](const Device&, Hs& in, const json& a) { return one(api::stack(in, i64(a, "dim"))); };
  t["slice"] = UNARY_CALL(slice, slices(a));
  t["slice_assign"] = [](const Device&, Hs& in, const json& a) { return one(api::slice_assign(std::move(in.at(0)), slices(a), in.at(1))); };
  t["slice_fill"] = UNARY_CALL(slice_fill, slices(a), scalar(a, "value"));
  t["pad"] = UNARY_CALL(pad, ints(a, "pads"), pad_mode(a), scalar(a, "value"));
  // indexing
  t["select"] = [](const Device&, Hs& in, const json& a) { return one(api::select(std::move(in.at(0)), i64(a, "dim"), in.at(1))); };
  t["select_assign"] = [](const Device&, Hs& in, const json& a) {
    return one(api::select_assign(std::move(in.at(0)), i64(a, "dim"), in.at(1), in.at(2)));
  };
  t["gather"] = [](const Device&, Hs& in, const json& a) { return one(api::gather(std::move(in.at(0)), i64(a, "dim"), in.at(1))); };
  t["scatter_add"] = [](const Device&, Hs& in, const json& a) {
    return one(api::scatter_add(std::move(in.at(0)), i64(a, "dim"), in.at(1), in.at(2)));
  };
  t["mask_where"] = [](const Device&, Hs& in, const json&) { return one(api::mask_where(std::move(in.at(0)), in.at(1), in.at(2))); };
  t["mask_fill"] = [](const Device&, Hs& in, const json& a) { return one(api::mask_fill(std::move(in.at(0)), in.at(1), scalar(a, "value"))); };
  t["argwhere"] = [](const Device&, Hs& in, const json&) { return one(api::argwhere(std::move(in.at(0)))); };
  t["nonzero"] = [](const Device&, Hs& in, const json&) { return api::nonzero(std::move(in.at(0))); };
  t["one_hot"] = [](const Device&, Hs& in, const json& a) { return one(api::one_hot(std::move(in.at(0)), i64(a, "num_classes"), dtype(a))); };
  t["tril"] = UNARY_CALL(tril, i64(a, "diagonal"));
  t["triu"] = UNARY_CALL(triu, i64(a, "diagonal"));
  t["tril_mask"] = [](const Device& d, Hs&, const json& a) {
    return one(api::tril_mask(d, shape_from_json(a.at("shape")), i64(a, "diagonal")));
  };
  t["triu_mask"] = [](const Device& d, Hs&, const json& a) {
    return one(api::triu_mask(d, shape_from_json(a.at("shape")), i64(a, "diagonal")));
  };
  // numeric
  t["add"] = BINARY_CALL(add);
  t["sub"] = BINARY_CALL(sub);
  t["mul"] = BINARY_CALL(mul);
  t["div"] = BINARY_CALL(div);
  t["remainder"] = BINARY_CALL(remainder);
  t["powf"] = BINARY_CALL(powf);
  t["powi"] = BINARY_CALL(powi);
  t["atan2"] = BINARY_CALL(atan2);
  t["maximum"] = BINARY_CALL(maximum);
  t["minimum"] = BINARY_CALL(minimum);
  t["matmul"] = BINARY_CALL(matmul);
  t["add_scalar"] = SCALAR_CALL(add_scalar);
  t["sub_scalar"] = SCALAR_CALL(sub_scalar);
  t["rsub_scalar"] = SCALAR_CALL(rsub_scalar);
  t["mul_scalar"] = SCALAR_CALL(mul_scalar);
  t["div_scalar"] = SCALAR_CALL(div_scalar);
  t["rdiv_scalar"] = SCALAR_CALL(rdiv_scalar);
  t["remainder_scalar"] = SCALAR_CALL(remainder_scalar);
  t["powf_scalar"] = SCALAR_CALL(powf_scalar);
  t["powi_scalar"] = UNARY_CALL(powi_scalar, i64(a, "exponent"));
  t["clamp"] = UNARY_CALL(clamp, scalar(a, "min"), scalar(a, "max"));
  t["clamp_min"] = UNARY_CALL(clamp_min, scalar(a, "min"));
  t["clamp_max"] = UNARY_CALL(clamp_max, scalar(a, "max"));
  t["unary"] = [](const Device&, Hs& in, const json& a) { return one(api::unary(op_id(a), std::move(in.at(0)))); };
  // reductions
  t["reduce_all"] = [](const Device&, Hs& in, const json& a) { return one(api::reduce_all(op_id(a), std::move(in.at(0)))); };
  t["reduce_dim"] = [](const Device&, Hs& in, const json& a) { return one(api::reduce_dim(op_id(a), std::move(in.at(0)), i64(a, "dim"))); };
  t["reduce_dim_with_indices"] = [](const Device&, Hs& in, const json& a) {
    return two(api::reduce_dim_with_indices(op_id(a), std::move(in.at(0)), i64(a, "dim")));
  };
  t["var"] = UNARY_CALL(var, i64(a, "dim"), i64(a, "correction"));
  t["var_mean"] = [](const Device&, Hs& in, const json& a) {
    return two(api::var_mean(std::move(in.at(0)), i64(a, "dim"), i64(a, "correction")));
  };
  t["sort_with_indices"] = [](const Device&, Hs& in, const json& a) {
    return two(api::sort_with_indices(std::move(in.at(0)), i64(a, "dim"), flag(a, "descending"), flag(a, "stable")));
  };
  t["argsort"] = UNARY_CALL(argsort, i64(a, "dim"), flag(a, "descending"), flag(a, "stable"));
  t["topk_with_indices"] = [](const Device&, Hs& in, const json& a) {
    return two(api::topk_with_indices(std::move(in.at(0)), i64(a, "k"), i64(a, "dim"), flag(a, "largest")));
  };
  // comparison and bool
  t["compare"] = [](const Device&, Hs& in, const json& a) { return one(api::compare(op_id(a), std::move(in.at(0)), in.at(1))); };
  t["compare_elem"] = [](const Device&, Hs& in, const json& a) {
    return one(api::compare_elem(op_id(a), std::move(in.at(0)), scalar(a, "scalar")));
  };
  t["bool_binary"] = [](const Device&, Hs& in, const json& a) { return one(api::bool_binary(op_id(a), std::move(in.at(0)), in.at(1))); };
  // activations with parameters
  t["leaky_relu"] = UNARY_CALL(leaky_relu, f64(a, "negative_slope"));
  t["softplus"] = UNARY_CALL(softplus, f64(a, "beta"), f64(a, "threshold"));
  t["hard_sigmoid"] = UNARY_CALL(hard_sigmoid, f64(a, "alpha"), f64(a, "beta"));
  t["elu"] = UNARY_CALL(elu, f64(a, "alpha"));
  t["softmax"] = UNARY_CALL(softmax, i64(a, "dim"));
  t["log_softmax"] = UNARY_CALL(log_softmax, i64(a, "dim"));
  t["softmin"] = UNARY_CALL(softmin, i64(a, "dim"));
  // module ops, one file per op family
  add_conv_calls(t);
  add_pool_calls(t);
  add_resample_calls(t);
  add_embedding_calls(t);
  add_norm_calls(t);
  add_attention_calls(t);
  return t;
}

#undef UNARY_CALL
#undef BINARY_CALL
#undef SCALAR_CALL

}  // namespace

const std::map<std::string, CallFn>& call_table() {
  static const std::map<std::string, CallFn> table = build_table();
  return table;
}

}  // namespace burn::conformance
