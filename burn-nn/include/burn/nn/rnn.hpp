// Recurrent layers (Burn's): Lstm, Gru and Rnn, and their bidirectional forms, over [B, T, d_input]
// (batch_first, the default) or [T, B, d_input]. Each gate is a GateController (an input and a
// hidden Linear), so parameter paths read "input_gate.input_transform.weight". PyTorch's stacked
// weight_ih_l0 [4H, d_input] holds the same matrices (gates i, f, g, o), transposed.
#pragma once

#include "burn/nn/config.hpp"
#include "burn/nn/linear.hpp"

namespace burn::nn {

struct BURN_NN_API GateController {
  Linear input_transform;   // d_input -> d_hidden
  Linear hidden_transform;  // d_hidden -> d_hidden
  BURN_MODULE(input_transform, hidden_transform)
};

struct LstmState {
  Tensor<2> cell, hidden;  // [B, d_hidden]
};

class BURN_NN_API Lstm {
 public:
  GateController input_gate, forget_gate, output_gate, cell_gate;
  int64_t d_hidden = 0;
  bool batch_first = true;
  BURN_MODULE(input_gate, forget_gate, output_gate, cell_gate)
  // The hidden state of every step and the final state; `reverse` runs from the last step back.
  std::pair<Tensor<3>, LstmState> forward(const Tensor<3>& x, const std::optional<LstmState>& state = std::nullopt,
                                          bool reverse = false) const;
  std::string extra_repr() const;
};

class BURN_NN_API BiLstm {
 public:
  Lstm forward_dir, reverse_dir;  // Burn's `forward` and `reverse` (C++ has the method forward)
  BURN_MODULE(forward_dir, reverse_dir)
  // Output [B, T, 2 d_hidden] (forward then reverse); states of both directions.
  std::pair<Tensor<3>, std::pair<LstmState, LstmState>> forward(
      const Tensor<3>& x, const std::optional<std::pair<LstmState, LstmState>>& state = std::nullopt) const;
};

class BURN_NN_API Gru {
 public:
  GateController update_gate, reset_gate, new_gate;
  int64_t d_hidden = 0;
  bool batch_first = true;
  BURN_MODULE(update_gate, reset_gate, new_gate)
  // PyTorch's GRU: n = tanh(W_in x + b_in + r * (W_hn h + b_hn)), h' = (1 - z) n + z h.
  std::pair<Tensor<3>, Tensor<2>> forward(const Tensor<3>& x, const std::optional<Tensor<2>>& hidden = std::nullopt,
                                          bool reverse = false) const;
  std::string extra_repr() const;
};

class BURN_NN_API BiGru {
 public:
  Gru forward_dir, reverse_dir;
  BURN_MODULE(forward_dir, reverse_dir)
  std::pair<Tensor<3>, std::pair<Tensor<2>, Tensor<2>>> forward(
      const Tensor<3>& x, const std::optional<std::pair<Tensor<2>, Tensor<2>>>& hidden = std::nullopt) const;
};

enum class RnnNonlinearity : uint8_t { Tanh, Relu };

class BURN_NN_API Rnn {
 public:
  GateController gate;
  int64_t d_hidden = 0;
  bool batch_first = true;
  RnnNonlinearity nonlinearity = RnnNonlinearity::Tanh;
  BURN_MODULE(gate)
  // h' = act(W_ih x + b_ih + W_hh h + b_hh)
  std::pair<Tensor<3>, Tensor<2>> forward(const Tensor<3>& x, const std::optional<Tensor<2>>& hidden = std::nullopt,
                                          bool reverse = false) const;
  std::string extra_repr() const;
};

class BURN_NN_API BiRnn {
 public:
  Rnn forward_dir, reverse_dir;
  BURN_MODULE(forward_dir, reverse_dir)
  std::pair<Tensor<3>, std::pair<Tensor<2>, Tensor<2>>> forward(
      const Tensor<3>& x, const std::optional<std::pair<Tensor<2>, Tensor<2>>>& hidden = std::nullopt) const;
};

// One config for the three cells: PyTorch's default init, U(-1/sqrt(d_hidden), 1/sqrt(d_hidden)) for
// every weight and bias, is the default initializer with fan_in = d_hidden.
struct BURN_NN_API RnnConfig {
  int64_t d_input = 0;
  int64_t d_hidden = 0;
  bool bias = true;
  bool batch_first = true;
  bool relu = false;  // Rnn only: relu instead of tanh
  Initializer initializer = Initializer::pytorch_default();
  Lstm init_lstm(const Device& device) const;
  BiLstm init_bilstm(const Device& device) const;
  Gru init_gru(const Device& device) const;
  BiGru init_bigru(const Device& device) const;
  Rnn init_rnn(const Device& device) const;
  BiRnn init_birnn(const Device& device) const;
  BURN_CONFIG(RnnConfig)
};

}  // namespace burn::nn
