// The pool module ops over contiguous NC<spatial> planes seen as (D, H, W) (unit leading dims for 1-D and
// 2-D), with PyTorch's index rules as burn/tensor/detail/sampling_taps.hpp and the cpu backend state them
// (burn-backend-cpu/src/ops/pool.cpp): a pool window of output o along a dim starts at o * stride -
// padding and takes kernel taps `dilation` apart, only those inside the input; an ADAPTIVE window is
// [floor(o * in / out), ceil((o + 1) * in / out)). The geometry arrives as 21 ints at pc.geo: in, out,
// kernel, stride, padding (before), padding_end, dilation, three each. MODE:
//  MAX_FWD        an invocation per output: the window's max, taps in row-major window order, the first
//                 strict maximum wins and a NaN wins (PyTorch), with WITH_INDICES its flat in-plane index.
//  AVG_FWD        an invocation per output: the taps' sum in the cpu's order (each column of the window
//                 summed, then the columns), times 1 / PyTorch's divisor (COUNT_PAD: count_include_pad);
//                 ADAPTIVE: row-major sum / window size.
//  AVG_BWD        an invocation per input element: the sum over the outputs whose window holds it.
//  MAX_BWD_CHECK  an invocation per output index: out of the plane is a fault (IndexError); outside its
//                 own window sets pc.flag, so that MAX_BWD_SERIAL redoes the planes.
//  MAX_BWD        an invocation per input element: the sum of the gradients of the outputs whose window
//                 holds it and whose index names it, in output order (the cpu's order).
//  MAX_BWD_SERIAL an invocation per plane, only when pc.flag is set (an index outside its window): the
//                 plane scattered output by output, as the cpu does. Deterministic either way.
layout(push_constant) uniform Push {
  ADDR X;  // the input (forward), unused in backward
  ADDR G;  // grad_out (backward)
  ADDR Y;  // the result (forward) or grad_in (backward)
  ADDR I;  // indices: written by MAX_FWD, read by the MAX_BWD modes
  ADDR geo;
  ADDR flag;  // an int: 1 when some index lies outside its window
  ADDR faults;
  int64_t planes;
  uint tag;
} pc;

#define ACC X_C

int gin[3], gout[3], gk[3], gs[3], gpb[3], gpe[3], gd[3];
int in_len, out_len;

void load_geometry() {
  BufI32 b = BufI32(pc.geo);
  for (int a = 0; a < 3; ++a) {
    gin[a] = b.v[a];
    gout[a] = b.v[3 + a];
    gk[a] = b.v[6 + a];
    gs[a] = b.v[9 + a];
    gpb[a] = b.v[12 + a];
    gpe[a] = b.v[15 + a];
    gd[a] = b.v[18 + a];
  }
  in_len = gin[0] * gin[1] * gin[2];
  out_len = gout[0] * gout[1] * gout[2];
}

// Window of output o along dim a: positions start + j * step for taps j in [lo, hi), all inside the input.
void window(int a, int o, out int start, out int step, out int lo, out int hi) {
#ifdef ADAPTIVE
  start = int((int64_t(o) * gin[a]) / gout[a]);
  step = 1;
  lo = 0;
  hi = int((int64_t(o + 1) * gin[a] + gout[a] - 1) / gout[a]) - start;
#else
  start = o * gs[a] - gpb[a];
  step = gd[a];
  lo = start >= 0 ? 0 : (-start - 1) / step + 1;
  hi = start >= gin[a] ? 0 : (gin[a] - 1 - start) / step + 1;
  lo = min(lo, gk[a]);
  hi = clamp(hi, lo, gk[a]);
#endif
}

// The outputs [lo, hi] along dim a whose window may hold input position i (for pools with dilation, those
// whose offset is a multiple of it: on_grid).
void outputs_of(int a, int i, out int lo, out int hi) {
#ifdef ADAPTIVE
  lo = int((int64_t(i) * gout[a]) / gin[a]);
  hi = min(int((int64_t(i + 1) * gout[a] - 1) / gin[a]), gout[a] - 1);
#else
  const int t = i + gpb[a] - (gk[a] - 1) * gd[a];
  lo = t <= 0 ? 0 : (t + gs[a] - 1) / gs[a];
  hi = min((i + gpb[a]) / gs[a], gout[a] - 1);
#endif
}
bool on_grid(int a, int i, int o) {
#ifdef ADAPTIVE
  return true;
#else
  return (i + gpb[a] - o * gs[a]) % gd[a] == 0;
#endif
}

// 1 / PyTorch's average-pool divisor factor along dim a for output o (cpu: inv_divisors).
ACC inv_divisor(int a, int o) {
  const int start = o * gs[a] - gpb[a];
#ifdef COUNT_PAD
  const int n = min(start + gk[a], gin[a] + gpe[a]) - start;
#else
  const int n = min(start + gk[a], gin[a]) - max(start, 0);
#endif
  return ACC(1) / ACC(n);
}

// The number of input positions in output o's adaptive window along dim a.
int adaptive_len(int a, int o) {
  int start, step, lo, hi;
  window(a, o, start, step, lo, hi);
  return hi - lo;
}

void main() {
  load_geometry();
#if defined(MAX_FWD) || defined(AVG_FWD) || defined(MAX_BWD_CHECK)
  const idx_t total = idx_t(pc.planes) * idx_t(out_len);
  for (idx_t i = gid(); i < total; i += gstride()) {
    const idx_t p = i / idx_t(out_len);
    const int r = int(i % idx_t(out_len));
    const int o[3] = int[3](r / (gout[2] * gout[1]), (r / gout[2]) % gout[1], r % gout[2]);
    int st[3], sp[3], lo[3], hi[3];
    for (int a = 0; a < 3; ++a) window(a, o[a], st[a], sp[a], lo[a], hi[a]);
#ifdef MAX_BWD_CHECK
    const int64_t v = int64_t(LOAD(I, i));
    if (v < 0 || v >= int64_t(in_len)) {
      raise_fault(pc.faults, pc.tag, FAULT_INDEX, v, int64_t(in_len));
      continue;
    }
    const int q[3] = int[3](int(v) / (gin[2] * gin[1]), (int(v) / gin[2]) % gin[1], int(v) % gin[2]);
    bool inside = true;
    for (int a = 0; a < 3; ++a) {
      const int t = q[a] - st[a];
      inside = inside && t >= 0 && t % sp[a] == 0 && t / sp[a] >= lo[a] && t / sp[a] < hi[a];
    }
    if (!inside) BufI32(pc.flag).v[0] = 1;
#else
    const idx_t base = p * idx_t(in_len);
#ifdef MAX_FWD
    ACC best = -ACC(F32_INF);
    int bi = -1;
    for (int j0 = lo[0]; j0 < hi[0]; ++j0)
      for (int j1 = lo[1]; j1 < hi[1]; ++j1) {
        const int row = ((st[0] + j0 * sp[0]) * gin[1] + st[1] + j1 * sp[1]) * gin[2];
        for (int j2 = lo[2]; j2 < hi[2]; ++j2) {
          const int pos = row + st[2] + j2 * sp[2];
          const ACC v = LOAD(X, base + idx_t(pos));
          if (bi < 0 || v > best || isnan(v)) {
            best = v;
            bi = pos;
          }
        }
      }
    STORE(Y, i, best);
#ifdef WITH_INDICES
    STORE(I, i, int64_t(max(bi, 0)));
#endif
#elif defined(ADAPTIVE)
    ACC acc = ACC(0);
    for (int j0 = lo[0]; j0 < hi[0]; ++j0)
      for (int j1 = lo[1]; j1 < hi[1]; ++j1) {
        const int row = ((st[0] + j0) * gin[1] + st[1] + j1) * gin[2] + st[2];
        for (int j2 = lo[2]; j2 < hi[2]; ++j2) acc += LOAD(X, base + idx_t(row + j2));
      }
    STORE(Y, i, acc / ACC((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2])));
#else
    ACC acc = ACC(0);
    for (int j2 = lo[2]; j2 < hi[2]; ++j2) {
      ACC column = ACC(0);
      for (int j0 = lo[0]; j0 < hi[0]; ++j0)
        for (int j1 = lo[1]; j1 < hi[1]; ++j1)
          column += LOAD(X, base + idx_t(((st[0] + j0) * gin[1] + st[1] + j1) * gin[2] + st[2] + j2));
      acc += column;
    }
    STORE(Y, i, acc * (inv_divisor(2, o[2]) * (inv_divisor(0, o[0]) * inv_divisor(1, o[1]))));
#endif
#endif
  }
#endif

#if defined(AVG_BWD) || defined(MAX_BWD)
  const idx_t total = idx_t(pc.planes) * idx_t(in_len);
  for (idx_t i = gid(); i < total; i += gstride()) {
    const idx_t p = i / idx_t(in_len);
    const int pos = int(i % idx_t(in_len));
    const int q[3] = int[3](pos / (gin[2] * gin[1]), (pos / gin[2]) % gin[1], pos % gin[2]);
    int lo[3], hi[3];
    for (int a = 0; a < 3; ++a) outputs_of(a, q[a], lo[a], hi[a]);
    const idx_t gbase = p * idx_t(out_len);
    ACC acc = ACC(0);
    for (int o0 = lo[0]; o0 <= hi[0]; ++o0) {
      if (!on_grid(0, q[0], o0)) continue;
      for (int o1 = lo[1]; o1 <= hi[1]; ++o1) {
        if (!on_grid(1, q[1], o1)) continue;
        const int row = (o0 * gout[1] + o1) * gout[2];
#ifdef MAX_BWD
        for (int o2 = lo[2]; o2 <= hi[2]; ++o2)
          if (on_grid(2, q[2], o2) && int64_t(LOAD(I, gbase + idx_t(row + o2))) == int64_t(pos))
            acc += LOAD(G, gbase + idx_t(row + o2));
#elif defined(ADAPTIVE)
        for (int o2 = lo[2]; o2 <= hi[2]; ++o2)
          acc += LOAD(G, gbase + idx_t(row + o2)) /
                 ACC(adaptive_len(0, o0) * adaptive_len(1, o1) * adaptive_len(2, o2));
#else
        const ACC scale = inv_divisor(0, o0) * inv_divisor(1, o1);
        ACC part = ACC(0);
        for (int o2 = lo[2]; o2 <= hi[2]; ++o2) part += LOAD(G, gbase + idx_t(row + o2)) * inv_divisor(2, o2) * scale;
        acc += part;
#endif
      }
    }
    STORE(Y, i, acc);
  }
#endif

#ifdef MAX_BWD_SERIAL
  if (BufI32(pc.flag).v[0] == 0) return;
  for (idx_t p = gid(); p < idx_t(pc.planes); p += gstride()) {
    const idx_t base = p * idx_t(in_len), gbase = p * idx_t(out_len);
    for (int j = 0; j < in_len; ++j) STORE(Y, base + idx_t(j), ACC(0));
    for (int o = 0; o < out_len; ++o) {
      const int64_t v = int64_t(LOAD(I, gbase + idx_t(o)));
      if (v >= 0 && v < int64_t(in_len))
        STORE(Y, base + idx_t(v), LOAD(Y, base + idx_t(v)) + LOAD(G, gbase + idx_t(o)));
    }
  }
#endif
}
