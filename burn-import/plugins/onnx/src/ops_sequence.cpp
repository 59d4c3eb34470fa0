// Ops on values other than tensors: sequences (Sequence*, SplitToSequence, ConcatFromSequence),
// optionals (Optional, OptionalHasElement, OptionalGetElement), Identity on any value, and control
// flow running subgraphs (If, Loop, Scan, SequenceMap).
#include <algorithm>
#include <climits>

#include "engine.hpp"

namespace burn::onnx {
namespace {

const std::vector<H>& seq_in(OpContext& c, size_t i) {
  const Value& v = c.value(i);
  if (v.kind != Value::Kind::Sequence) c.invalid("input " + std::to_string(i) + " must be a sequence");
  return v.sequence;
}

// A position in a sequence of n (negative from the end); `end_ok` allows n (insert at the back).
size_t position(OpContext& c, size_t i, size_t n, bool end_ok) {
  int64_t p = c.ints(i).at(0), sn = static_cast<int64_t>(n);
  if (p < 0) p += sn;
  if (p < 0 || p > sn || (p == sn && !end_ok))
    c.invalid("position " + std::to_string(c.ints(i).at(0)) + " outside a sequence of " + std::to_string(n));
  return static_cast<size_t>(p);
}

const ::onnx::GraphProto& graph_attr(OpContext& c, const char* name) {
  const auto* a = c.attr(name);
  if (!a || !a->has_g()) c.invalid(std::string("attribute '") + name + "' (a graph) is missing");
  return a->g();
}

Values identity(OpContext& c) { return {c.value(0)}; }

Values sequence_empty(OpContext&) { return {Value::of(std::vector<H>{})}; }

Values sequence_construct(OpContext& c) {
  std::vector<H> hs;
  for (size_t i = 0; i < c.num_inputs(); ++i) hs.push_back(c.in(i));
  return {Value::of(std::move(hs))};
}

Values sequence_insert(OpContext& c) {
  std::vector<H> s = seq_in(c, 0);
  size_t p = c.has(2) ? position(c, 2, s.size(), true) : s.size();
  s.insert(s.begin() + static_cast<long>(p), c.in(1));
  return {Value::of(std::move(s))};
}

Values sequence_at(OpContext& c) {
  const auto& s = seq_in(c, 0);
  return {Value::of(s[position(c, 1, s.size(), false)])};
}

Values sequence_erase(OpContext& c) {
  std::vector<H> s = seq_in(c, 0);
  if (s.empty()) c.invalid("erasing from an empty sequence");
  size_t p = c.has(1) ? position(c, 1, s.size(), false) : s.size() - 1;
  s.erase(s.begin() + static_cast<long>(p));
  return {Value::of(std::move(s))};
}

Values sequence_length(OpContext& c) {
  return {Value::of(scalar_tensor(c.device(), static_cast<double>(seq_in(c, 0).size()), DType::I64))};
}

Values split_to_sequence(OpContext& c) {
  int64_t axis = c.axis(c.attr_i("axis", 0), c.rank(0));
  std::vector<H> parts;
  if (!c.has(1)) {
    parts = api::split(c.in(0), 1, axis);
    if (!c.attr_i("keepdims", 1))
      for (auto& p : parts) p = api::squeeze_dims(p, {axis});
  } else if (c.rank(1) == 0) {
    parts = api::split(c.in(0), c.ints(1).at(0), axis);
  } else {
    parts = api::split_with_sizes(c.in(0), c.ints(1), axis);
  }
  return {Value::of(std::move(parts))};
}

Values concat_from_sequence(OpContext& c) {
  const auto& s = seq_in(c, 0);
  if (s.empty()) c.invalid("an empty sequence");
  bool new_axis = c.attr_i("new_axis", 0) != 0;
  size_t r = shape_of(s[0]).rank() + (new_axis ? 1 : 0);
  int64_t axis = c.axis(c.attr_i("axis", 0), r);
  return {Value::of(new_axis ? api::stack(s, axis) : api::cat(s, axis))};
}

Values optional(OpContext& c) {
  if (c.num_inputs() == 0) return {Value::none()};
  return {c.value(0)};
}

Values optional_has_element(OpContext& c) {
  bool has = c.value(0).kind != Value::Kind::None;
  return {Value::of(api::full(c.device(), Shape{}, Scalar(has), DType::Bool))};
}

Values optional_get_element(OpContext& c) {
  if (c.value(0).kind == Value::Kind::None) c.invalid("the optional is empty");
  return {c.value(0)};
}

bool truthy(OpContext& c, const H& h) {
  TensorData d = api::into_data(h);
  if (d.num_elements() != 1) c.invalid("a condition must hold one value, has shape " + d.shape().to_string());
  return d.value_f64(0) != 0;
}

Values if_op(OpContext& c) {
  return c.run_graph(graph_attr(c, truthy(c, c.in(0)) ? "then_branch" : "else_branch"), {});
}

Values loop(OpContext& c) {
  const auto& body = graph_attr(c, "body");
  int64_t max = c.has(0) ? c.ints(0).at(0) : INT64_MAX;
  bool cond = c.has(1) ? truthy(c, c.in(1)) : true;
  Values carried;
  for (size_t i = 2; i < c.num_inputs(); ++i) carried.push_back(c.value(i));
  size_t k = carried.size();
  if (static_cast<size_t>(body.input_size()) != 2 + k || static_cast<size_t>(body.output_size()) < 1 + k)
    c.invalid("the body must take 2 + " + std::to_string(k) + " inputs and give at least 1 + " + std::to_string(k) +
              " outputs");
  size_t n_scan = static_cast<size_t>(body.output_size()) - 1 - k;
  std::vector<std::vector<H>> scans(n_scan);
  for (int64_t it = 0; it < max && cond; ++it) {
    Values in{Value::of(scalar_tensor(c.device(), static_cast<double>(it), DType::I64)),
              Value::of(api::full(c.device(), Shape{}, Scalar(cond), DType::Bool))};
    in.insert(in.end(), carried.begin(), carried.end());
    Values out = c.run_graph(body, in);
    cond = truthy(c, out.at(0).tensor);
    for (size_t j = 0; j < k; ++j) carried[j] = out[1 + j];
    for (size_t j = 0; j < n_scan; ++j) {
      if (!out[1 + k + j].is_tensor()) c.unsupported("scan outputs other than tensors");
      scans[j].push_back(out[1 + k + j].tensor);
    }
  }
  Values result = carried;
  for (auto& s : scans) {
    if (s.empty()) c.unsupported("a scan output of a loop that ran no iteration (its shape is unknown)");
    result.push_back(Value::of(api::stack(s, 0)));
  }
  return result;
}

Values scan(OpContext& c) {
  const auto& body = graph_attr(c, "body");
  int64_t m_attr = c.attr_i("num_scan_inputs", 0);
  if (m_attr < 1 || static_cast<size_t>(m_attr) > c.num_inputs()) c.invalid("num_scan_inputs outside [1, inputs]");
  size_t m = static_cast<size_t>(m_attr);
  size_t n_state = c.num_inputs() - m;
  if (static_cast<size_t>(body.input_size()) != c.num_inputs() || static_cast<size_t>(body.output_size()) < n_state)
    c.invalid("the body's inputs and outputs do not match the states and scan inputs");
  std::vector<int64_t> in_axes = c.attr_ints("scan_input_axes", std::vector<int64_t>(m, 0));
  std::vector<int64_t> in_dirs = c.attr_ints("scan_input_directions", std::vector<int64_t>(m, 0));
  size_t n_out = static_cast<size_t>(body.output_size()) - n_state;
  std::vector<int64_t> out_axes = c.attr_ints("scan_output_axes", std::vector<int64_t>(n_out, 0));
  std::vector<int64_t> out_dirs = c.attr_ints("scan_output_directions", std::vector<int64_t>(n_out, 0));
  if (in_axes.size() != m || in_dirs.size() != m || out_axes.size() != n_out || out_dirs.size() != n_out)
    c.invalid("scan axes and directions must have one value per scan input / output");
  Values state;
  for (size_t i = 0; i < n_state; ++i) state.push_back(c.value(i));
  int64_t T = -1;
  std::vector<int64_t> axes(m);
  for (size_t j = 0; j < m; ++j) {
    axes[j] = c.axis(in_axes[j], c.rank(n_state + j));
    int64_t len = c.shape(n_state + j)[static_cast<size_t>(axes[j])];
    if (T >= 0 && len != T) c.invalid("scan inputs differ in length");
    T = len;
  }
  std::vector<std::vector<H>> outs(n_out);
  for (int64_t t = 0; t < T; ++t) {
    Values in = state;
    for (size_t j = 0; j < m; ++j) {
      int64_t at = in_dirs[j] ? T - 1 - t : t;
      in.push_back(Value::of(api::squeeze_dims(api::narrow(c.in(n_state + j), axes[j], at, 1), {axes[j]})));
    }
    Values out = c.run_graph(body, in);
    for (size_t i = 0; i < n_state; ++i) state[i] = out[i];
    for (size_t j = 0; j < n_out; ++j) outs[j].push_back(out[n_state + j].tensor);
  }
  Values result = state;
  for (size_t j = 0; j < n_out; ++j) {
    if (outs[j].empty()) c.unsupported("a scan over zero steps");
    if (out_dirs[j]) std::reverse(outs[j].begin(), outs[j].end());
    size_t r = shape_of(outs[j][0]).rank() + 1;
    result.push_back(Value::of(api::stack(outs[j], c.axis(out_axes[j], r))));
  }
  return result;
}

// Scan at opset 8: input 0 is the optional sequence_lens [batch]; states and scan inputs carry a
// batch dim 0 (scan inputs run along dim 1, `directions` per scan input). Each batch element is scanned
// on its own over its length; scan outputs are stacked along dim 1 and zero-padded to the longest.
Values scan8(OpContext& c) {
  const auto& body = graph_attr(c, "body");
  int64_t m_attr = c.attr_i("num_scan_inputs", 0);
  if (c.num_inputs() < 2 || m_attr < 1 || static_cast<size_t>(m_attr) > c.num_inputs() - 1)
    c.invalid("num_scan_inputs outside [1, inputs - 1]");
  size_t m = static_cast<size_t>(m_attr), n_state = c.num_inputs() - 1 - m;
  if (static_cast<size_t>(body.input_size()) != n_state + m || static_cast<size_t>(body.output_size()) < n_state)
    c.invalid("the body's inputs and outputs do not match the states and scan inputs");
  std::vector<int64_t> dirs = c.attr_ints("directions", std::vector<int64_t>(m, 0));
  if (dirs.size() != m) c.invalid("directions must have one value per scan input");
  size_t n_out = static_cast<size_t>(body.output_size()) - n_state;
  int64_t B = -1, T = -1;
  for (size_t i = 1; i < c.num_inputs(); ++i) {
    if (c.rank(i) < (i > n_state ? 2u : 1u))
      c.invalid("input " + std::to_string(i) + " lacks the batch (and sequence) dims");
    if (B >= 0 && c.shape(i)[0] != B) c.invalid("inputs differ in batch size");
    B = c.shape(i)[0];
    if (i > n_state) {
      if (T >= 0 && c.shape(i)[1] != T) c.invalid("scan inputs differ in length");
      T = c.shape(i)[1];
    }
  }
  std::vector<int64_t> lens(static_cast<size_t>(B), T);
  if (c.has(0)) {
    lens = c.ints(0);
    if (static_cast<int64_t>(lens.size()) != B)
      c.invalid("sequence_lens has " + std::to_string(lens.size()) + " values for batch " + std::to_string(B));
    for (int64_t l : lens)
      if (l < 0 || l > T) c.invalid("sequence length " + std::to_string(l) + " outside [0, " + std::to_string(T) + "]");
  }
  auto row = [&](size_t i, int64_t b) { return api::squeeze_dims(api::narrow(c.in(i), 0, b, 1), {0}); };
  std::vector<std::vector<H>> final_states(n_state), scan_outs(n_out);
  for (int64_t b = 0; b < B; ++b) {
    Values state;
    for (size_t i = 0; i < n_state; ++i) state.push_back(Value::of(row(1 + i, b)));
    int64_t len = lens[static_cast<size_t>(b)];
    std::vector<std::vector<H>> outs(n_out);
    for (int64_t t = 0; t < len; ++t) {
      Values in = state;
      for (size_t j = 0; j < m; ++j) {
        int64_t at = dirs[j] ? len - 1 - t : t;
        in.push_back(Value::of(api::squeeze_dims(api::narrow(row(1 + n_state + j, b), 0, at, 1), {0})));
      }
      Values out = c.run_graph(body, in);
      for (size_t i = 0; i < n_state; ++i) state[i] = out[i];
      for (size_t j = 0; j < n_out; ++j) outs[j].push_back(out[n_state + j].tensor);
    }
    for (size_t i = 0; i < n_state; ++i) final_states[i].push_back(state[i].tensor);
    for (size_t j = 0; j < n_out; ++j) {
      if (outs[j].empty()) c.unsupported("a scan over zero steps");
      H y = api::stack(outs[j], 0);
      if (len < T) {
        const Shape ys = shape_of(y);
        std::vector<int64_t> pads(2 * ys.rank(), 0);
        pads[pads.size() - 1] = T - len;  // after, along dim 0 (torch order: the last pair)
        y = api::pad(y, pads, PadMode::Constant, is_float(y.prim->dtype()) ? Scalar(0.0) : Scalar(int64_t{0}));
      }
      scan_outs[j].push_back(y);
    }
  }
  Values result;
  for (auto& s : final_states) result.push_back(Value::of(api::stack(s, 0)));
  for (auto& s : scan_outs) result.push_back(Value::of(api::stack(s, 0)));
  return result;
}

Values sequence_map(OpContext& c) {
  const auto& body = graph_attr(c, "body");
  size_t n = seq_in(c, 0).size();
  size_t n_out = static_cast<size_t>(body.output_size());
  std::vector<std::vector<H>> outs(n_out);
  for (size_t i = 0; i < n; ++i) {
    Values in;
    for (size_t j = 0; j < c.num_inputs(); ++j) {
      const Value& v = c.value(j);
      if (v.kind == Value::Kind::Sequence) {
        if (v.sequence.size() != n) c.invalid("sequences differ in length");
        in.push_back(Value::of(v.sequence[i]));
      } else {
        in.push_back(v);
      }
    }
    Values out = c.run_graph(body, in);
    for (size_t j = 0; j < n_out; ++j) outs[j].push_back(out[j].tensor);
  }
  Values result;
  for (auto& o : outs) result.push_back(Value::of(std::move(o)));
  return result;
}

}  // namespace

void add_sequence_ops(std::vector<OpRow>& r) {
  const int k = kMaxOpset;
  r.insert(r.end(), {
                        {"Identity", 1, k, nullptr, identity},
                        {"SequenceEmpty", 11, k, nullptr, sequence_empty},
                        {"SequenceConstruct", 11, k, nullptr, sequence_construct},
                        {"SequenceInsert", 11, k, nullptr, sequence_insert},
                        {"SequenceAt", 11, k, nullptr, sequence_at},
                        {"SequenceErase", 11, k, nullptr, sequence_erase},
                        {"SequenceLength", 11, k, nullptr, sequence_length},
                        {"SplitToSequence", 11, k, nullptr, split_to_sequence},
                        {"ConcatFromSequence", 11, k, nullptr, concat_from_sequence},
                        {"Optional", 15, k, nullptr, optional},
                        {"OptionalHasElement", 15, k, nullptr, optional_has_element},
                        {"OptionalGetElement", 15, k, nullptr, optional_get_element},
                        {"If", 1, k, nullptr, if_op},
                        {"Loop", 1, k, nullptr, loop},
                        {"Scan", 8, 8, nullptr, scan8},
                        {"Scan", 9, k, nullptr, scan},
                        {"SequenceMap", 17, k, nullptr, sequence_map},
                    });
}

}  // namespace burn::onnx
