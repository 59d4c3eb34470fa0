// Convolutions over contiguous NC<spatial> tensors with 1 to 3 spatial dims (right-aligned into (D, H, W)),
// as implicit GEMMs: the columns of im2col are never built, each operand element is read where it lies.
// Per group g (the grid's z), the products, with m the row, n the column and kk the reduction index:
//  FORWARD      Y[b, g*Mo + n, o] = sum over kk = (ci, t) of X[b, g*Cg + ci, o*s - p + t*d] * W[g*Mo + n, ci, t]
//               rows m = (b, o) over N x out, columns n < Mo, kk < Cg x K; + bias[g*Mo + n] (HAS_BIAS)
//  GRAD_INPUT   Y[b, g*Cg + n, i] = sum over kk = (co, t) of G[b, g*Mo + co, o] * W[g*Mo + co, n, t], o the
//               output with o*s = i + p - t*d (none: 0); rows (b, i) over N x in, columns n < Cg, kk < Mo x K;
//               + bias[g*Cg + n] (HAS_BIAS: a transposed conv is this product)
//  GRAD_WEIGHT  Y[g*Mo + m, ci, t] = sum over kk = (b, o) of G[b, g*Mo + m, o] * X[b, g*Cg + ci, o*s - p + t*d]
//               rows m < Mo, columns n = (ci, t) < Cg x K, kk < N x out
//  BIAS_GRAD    Y[c] = sum of G[b, c, o] over (b, o): a workgroup per channel, tree sums
// Taps outside the input (padding) read nothing and count 0. Every output is one invocation's sum in a
// fixed order (deterministic); sums in X_C (f32 for f16, f64 for f64).
// Two GEMM shapes, as kernels/matmul.comp: register-blocked (default; CPU-type devices: every invocation
// reads its TM rows' and TN columns' operands directly, the index arithmetic hoisted out of the loops) and
// TILED (GPUs: the workgroup stages BK-deep slices of the implicit operands in shared memory). Invocation
// (lx, ly) owns rows ly + i * WG_Y and columns lx + j * WG_X of a BM x BN tile.
// The geometry arrives as ints at pc.geo: in, out, kernel, stride, padding, dilation (three each), then
// N, C, Cout, groups, Cg, Mo, K (kernel taps), in size, out size, GEMM rows, columns and depth.
// Epilogue hook (the fusion code generator: conv + bias + activation in one dispatch): FORWARD and GRAD_INPUT
// (a transposed conv) store EPILOGUE(v, i) with v the sum plus the bias (ACC) and i Y's flat index; with
// EPILOGUE_PUSH (fields after geo) and EPILOGUE_PREAMBLE (the functions it calls), as kernels/matmul.comp.
#ifndef EPILOGUE
#define EPILOGUE(v, i) (v)
#endif
#ifndef EPILOGUE_PUSH
#define EPILOGUE_PUSH
#endif
#ifndef EPILOGUE_PREAMBLE
#define EPILOGUE_PREAMBLE
#endif
#ifdef EPILOGUE_ONCE
#define STORE_LOOP NO_UNROLL for
#else
#define STORE_LOOP for
#endif

layout(push_constant) uniform Push {
  ADDR X;  // the conv's input, read through its geometry (FORWARD, GRAD_WEIGHT)
  ADDR G;  // the gradient of the conv's output (GRAD_INPUT, GRAD_WEIGHT, BIAS_GRAD)
  ADDR W;  // the weight [Cout, Cg, kernel...] (FORWARD, GRAD_INPUT)
  ADDR B;  // the bias (HAS_BIAS)
  ADDR Y;
  ADDR geo;
  EPILOGUE_PUSH
} pc;

EPILOGUE_PREAMBLE

#define ACC X_C

int gi[3], go[3], gk[3], gs[3], gp[3], gd[3];
int N, C, COUT, GROUPS, CG, MO, KS, IN_SIZE, OUT_SIZE, GM, GN, GK;

void load_geometry() {
  BufI32 b = BufI32(pc.geo);
  for (int a = 0; a < 3; ++a) {
    gi[a] = b.v[a];
    go[a] = b.v[3 + a];
    gk[a] = b.v[6 + a];
    gs[a] = b.v[9 + a];
    gp[a] = b.v[12 + a];
    gd[a] = b.v[15 + a];
  }
  N = b.v[18];
  C = b.v[19];
  COUT = b.v[20];
  GROUPS = b.v[21];
  CG = b.v[22];
  MO = b.v[23];
  KS = b.v[24];
  IN_SIZE = b.v[25];
  OUT_SIZE = b.v[26];
  GM = b.v[27];
  GN = b.v[28];
  GK = b.v[29];
}

#ifdef BIAS_GRAD
void main() {
  load_geometry();
  const idx_t count = idx_t(N) * idx_t(OUT_SIZE);
  for (idx_t c = group_id(); c < idx_t(COUT); c += group_stride()) {
    ACC s = ACC(0);
    for (idx_t t = idx_t(gl_LocalInvocationID.x); t < count; t += idx_t(WG_X))
      s += LOAD(G, ((t / idx_t(OUT_SIZE)) * idx_t(COUT) + c) * idx_t(OUT_SIZE) + t % idx_t(OUT_SIZE));
    s = wg_sum(s);
    if (gl_LocalInvocationID.x == 0) STORE(Y, c, s);
  }
}
#else

#define BM (WG_Y * TM)
#define BN (WG_X * TN)

// X[b, g*Cg + ci, o*s - p + t*d] for output position o and tap t (flat), 0 in the padding.
ACC x_patch(int g, int b, int o, int ci, int t) {
  int pos = 0;
  bool inside = true;
  int orest = o, trest = t;
  int q3[3];
  for (int a = 2; a >= 0; --a) {
    q3[a] = (orest % go[a]) * gs[a] - gp[a] + (trest % gk[a]) * gd[a];
    orest /= go[a];
    trest /= gk[a];
    inside = inside && q3[a] >= 0 && q3[a] < gi[a];
  }
  if (!inside) return ACC(0);
  pos = (q3[0] * gi[1] + q3[1]) * gi[2] + q3[2];
  return LOAD(X, (idx_t(b) * idx_t(C) + idx_t(g * CG + ci)) * idx_t(IN_SIZE) + idx_t(pos));
}

#ifdef TILED
// Element (m, kk) of the implicit left operand and (kk, n) of the right one, for group g (in range).
ACC a_elem(int g, int m, int kk) {
#if defined(FORWARD)
  return x_patch(g, m / OUT_SIZE, m % OUT_SIZE, kk / KS, kk % KS);
#elif defined(GRAD_INPUT)
  const int b = m / IN_SIZE, co = kk / KS;
  int irest = m % IN_SIZE, trest = kk % KS;
  int o3[3];
  for (int a = 2; a >= 0; --a) {
    const int q = irest % gi[a] + gp[a] - (trest % gk[a]) * gd[a];
    irest /= gi[a];
    trest /= gk[a];
    if (q < 0 || q % gs[a] != 0 || q / gs[a] >= go[a]) return ACC(0);
    o3[a] = q / gs[a];
  }
  return LOAD(G, (idx_t(b) * idx_t(COUT) + idx_t(g * MO + co)) * idx_t(OUT_SIZE) +
                     idx_t((o3[0] * go[1] + o3[1]) * go[2] + o3[2]));
#else
  return LOAD(G, (idx_t(kk / OUT_SIZE) * idx_t(COUT) + idx_t(g * MO + m)) * idx_t(OUT_SIZE) + idx_t(kk % OUT_SIZE));
#endif
}
ACC b_elem(int g, int kk, int n) {
#if defined(FORWARD)
  return ACC(LOAD(W, idx_t(g * MO + n) * idx_t(CG * KS) + idx_t(kk)));
#elif defined(GRAD_INPUT)
  return ACC(LOAD(W, (idx_t(g * MO + kk / KS) * idx_t(CG) + idx_t(n)) * idx_t(KS) + idx_t(kk % KS)));
#else
  return x_patch(g, kk / OUT_SIZE, kk % OUT_SIZE, n / KS, n % KS);
#endif
}

// K-major tiles with one element of padding per row (as kernels/matmul.comp).
#define AS_LD (BM + 1)
#define BS_LD (BN + 1)
SHARED ACC As[BK * AS_LD];
SHARED ACC Bs[BK * BS_LD];
#endif

void main() {
  load_geometry();
  const int lx = int(gl_LocalInvocationID.x), ly = int(gl_LocalInvocationID.y);
  const int tiles_m = (GM + BM - 1) / BM, tiles_n = (GN + BN - 1) / BN;
#ifdef TILED
  const int tid = ly * WG_X + lx;
#endif
  for (int g = int(gl_WorkGroupID.z); g < GROUPS; g += int(gl_NumWorkGroups.z))
    for (int tm = int(gl_WorkGroupID.y); tm < tiles_m; tm += int(gl_NumWorkGroups.y))
      for (int tn = int(gl_WorkGroupID.x); tn < tiles_n; tn += int(gl_NumWorkGroups.x)) {
        const int row0 = tm * BM, col0 = tn * BN;
        ACC acc[TM * TN];
        for (int e = 0; e < TM * TN; ++e) acc[e] = ACC(0);
#ifdef TILED
        for (int k0 = 0; k0 < GK; k0 += BK) {
          for (int t = tid; t < BM * BK; t += WG_X * WG_Y) {
            const int m = t % BM, k = t / BM;
            ACC v = ACC(0);
            if (row0 + m < GM && k0 + k < GK) v = a_elem(g, row0 + m, k0 + k);
            As[k * AS_LD + m] = v;
          }
          for (int t = tid; t < BN * BK; t += WG_X * WG_Y) {
            const int n = t % BN, k = t / BN;
            ACC v = ACC(0);
            if (col0 + n < GN && k0 + k < GK) v = b_elem(g, k0 + k, col0 + n);
            Bs[k * BS_LD + n] = v;
          }
          BARRIER();
          for (int kk = 0; kk < BK; ++kk) {
            ACC a[TM], b[TN];
            for (int i = 0; i < TM; ++i) a[i] = As[kk * AS_LD + ly + i * WG_Y];
            for (int j = 0; j < TN; ++j) b[j] = Bs[kk * BS_LD + lx + j * WG_X];
            for (int i = 0; i < TM; ++i)
              for (int j = 0; j < TN; ++j) acc[i * TN + j] += a[i] * b[j];
          }
          BARRIER();
        }
#else
#if defined(FORWARD)
        // Per row: where its image's group starts in X and its window's corner; per column its weights.
        idx_t xrow[TM];
        int c0[TM], c1[TM], c2[TM];
        for (int i = 0; i < TM; ++i) {
          const int m = min(row0 + ly + i * WG_Y, GM - 1), o = m % OUT_SIZE;
          xrow[i] = (idx_t(m / OUT_SIZE) * idx_t(C) + idx_t(g * CG)) * idx_t(IN_SIZE);
          c0[i] = (o / (go[2] * go[1])) * gs[0] - gp[0];
          c1[i] = ((o / go[2]) % go[1]) * gs[1] - gp[1];
          c2[i] = (o % go[2]) * gs[2] - gp[2];
        }
        idx_t wcol[TN];
        for (int j = 0; j < TN; ++j) wcol[j] = idx_t(g * MO + min(col0 + lx + j * WG_X, GN - 1)) * idx_t(CG * KS);
        for (int ci = 0; ci < CG; ++ci) {
          const idx_t xc = idx_t(ci) * idx_t(IN_SIZE);
          for (int k0 = 0; k0 < gk[0]; ++k0)
            for (int k1 = 0; k1 < gk[1]; ++k1)
              for (int k2 = 0; k2 < gk[2]; ++k2) {
                const int t = (k0 * gk[1] + k1) * gk[2] + k2;
                ACC a[TM], b[TN];
                for (int i = 0; i < TM; ++i) {
                  const int q0 = c0[i] + k0 * gd[0], q1 = c1[i] + k1 * gd[1], q2 = c2[i] + k2 * gd[2];
                  a[i] = ACC(0);
                  if (q0 >= 0 && q0 < gi[0] && q1 >= 0 && q1 < gi[1] && q2 >= 0 && q2 < gi[2])
                    a[i] = LOAD(X, xrow[i] + xc + idx_t((q0 * gi[1] + q1) * gi[2] + q2));
                }
                for (int j = 0; j < TN; ++j) b[j] = ACC(LOAD(W, wcol[j] + idx_t(ci * KS + t)));
                for (int i = 0; i < TM; ++i)
                  for (int j = 0; j < TN; ++j) acc[i * TN + j] += a[i] * b[j];
              }
        }
#elif defined(GRAD_INPUT)
        // Per row: where its image's group starts in G and its position plus padding; per column its weights.
        idx_t grow[TM];
        int c0[TM], c1[TM], c2[TM];
        for (int i = 0; i < TM; ++i) {
          const int m = min(row0 + ly + i * WG_Y, GM - 1), p = m % IN_SIZE;
          grow[i] = (idx_t(m / IN_SIZE) * idx_t(COUT) + idx_t(g * MO)) * idx_t(OUT_SIZE);
          c0[i] = p / (gi[2] * gi[1]) + gp[0];
          c1[i] = (p / gi[2]) % gi[1] + gp[1];
          c2[i] = p % gi[2] + gp[2];
        }
        int wcol[TN];
        for (int j = 0; j < TN; ++j) wcol[j] = min(col0 + lx + j * WG_X, GN - 1) * KS;
        for (int co = 0; co < MO; ++co) {
          const idx_t wrow = idx_t(g * MO + co) * idx_t(CG * KS), gc = idx_t(co) * idx_t(OUT_SIZE);
          for (int k0 = 0; k0 < gk[0]; ++k0)
            for (int k1 = 0; k1 < gk[1]; ++k1)
              for (int k2 = 0; k2 < gk[2]; ++k2) {
                const int t = (k0 * gk[1] + k1) * gk[2] + k2;
                ACC a[TM], b[TN];
                for (int i = 0; i < TM; ++i) {
                  const int q0 = c0[i] - k0 * gd[0], q1 = c1[i] - k1 * gd[1], q2 = c2[i] - k2 * gd[2];
                  a[i] = ACC(0);
                  if (q0 >= 0 && q1 >= 0 && q2 >= 0 && q0 % gs[0] == 0 && q1 % gs[1] == 0 && q2 % gs[2] == 0 &&
                      q0 / gs[0] < go[0] && q1 / gs[1] < go[1] && q2 / gs[2] < go[2])
                    a[i] = LOAD(G, grow[i] + gc + idx_t(((q0 / gs[0]) * go[1] + q1 / gs[1]) * go[2] + q2 / gs[2]));
                }
                for (int j = 0; j < TN; ++j) b[j] = ACC(LOAD(W, wrow + idx_t(wcol[j] + t)));
                for (int i = 0; i < TM; ++i)
                  for (int j = 0; j < TN; ++j) acc[i * TN + j] += a[i] * b[j];
              }
        }
#else
        // GRAD_WEIGHT. Per row its output channel in G; per column its channel in X and its tap's offset.
        idx_t grow[TM];
        for (int i = 0; i < TM; ++i) grow[i] = idx_t(g * MO + min(row0 + ly + i * WG_Y, GM - 1)) * idx_t(OUT_SIZE);
        idx_t xcol[TN];
        int c0[TN], c1[TN], c2[TN];
        for (int j = 0; j < TN; ++j) {
          const int n = min(col0 + lx + j * WG_X, GN - 1), t = n % KS;
          xcol[j] = idx_t(g * CG + n / KS) * idx_t(IN_SIZE);
          c0[j] = (t / (gk[2] * gk[1])) * gd[0] - gp[0];
          c1[j] = ((t / gk[2]) % gk[1]) * gd[1] - gp[1];
          c2[j] = (t % gk[2]) * gd[2] - gp[2];
        }
        for (int b = 0; b < N; ++b) {
          const idx_t gb = idx_t(b) * idx_t(COUT) * idx_t(OUT_SIZE), xb = idx_t(b) * idx_t(C) * idx_t(IN_SIZE);
          for (int o0 = 0; o0 < go[0]; ++o0)
            for (int o1 = 0; o1 < go[1]; ++o1)
              for (int o2 = 0; o2 < go[2]; ++o2) {
                const int o = (o0 * go[1] + o1) * go[2] + o2;
                ACC a[TM], bv[TN];
                for (int i = 0; i < TM; ++i) a[i] = LOAD(G, gb + grow[i] + idx_t(o));
                for (int j = 0; j < TN; ++j) {
                  const int q0 = o0 * gs[0] + c0[j], q1 = o1 * gs[1] + c1[j], q2 = o2 * gs[2] + c2[j];
                  bv[j] = ACC(0);
                  if (q0 >= 0 && q0 < gi[0] && q1 >= 0 && q1 < gi[1] && q2 >= 0 && q2 < gi[2])
                    bv[j] = LOAD(X, xb + xcol[j] + idx_t((q0 * gi[1] + q1) * gi[2] + q2));
                }
                for (int i = 0; i < TM; ++i)
                  for (int j = 0; j < TN; ++j) acc[i * TN + j] += a[i] * bv[j];
              }
        }
#endif
#endif
        STORE_LOOP (int i = 0; i < TM; ++i) {
          const int m = row0 + ly + i * WG_Y;
          STORE_LOOP (int j = 0; j < TN; ++j) {
            const int n = col0 + lx + j * WG_X;
            if (m >= GM || n >= GN) continue;
            ACC v = acc[i * TN + j];
#if defined(FORWARD)
#ifdef HAS_BIAS
            v += ACC(LOAD(B, g * MO + n));
#endif
            const idx_t yi = (idx_t(m / OUT_SIZE) * idx_t(COUT) + idx_t(g * MO + n)) * idx_t(OUT_SIZE) + idx_t(m % OUT_SIZE);
            STORE(Y, yi, EPILOGUE(v, yi));
#elif defined(GRAD_INPUT)
#ifdef HAS_BIAS
            v += ACC(LOAD(B, g * CG + n));
#endif
            const idx_t yi = (idx_t(m / IN_SIZE) * idx_t(C) + idx_t(g * CG + n)) * idx_t(IN_SIZE) + idx_t(m % IN_SIZE);
            STORE(Y, yi, EPILOGUE(v, yi));
#else
            STORE(Y, idx_t(g * MO + m) * idx_t(CG * KS) + idx_t(n), v);
#endif
          }
        }
      }
}
#endif
