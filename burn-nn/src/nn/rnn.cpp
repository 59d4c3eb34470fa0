// Lstm, Gru, Rnn and their bidirectional forms: the input projections of all steps at once, then the steps.
#include "burn/nn/rnn.hpp"

#include "config_json.hpp"

namespace burn::nn {

BURN_CONFIG_JSON(RnnConfig, d_input, d_hidden, bias, batch_first, relu, initializer)

namespace {

// The input side of every step at once ([B, T, H], one matrix product per gate), then the steps.
struct Steps {
  int64_t batch, time;
  std::vector<Tensor<3>> inputs;  // per gate, [B, T, H]
};

Tensor<3> batch_major(const Tensor<3>& x, bool batch_first) { return batch_first ? x : x.swap_dims(0, 1); }

void check_input(const Tensor<3>& x, const Linear& input_transform, const char* op) {
  const int64_t d_input = input_transform.weight.shape()[0];
  if (x.dim(2) != d_input)
    throw ShapeError(op, "input " + x.shape().to_string() + " has no last dim of d_input " + std::to_string(d_input));
}

Tensor<2> step_input(const Tensor<3>& projected, int64_t t) { return projected.narrow(1, t, 1).squeeze<2>(1); }

void check_state(const Tensor<2>& s, int64_t batch, int64_t d_hidden, const char* op, const char* what) {
  if (s.shape() != Shape{batch, d_hidden})
    throw ShapeError(op, std::string(what) + " " + s.shape().to_string() + " is not [batch " + std::to_string(batch) +
                             ", d_hidden " + std::to_string(d_hidden) + "]");
}

Tensor<3> stack_steps(std::vector<Tensor<2>>& hs, bool reverse, bool batch_first) {
  if (reverse) std::reverse(hs.begin(), hs.end());
  std::vector<Tensor<3>> steps;
  steps.reserve(hs.size());
  for (const Tensor<2>& h : hs) steps.push_back(h.unsqueeze_dim<3>(1));
  const Tensor<3> out = Tensor<3>::cat(steps, 1);
  return batch_first ? out : out.swap_dims(0, 1);
}

GateController gate(const RnnConfig& c, const Device& d) {
  // Every weight and bias with fan_in = d_hidden: PyTorch's U(+-1/sqrt(d_hidden)) with the default.
  auto linear = [&](int64_t in) {
    Linear l;
    l.weight = Param<Tensor<2>>(c.initializer.init<2>(Shape{in, c.d_hidden}, d, c.d_hidden, c.d_hidden));
    if (c.bias) l.bias = Param<Tensor<1>>(c.initializer.init<1>(Shape{c.d_hidden}, d, c.d_hidden, c.d_hidden));
    return l;
  };
  return GateController{linear(c.d_input), linear(c.d_hidden)};
}

void check_config(const RnnConfig& c, const char* op) {
  if (c.d_input <= 0 || c.d_hidden <= 0)
    throw ValueError(op, "d_input and d_hidden must be positive, got " + std::to_string(c.d_input) + " and " +
                             std::to_string(c.d_hidden));
}

}  // namespace

std::pair<Tensor<3>, LstmState> Lstm::forward(const Tensor<3>& input, const std::optional<LstmState>& state,
                                              bool reverse) const {
  check_input(input, input_gate.input_transform, "Lstm");
  const Tensor<3> x = batch_major(input, batch_first);
  const int64_t b = x.dim(0), steps = x.dim(1);
  const GateController* gates[4] = {&input_gate, &forget_gate, &cell_gate, &output_gate};
  Tensor<3> projected[4];
  for (int g = 0; g < 4; ++g) projected[g] = gates[g]->input_transform.forward(x);
  Tensor<2> c = state ? state->cell : Tensor<2>::zeros({b, d_hidden}, x.device(), x.dtype());
  Tensor<2> h = state ? state->hidden : Tensor<2>::zeros({b, d_hidden}, x.device(), x.dtype());
  check_state(c, b, d_hidden, "Lstm", "cell state");
  check_state(h, b, d_hidden, "Lstm", "hidden state");
  std::vector<Tensor<2>> hs;
  for (int64_t s = 0; s < steps; ++s) {
    const int64_t t = reverse ? steps - 1 - s : s;
    Tensor<2> pre[4];
    for (int g = 0; g < 4; ++g) pre[g] = step_input(projected[g], t) + gates[g]->hidden_transform.forward(h);
    c = pre[1].sigmoid() * c + pre[0].sigmoid() * pre[2].tanh();
    h = pre[3].sigmoid() * c.tanh();
    hs.push_back(h);
  }
  return {stack_steps(hs, reverse, batch_first), LstmState{c, h}};
}

std::string Lstm::extra_repr() const {
  return "d_input=" + std::to_string(input_gate.input_transform.weight.shape()[0]) +
         ", d_hidden=" + std::to_string(d_hidden) + ", batch_first=" + (batch_first ? "true" : "false");
}

std::pair<Tensor<3>, std::pair<LstmState, LstmState>> BiLstm::forward(
    const Tensor<3>& x, const std::optional<std::pair<LstmState, LstmState>>& state) const {
  auto [yf, sf] = forward_dir.forward(x, state ? std::optional(state->first) : std::nullopt, false);
  auto [yr, sr] = reverse_dir.forward(x, state ? std::optional(state->second) : std::nullopt, true);
  return {Tensor<3>::cat({yf, yr}, 2), {sf, sr}};
}

std::pair<Tensor<3>, Tensor<2>> Gru::forward(const Tensor<3>& input, const std::optional<Tensor<2>>& hidden,
                                             bool reverse) const {
  check_input(input, update_gate.input_transform, "Gru");
  const Tensor<3> x = batch_major(input, batch_first);
  const int64_t b = x.dim(0), steps = x.dim(1);
  const Tensor<3> pz = update_gate.input_transform.forward(x), pr = reset_gate.input_transform.forward(x),
                  pn = new_gate.input_transform.forward(x);
  Tensor<2> h = hidden ? *hidden : Tensor<2>::zeros({b, d_hidden}, x.device(), x.dtype());
  check_state(h, b, d_hidden, "Gru", "hidden state");
  std::vector<Tensor<2>> hs;
  for (int64_t s = 0; s < steps; ++s) {
    const int64_t t = reverse ? steps - 1 - s : s;
    const Tensor<2> z = (step_input(pz, t) + update_gate.hidden_transform.forward(h)).sigmoid();
    const Tensor<2> r = (step_input(pr, t) + reset_gate.hidden_transform.forward(h)).sigmoid();
    const Tensor<2> n = (step_input(pn, t) + r * new_gate.hidden_transform.forward(h)).tanh();
    h = n + z * (h - n);  // (1 - z) n + z h
    hs.push_back(h);
  }
  return {stack_steps(hs, reverse, batch_first), h};
}

std::string Gru::extra_repr() const {
  return "d_input=" + std::to_string(update_gate.input_transform.weight.shape()[0]) +
         ", d_hidden=" + std::to_string(d_hidden) + ", batch_first=" + (batch_first ? "true" : "false");
}

std::pair<Tensor<3>, std::pair<Tensor<2>, Tensor<2>>> BiGru::forward(
    const Tensor<3>& x, const std::optional<std::pair<Tensor<2>, Tensor<2>>>& hidden) const {
  auto [yf, hf] = forward_dir.forward(x, hidden ? std::optional(hidden->first) : std::nullopt, false);
  auto [yr, hr] = reverse_dir.forward(x, hidden ? std::optional(hidden->second) : std::nullopt, true);
  return {Tensor<3>::cat({yf, yr}, 2), {hf, hr}};
}

std::pair<Tensor<3>, Tensor<2>> Rnn::forward(const Tensor<3>& input, const std::optional<Tensor<2>>& hidden,
                                             bool reverse) const {
  check_input(input, gate.input_transform, "Rnn");
  const Tensor<3> x = batch_major(input, batch_first);
  const int64_t b = x.dim(0), steps = x.dim(1);
  const Tensor<3> p = gate.input_transform.forward(x);
  Tensor<2> h = hidden ? *hidden : Tensor<2>::zeros({b, d_hidden}, x.device(), x.dtype());
  check_state(h, b, d_hidden, "Rnn", "hidden state");
  std::vector<Tensor<2>> hs;
  for (int64_t s = 0; s < steps; ++s) {
    const int64_t t = reverse ? steps - 1 - s : s;
    const Tensor<2> pre = step_input(p, t) + gate.hidden_transform.forward(h);
    h = nonlinearity == RnnNonlinearity::Relu ? pre.relu() : pre.tanh();
    hs.push_back(h);
  }
  return {stack_steps(hs, reverse, batch_first), h};
}

std::string Rnn::extra_repr() const {
  return "d_input=" + std::to_string(gate.input_transform.weight.shape()[0]) +
         ", d_hidden=" + std::to_string(d_hidden) +
         ", nonlinearity=" + (nonlinearity == RnnNonlinearity::Relu ? "relu" : "tanh");
}

std::pair<Tensor<3>, std::pair<Tensor<2>, Tensor<2>>> BiRnn::forward(
    const Tensor<3>& x, const std::optional<std::pair<Tensor<2>, Tensor<2>>>& hidden) const {
  auto [yf, hf] = forward_dir.forward(x, hidden ? std::optional(hidden->first) : std::nullopt, false);
  auto [yr, hr] = reverse_dir.forward(x, hidden ? std::optional(hidden->second) : std::nullopt, true);
  return {Tensor<3>::cat({yf, yr}, 2), {hf, hr}};
}

Lstm RnnConfig::init_lstm(const Device& d) const {
  check_config(*this, "RnnConfig::init_lstm");
  Lstm l;
  l.input_gate = gate(*this, d);
  l.forget_gate = gate(*this, d);
  l.output_gate = gate(*this, d);
  l.cell_gate = gate(*this, d);
  l.d_hidden = d_hidden;
  l.batch_first = batch_first;
  return l;
}
BiLstm RnnConfig::init_bilstm(const Device& d) const { return BiLstm{init_lstm(d), init_lstm(d)}; }

Gru RnnConfig::init_gru(const Device& d) const {
  check_config(*this, "RnnConfig::init_gru");
  Gru g;
  g.update_gate = gate(*this, d);
  g.reset_gate = gate(*this, d);
  g.new_gate = gate(*this, d);
  g.d_hidden = d_hidden;
  g.batch_first = batch_first;
  return g;
}
BiGru RnnConfig::init_bigru(const Device& d) const { return BiGru{init_gru(d), init_gru(d)}; }

Rnn RnnConfig::init_rnn(const Device& d) const {
  check_config(*this, "RnnConfig::init_rnn");
  Rnn r;
  r.gate = gate(*this, d);
  r.d_hidden = d_hidden;
  r.batch_first = batch_first;
  r.nonlinearity = relu ? RnnNonlinearity::Relu : RnnNonlinearity::Tanh;
  return r;
}
BiRnn RnnConfig::init_birnn(const Device& d) const { return BiRnn{init_rnn(d), init_rnn(d)}; }

}  // namespace burn::nn
