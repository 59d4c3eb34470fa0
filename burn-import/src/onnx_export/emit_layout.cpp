// Emitters of the layout and indexing families. The shapes they carry (Reshape, Expand, Slice) are the
// traced ones; with a dynamic batch the batch dim is written as ONNX's "copy" (0), "broadcast" (1) or
// "to the end" forms, and a layout that moves the batch dim elsewhere is refused.
#include <climits>

#include "emit.hpp"

namespace burn::onnx_export {
namespace {

// The batch dim merged into dim 0 with others (Linear flattens [B, S, E] to [B*S, E]).
constexpr int kFolded = -3;

void reshape(Emit& e) {
  std::vector<int64_t> dims = e.arg<Shape>(1).dims();
  const int axis = e.dynamic_batch() ? e.batch_axis(0) : -1;
  if (axis == 0 || axis == kFolded) {
    const int64_t batch_in = e.shape(0)[0];
    if (dims.empty()) e.unsupported("reshape of the batch dim to a scalar (dynamic batch)");
    if (axis == 0 && dims[0] == batch_in) {
      dims[0] = 0;  // copied from the input
      e.set_batch_axis(0, 0);
    } else {
      // dim 0 takes what the others leave: the batch dim folded with others, or unfolded again
      const bool unfolds = axis == kFolded && e.out_shape()[0] != batch_in;
      dims[0] = -1;
      e.set_batch_axis(0, unfolds ? 0 : kFolded);
      if (axis == 0 && dims.size() > 1 && e.out_shape()[0] % batch_in != 0)
        e.unsupported("reshape " + e.shape(0).to_string() + " -> " + e.out_shape().to_string() +
                      " splits the batch dim (dynamic batch)");
    }
  } else if (e.dynamic_batch() && axis > 0) {
    e.unsupported("reshape " + e.shape(0).to_string() + " -> " + e.out_shape().to_string() +
                  " of a value whose batch dim is not first (dynamic batch)");
  } else {
    e.set_batch_axis(0, -1);
  }
  e.node("Reshape", {e.in(0), e.const_ints(dims)}, {e.out()});
}

void permute(Emit& e) {
  const Axes& perm = e.arg<Axes>(1);
  set_attr(e.node("Transpose", {e.in(0)}, {e.out()}), "perm", perm);
  const int axis = e.batch_axis(0);
  int out_axis = axis == kFolded && !perm.empty() && perm[0] == 0 ? kFolded : -1;
  for (size_t i = 0; i < perm.size(); ++i)
    if (axis >= 0 && perm[i] == axis) out_axis = static_cast<int>(i);
  e.set_batch_axis(0, out_axis);
}

void expand(Emit& e) {
  std::vector<int64_t> dims = e.arg<Shape>(1).dims();
  const int axis = e.dynamic_batch() ? e.batch_axis(0) : -1;
  const size_t lead = dims.size() - e.shape(0).rank();
  if (axis >= 0) {
    dims[lead + static_cast<size_t>(axis)] = 1;  // Expand broadcasts both ways: the input's batch dim wins
    e.set_batch_axis(0, static_cast<int>(lead) + axis);
  } else if (axis == kFolded) {
    e.unsupported("expand of a value whose batch dim is folded with others (dynamic batch)");
  }
  e.node("Expand", {e.in(0), e.const_ints(dims)}, {e.out()});
}

void slice(Emit& e) {
  const Slices& ranges = e.arg<Slices>(1);
  const Shape& s = e.shape(0);
  std::vector<int64_t> starts, ends, axes, steps;
  for (size_t i = 0; i < ranges.size() && i < s.rank(); ++i) {
    const SliceRange& r = ranges[i];
    if (r.start == 0 && r.end >= s[i] && r.step == 1) continue;
    if (e.dynamic_batch() && static_cast<int>(i) == e.batch_axis(0))
      e.unsupported("slice of the batch dim (dynamic batch)");
    starts.push_back(r.start);
    ends.push_back(r.end);
    axes.push_back(static_cast<int64_t>(i));
    steps.push_back(r.step);
  }
  if (axes.empty()) {
    e.node("Identity", {e.in(0)}, {e.out()});
    return;
  }
  e.node("Slice", {e.in(0), e.const_ints(starts), e.const_ints(ends), e.const_ints(axes), e.const_ints(steps)},
         {e.out()});
}

void flip(Emit& e) {
  const Axes& axes = e.arg<Axes>(1);
  if (axes.empty()) {
    e.node("Identity", {e.in(0)}, {e.out()});
    return;
  }
  const std::vector<int64_t> starts(axes.size(), -1), ends(axes.size(), INT64_MIN), steps(axes.size(), -1);
  e.node("Slice", {e.in(0), e.const_ints(starts), e.const_ints(ends), e.const_ints(axes), e.const_ints(steps)},
         {e.out()});
}

void cat(Emit& e) {
  std::vector<std::string> ins;
  for (const Prim& p : e.arg<Prims>(0)) ins.push_back(e.name_of(p));
  set_attr(e.node("Concat", ins, {e.out()}), "axis", e.int_arg(1));
}

void repeat_dim(Emit& e) {
  std::vector<int64_t> reps(e.shape(0).rank(), 1);
  reps.at(static_cast<size_t>(e.int_arg(1))) = e.int_arg(2);
  e.node("Tile", {e.in(0), e.const_ints(reps)}, {e.out()});
}

}  // namespace

void register_layout(EmitTable& t) {
  auto set = [&](OpId op, EmitFn fn) { t[static_cast<size_t>(op)] = fn; };
  using O = OpId;
  set(O::reshape, reshape);
  set(O::permute, permute);
  set(O::expand, expand);
  set(O::slice, slice);
  set(O::flip, flip);
  set(O::cat, cat);
  set(O::repeat_dim, repeat_dim);
  set(O::gather, [](Emit& e) {
    set_attr(e.node("GatherElements", {e.in(0), e.in(2)}, {e.out()}), "axis", e.int_arg(1));
  });
  set(O::select, [](Emit& e) { set_attr(e.node("Gather", {e.in(0), e.in(2)}, {e.out()}), "axis", e.int_arg(1)); });
  set(O::mask_where, [](Emit& e) { e.node("Where", {e.in(1), e.in(2), e.in(0)}, {e.out()}); });
  set(O::mask_fill, [](Emit& e) {
    e.node("Where", {e.in(1), e.const_scalar(e.arg<Scalar>(2), e.dtype(0)), e.in(0)}, {e.out()});
  });
}

}  // namespace burn::onnx_export
