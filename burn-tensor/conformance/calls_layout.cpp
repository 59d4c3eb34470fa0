// burn-conformance: the calls of the layout (reshape, permute, slicing, cat, stack, pad...) group.
#include "call_helpers.hpp"

namespace burn::conformance {

void add_layout_calls(CallTable& t) {
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
  t["chunk"] = [](const Device&, Hs& in, const json& a) {
    return api::chunk(std::move(in.at(0)), i64(a, "chunks"), i64(a, "dim"));
  };
  t["split"] = [](const Device&, Hs& in, const json& a) {
    return api::split(std::move(in.at(0)), i64(a, "size"), i64(a, "dim"));
  };
  t["split_with_sizes"] = [](const Device&, Hs& in, const json& a) {
    return api::split_with_sizes(std::move(in.at(0)), ints(a, "sizes"), i64(a, "dim"));
  };
  t["cat"] = [](const Device&, Hs& in, const json& a) { return one(api::cat(in, i64(a, "dim"))); };
  t["stack"] = [](const Device&, Hs& in, const json& a) { return one(api::stack(in, i64(a, "dim"))); };
  t["slice"] = UNARY_CALL(slice, slices(a));
  t["slice_assign"] = [](const Device&, Hs& in, const json& a) {
    return one(api::slice_assign(std::move(in.at(0)), slices(a), in.at(1)));
  };
  t["slice_fill"] = UNARY_CALL(slice_fill, slices(a), scalar(a, "value"));
  t["pad"] = UNARY_CALL(pad, ints(a, "pads"), pad_mode(a), scalar(a, "value"));
  t["unfold_dim"] = UNARY_CALL(unfold, i64(a, "dim"), i64(a, "size"), i64(a, "step"));
  t["movedim"] = UNARY_CALL(movedim, ints(a, "source"), ints(a, "destination"));
  t["iter_dim"] = [](const Device&, Hs& in, const json& a) {
    return api::iter_dim(std::move(in.at(0)), i64(a, "dim"));
  };
}

}  // namespace burn::conformance
