// interpolate and interpolate_backward over contiguous NC<spatial> planes seen as (D, H, W), separable,
// with the tap tables the host builds by sampling_taps.hpp's interp_taps (PyTorch's nearest index,
// linear and cubic source coordinates and weights, computed once there for every backend). The tables
// arrive as two parallel arrays: ints at pc.taps, weights (W: f32, f64 for f64) at pc.W.
//  FORWARD   an invocation per output: sum over the width taps of w * (sum over the (depth, height) taps
//            of w_d * w_h * x), the cpu's order. Header ints: k[3], then where each dim's positions start;
//            tap j of output o along dim a is at ints[start_a + o * k_a + j] (its weight at the same index).
//  BACKWARD  an invocation per input element, summing the outputs that read it (no float atomics): the
//            host inverted each dim's table into rows per input position. Header ints: where each dim's
//            row starts lie (in_a + 1 of them, indices into the dim's entries), then where its entries
//            lie (the output of each; its weight at the same index).
layout(push_constant) uniform Push {
  ADDR X;  // FORWARD: the input
  ADDR G;  // BACKWARD: grad_out
  ADDR Y;
  ADDR taps;
  ADDR W;
  int64_t planes;
  int in0;
  int in1;
  int in2;
  int out0;
  int out1;
  int out2;
} pc;

#define ACC X_C

int tap(int i) { return BufI32(pc.taps).v[i]; }

void main() {
  const int gin[3] = int[3](pc.in0, pc.in1, pc.in2);
  const int gout[3] = int[3](pc.out0, pc.out1, pc.out2);
  const int in_len = gin[0] * gin[1] * gin[2], out_len = gout[0] * gout[1] * gout[2];
#ifdef FORWARD
  const int k0 = tap(0), k1 = tap(1), k2 = tap(2), s0 = tap(3), s1 = tap(4), s2 = tap(5);
  const idx_t total = idx_t(pc.planes) * idx_t(out_len);
  for (idx_t i = gid(); i < total; i += gstride()) {
    const idx_t base = (i / idx_t(out_len)) * idx_t(in_len);
    const int r = int(i % idx_t(out_len));
    const int o0 = r / (gout[2] * gout[1]), o1 = (r / gout[2]) % gout[1], o2 = r % gout[2];
    ACC acc = ACC(0);
    for (int j2 = 0; j2 < k2; ++j2) {
      const int t2 = s2 + o2 * k2 + j2;
      ACC inner = ACC(0);
      for (int j0 = 0; j0 < k0; ++j0)
        for (int j1 = 0; j1 < k1; ++j1) {
          const int t0 = s0 + o0 * k0 + j0, t1 = s1 + o1 * k1 + j1;
          const ACC rw = ACC(LOAD(W, t0)) * ACC(LOAD(W, t1));
          inner += rw * LOAD(X, base + idx_t((tap(t0) * gin[1] + tap(t1)) * gin[2] + tap(t2)));
        }
      acc += ACC(LOAD(W, t2)) * inner;
    }
    STORE(Y, i, acc);
  }
#else
  const idx_t total = idx_t(pc.planes) * idx_t(in_len);
  for (idx_t i = gid(); i < total; i += gstride()) {
    const idx_t gbase = (i / idx_t(in_len)) * idx_t(out_len);
    const int r = int(i % idx_t(in_len));
    const int q0 = r / (gin[2] * gin[1]), q1 = (r / gin[2]) % gin[1], q2 = r % gin[2];
    const int r0 = tap(0), r1 = tap(1), r2 = tap(2), e0 = tap(3), e1 = tap(4), e2 = tap(5);
    ACC acc = ACC(0);
    for (int a = tap(r0 + q0); a < tap(r0 + q0 + 1); ++a)
      for (int b = tap(r1 + q1); b < tap(r1 + q1 + 1); ++b) {
        const ACC rw = ACC(LOAD(W, e0 + a)) * ACC(LOAD(W, e1 + b));
        const int row = (tap(e0 + a) * gout[1] + tap(e1 + b)) * gout[2];
        ACC inner = ACC(0);
        for (int c = tap(r2 + q2); c < tap(r2 + q2 + 1); ++c)
          inner += ACC(LOAD(W, e2 + c)) * LOAD(G, gbase + idx_t(row + tap(e2 + c)));
        acc += rw * inner;
      }
    STORE(Y, i, acc);
  }
#endif
}
