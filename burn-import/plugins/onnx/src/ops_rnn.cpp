// Recurrent layers: RNN, GRU and LSTM (forward, reverse, bidirectional; layout 0 and 1; LSTM
// peepholes), unrolled over the time steps with the tensor API, so they are differentiable.
#include "engine.hpp"

namespace burn::onnx {
namespace {

using Hs = std::vector<H>;

enum class Cell { Rnn, Gru, Lstm };

H activate(OpContext& c, const std::string& name, const H& x) {
  if (name == "Sigmoid") return api::unary(OpId::sigmoid, x);
  if (name == "Tanh") return api::unary(OpId::tanh, x);
  if (name == "Relu") return api::unary(OpId::relu, x);
  c.unsupported("activation '" + name + "'");
}

H slice0(const H& h, int64_t i) { return api::squeeze_dims(api::narrow(h, 0, i, 1), {0}); }  // h[i]

template <Cell K>
Hs recurrent(OpContext& c) {
  const int64_t gates = K == Cell::Lstm ? 4 : K == Cell::Gru ? 3 : 1;
  std::string dir = c.attr_s("direction", "forward");
  int64_t dirs = dir == "bidirectional" ? 2 : 1;
  bool batch_first = c.attr_i("layout", 0) != 0;
  if (c.has_attr("clip")) c.unsupported("clip");
  if (c.attr_i("input_forget", 0)) c.unsupported("input_forget");
  std::vector<std::string> acts;
  if (const auto* a = c.attr("activations"))
    for (const auto& s : a->strings()) acts.push_back(s);
  if (acts.empty()) {
    std::vector<std::string> one = K == Cell::Lstm  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                   : K == Cell::Gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                    : std::vector<std::string>{"Tanh"};
    for (int64_t d = 0; d < dirs; ++d) acts.insert(acts.end(), one.begin(), one.end());
  }
  size_t per_dir = acts.size() / static_cast<size_t>(dirs);
  if (c.rank(0) != 3 || c.rank(1) != 3 || c.rank(2) != 3) c.invalid("X, W and R must be 3-D");
  H x = c.in(0);
  if (batch_first) x = api::swap_dims(x, 0, 1);  // [seq, batch, input]
  const Shape xs = shape_of(x);
  int64_t T = xs[0], B = xs[1];
  int64_t hid = c.attr_i("hidden_size", c.shape(2)[2]);
  if (c.has(4)) {
    for (int64_t l : c.ints(4))
      if (l != T) c.unsupported("sequence_lens shorter than the sequence");
  }
  DType dt = c.dtype(0);
  const size_t hi = 5, ci = 6, pi = 7;  // initial_h, initial_c, P
  Hs ys, hs, cs;
  for (int64_t d = 0; d < dirs; ++d) {
    bool reverse = dir == "reverse" || d == 1;
    H W = slice0(c.in(1), d), R = slice0(c.in(2), d);  // [G*hid, in], [G*hid, hid]
    H xw = matmul_nd(x, api::swap_dims(W, 0, 1));      // [T, B, G*hid]
    std::optional<H> wb, rb;
    if (c.has(3)) {
      H b = slice0(c.in(3), d);
      wb = api::narrow(b, 0, 0, gates * hid);
      rb = api::narrow(b, 0, gates * hid, gates * hid);
      xw = api::add(xw, *wb);
    }
    H h = c.has(hi) ? slice0(c.in(hi), d) : api::full(c.device(), Shape{B, hid}, Scalar(0.0), dt);
    H cell = K == Cell::Lstm && c.has(ci) ? slice0(c.in(ci), d) : api::full(c.device(), Shape{B, hid}, Scalar(0.0), dt);
    std::optional<H> P;
    if (K == Cell::Lstm && c.has(pi)) P = slice0(c.in(pi), d);
    const std::string* a = &acts[per_dir * static_cast<size_t>(d)];
    H Rt = api::swap_dims(R, 0, 1);
    std::vector<H> out(static_cast<size_t>(T));
    for (int64_t s = 0; s < T; ++s) {
      int64_t t = reverse ? T - 1 - s : s;
      H xt = slice0(xw, t);  // [B, G*hid]
      auto gate = [&](const H& g, int64_t k) { return api::narrow(g, 1, k * hid, hid); };
      if (K == Cell::Rnn) {
        H pre = api::add(xt, api::matmul(h, Rt));
        if (rb) pre = api::add(pre, *rb);
        h = activate(c, a[0], pre);
      } else if (K == Cell::Gru) {
        // zrh gate order; the h gate's recurrent part depends on linear_before_reset.
        H rz = api::matmul(h, api::narrow(Rt, 1, 0, 2 * hid));
        if (rb) rz = api::add(rz, api::narrow(*rb, 0, 0, 2 * hid));
        H z = activate(c, a[0], api::add(gate(xt, 0), gate(rz, 0)));
        H r = activate(c, a[0], api::add(gate(xt, 1), gate(rz, 1)));
        H Rh = api::narrow(Rt, 1, 2 * hid, hid);
        std::optional<H> rbh;
        if (rb) rbh = api::narrow(*rb, 0, 2 * hid, hid);
        H rec;
        if (c.attr_i("linear_before_reset", 0)) {
          rec = api::matmul(h, Rh);
          if (rbh) rec = api::add(rec, *rbh);
          rec = api::mul(r, rec);
        } else {
          rec = api::matmul(api::mul(r, h), Rh);
          if (rbh) rec = api::add(rec, *rbh);
        }
        H n = activate(c, a[1], api::add(gate(xt, 2), rec));
        h = api::add(api::mul(api::rsub_scalar(z, Scalar(1.0)), n), api::mul(z, h));
      } else {
        // iofc gate order, optional peepholes P = [Pi, Po, Pf].
        H g = api::add(xt, api::matmul(h, Rt));
        if (rb) g = api::add(g, *rb);
        H gi = gate(g, 0), go = gate(g, 1), gf = gate(g, 2), gc = gate(g, 3);
        if (P) {
          gi = api::add(gi, api::mul(api::narrow(*P, 0, 0, hid), cell));
          gf = api::add(gf, api::mul(api::narrow(*P, 0, 2 * hid, hid), cell));
        }
        H i = activate(c, a[0], gi), f = activate(c, a[0], gf), cc = activate(c, a[1], gc);
        cell = api::add(api::mul(f, cell), api::mul(i, cc));
        if (P) go = api::add(go, api::mul(api::narrow(*P, 0, hid, hid), cell));
        H o = activate(c, a[0], go);
        h = api::mul(o, activate(c, a[2], cell));
      }
      out[static_cast<size_t>(t)] = h;
    }
    ys.push_back(api::stack(out, 0));  // [T, B, hid]
    hs.push_back(h);
    cs.push_back(cell);
  }
  H y = api::stack(ys, 1), yh = api::stack(hs, 0), yc = api::stack(cs, 0);  // [T, D, B, hid], [D, B, hid]
  if (batch_first) {
    y = api::permute(y, {2, 0, 1, 3});
    yh = api::swap_dims(yh, 0, 1);
    yc = api::swap_dims(yc, 0, 1);
  }
  if (K == Cell::Lstm) return {y, yh, yc};
  return {y, yh};
}

}  // namespace

void add_rnn_ops(std::vector<OpRow>& r) {
  const int k = kMaxOpset;
  r.insert(r.end(), {
                        {"RNN", 7, k, recurrent<Cell::Rnn>},
                        {"GRU", 7, k, recurrent<Cell::Gru>},
                        {"LSTM", 7, k, recurrent<Cell::Lstm>},
                    });
}

}  // namespace burn::onnx
