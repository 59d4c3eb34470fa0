// The norm module ops (layer, rms, group and batch norm, forward and backward), with the cpu backend's
// formulas (burn-backend-cpu/src/ops/norm.cpp): two-pass statistics (the mean, then the mean of squared
// deviations), rstd = 1 / sqrt(var + eps), sums in X_C (f32 for f16). Every tensor is contiguous. MODE:
//  ROWS_FWD     y = (x - mean) * rstd * w + b over rows of n (layer/rms norm: a row is the trailing dims;
//               group norm: a row is (n, group), its w/b index (r % groups) * cg + j / inner). RMS: mean 0.
//  ROWS_BWD     dx = rstd * (g w - mean(g w) - xhat * mean(g w xhat)) per row (RMS: no mean(g w) term), and
//               the row's (mean, rstd) into ST for PARAM_SUMS.
//  PARAM_SUMS   per parameter p: sum of g * (x - mean) * rstd (grad_weight) and of g (grad_bias) over the
//               elements (o * P + p) * inner + s, the statistics of row o * so + p / cg; into GW, GB and
//               (batch norm) SU.
//  CH_STATS     batch norm per channel: the batch mean and biased variance (TRAINING; with RUNNING the new
//               running statistics, the variance unbiased), or the running ones; (mean, rstd) into ST.
//  CH_APPLY     batch norm per element: y = (x - mean) * (rstd * w) + b.
//  CH_GRAD      batch norm per element: dx = rstd * w * (g - sum(g) / M - (x - mean) * rstd * SU_a / M)
//               (inference: the two terms are 0), SU = (sum g (x - mean) rstd, sum g) per channel.
// Row and parameter reductions: a workgroup each (tree sums, every invocation striding the row), or with
// LANES an invocation each (short rows).
#define ACC X_C

#ifdef LANES
#define ITEM_FIRST gid()
#define ITEM_STEP gstride()
#define J0 idx_t(0)
#define JS idx_t(1)
#define RSUM(v) (v)
#define LEADER true
#else
#define ITEM_FIRST group_id()
#define ITEM_STEP group_stride()
#define J0 idx_t(gl_LocalInvocationID.x)
#define JS idx_t(WG_X)
#define RSUM(v) wg_sum(v)
#define LEADER (gl_LocalInvocationID.x == 0)
#endif

#if defined(ROWS_FWD) || defined(ROWS_BWD)
layout(push_constant) uniform Push {
  ADDR X;
  ADDR G;  // ROWS_BWD: grad_out
  ADDR W;
  ADDR B;
  ADDR Y;   // the result, or grad_x
  ADDR ST;  // ROWS_BWD: (mean, rstd) per row
  int64_t rows;
  int64_t n;
  int64_t cg;     // weight index: (r % groups) * cg + j / inner
  int64_t inner;
  int groups;
  ACC eps;
} pc;

ACC weight_at(idx_t r, idx_t j) {
#ifdef HAS_W
  return ACC(LOAD(W, (r % idx_t(pc.groups)) * idx_t(pc.cg) + j / idx_t(pc.inner)));
#else
  return ACC(1);
#endif
}

void main() {
  const idx_t n = idx_t(pc.n);
  for (idx_t r = ITEM_FIRST; r < idx_t(pc.rows); r += ITEM_STEP) {
    const idx_t base = r * n;
    ACC mean = ACC(0);
#ifndef RMS
    ACC s = ACC(0);
    for (idx_t j = J0; j < n; j += JS) s += LOAD(X, base + j);
    mean = RSUM(s) / ACC(n);
#endif
    ACC q = ACC(0);
    for (idx_t j = J0; j < n; j += JS) {
      const ACC d = LOAD(X, base + j) - mean;
      q += d * d;
    }
    const ACC rstd = ACC(1) / sqrt(RSUM(q) / ACC(n) + pc.eps);
#ifdef ROWS_FWD
    for (idx_t j = J0; j < n; j += JS) {
      ACC y = (LOAD(X, base + j) - mean) * rstd;
#ifdef HAS_W
      y *= weight_at(r, j);
#endif
#ifdef HAS_B
      y += ACC(LOAD(B, (r % idx_t(pc.groups)) * idx_t(pc.cg) + j / idx_t(pc.inner)));
#endif
      STORE(Y, base + j, y);
    }
#else
    ACC sg = ACC(0), sgx = ACC(0);
    for (idx_t j = J0; j < n; j += JS) {
      const ACC g = LOAD(G, base + j) * weight_at(r, j);
#ifndef RMS
      sg += g;
#endif
      sgx += g * (LOAD(X, base + j) - mean);
    }
#ifndef RMS
    sg = RSUM(sg);
#endif
    sgx = RSUM(sgx) * rstd;
    const ACC mg = sg / ACC(n), mgx = sgx / ACC(n);
    for (idx_t j = J0; j < n; j += JS) {
      const ACC xh = (LOAD(X, base + j) - mean) * rstd;
      STORE(Y, base + j, rstd * (LOAD(G, base + j) * weight_at(r, j) - mg - xh * mgx));
    }
    if (LEADER) {
      STORE(ST, 2 * r, mean);
      STORE(ST, 2 * r + 1, rstd);
    }
#endif
  }
}
#endif

#ifdef PARAM_SUMS
layout(push_constant) uniform Push {
  ADDR X;
  ADDR G;
  ADDR ST;  // (mean, rstd) per statistics row
  ADDR GW;
  ADDR GB;
  ADDR SU;  // (sum g (x - mean) rstd, sum g) per parameter, in ACC
  int64_t params;
  int64_t outer;
  int64_t inner;
  int64_t so;  // statistics row of (o, p): o * so + p / cg
  int64_t cg;
} pc;

void main() {
  const idx_t P = idx_t(pc.params), S = idx_t(pc.inner), count = idx_t(pc.outer) * S;
  for (idx_t p = ITEM_FIRST; p < P; p += ITEM_STEP) {
    ACC sa = ACC(0), sb = ACC(0);
    for (idx_t t = J0; t < count; t += JS) {
      const idx_t o = t / S, e = (o * P + p) * S + t % S, st = o * idx_t(pc.so) + p / idx_t(pc.cg);
      const ACC g = LOAD(G, e);
      sb += g;
      sa += g * (LOAD(X, e) - LOAD(ST, 2 * st)) * LOAD(ST, 2 * st + 1);
    }
    sa = RSUM(sa);
    sb = RSUM(sb);
    if (LEADER) {
#ifdef HAS_GW
      STORE(GW, p, sa);
#endif
#ifdef HAS_GB
      STORE(GB, p, sb);
#endif
#ifdef HAS_SU
      STORE(SU, 2 * p, sa);
      STORE(SU, 2 * p + 1, sb);
#endif
    }
  }
}
#endif

#ifdef CH_STATS
layout(push_constant) uniform Push {
  ADDR X;
  ADDR RM;  // running statistics (inference: the ones used; training with RUNNING: the ones updated)
  ADDR RV;
  ADDR NM;  // the new running statistics
  ADDR NV;
  ADDR ST;
  int64_t batch;
  int64_t channels;
  int64_t inner;
  ACC eps;
  ACC momentum;
} pc;

void main() {
  const idx_t C = idx_t(pc.channels), S = idx_t(pc.inner), count = idx_t(pc.batch) * S;
  for (idx_t c = ITEM_FIRST; c < C; c += ITEM_STEP) {
#ifdef TRAINING
    ACC s = ACC(0);
    for (idx_t t = J0; t < count; t += JS) s += LOAD(X, ((t / S) * C + c) * S + t % S);
    const ACC mean = RSUM(s) / ACC(count);
    ACC q = ACC(0);
    for (idx_t t = J0; t < count; t += JS) {
      const ACC d = LOAD(X, ((t / S) * C + c) * S + t % S) - mean;
      q += d * d;
    }
    const ACC var = RSUM(q) / ACC(count);
#ifdef RUNNING
    if (LEADER) {
      const ACC k = pc.momentum;
      STORE(NM, c, (ACC(1) - k) * ACC(LOAD(RM, c)) + k * mean);
      STORE(NV, c, (ACC(1) - k) * ACC(LOAD(RV, c)) + k * var * (ACC(count) / (ACC(count) - ACC(1))));
    }
#endif
#else
    const ACC mean = ACC(LOAD(RM, c)), var = ACC(LOAD(RV, c));
#endif
    if (LEADER) {
      STORE(ST, 2 * c, mean);
      STORE(ST, 2 * c + 1, ACC(1) / sqrt(var + pc.eps));
    }
  }
}
#endif

#if defined(CH_APPLY) || defined(CH_GRAD)
layout(push_constant) uniform Push {
  ADDR X;
  ADDR G;  // CH_GRAD: grad_out
  ADDR W;
  ADDR B;
  ADDR ST;
  ADDR SU;  // CH_GRAD, TRAINING
  ADDR Y;
  int64_t n;  // elements
  int64_t channels;
  int64_t inner;
  int64_t count;  // values per channel (M)
} pc;

void main() {
  const idx_t C = idx_t(pc.channels), S = idx_t(pc.inner);
  for (idx_t i = gid(); i < idx_t(pc.n); i += gstride()) {
    const idx_t c = (i / S) % C;
    const ACC mean = LOAD(ST, 2 * c), rstd = LOAD(ST, 2 * c + 1);
#ifdef HAS_W
    const ACC a = rstd * ACC(LOAD(W, c));
#else
    const ACC a = rstd;
#endif
#ifdef CH_APPLY
#ifdef HAS_B
    const ACC shift = ACC(LOAD(B, c));
#else
    const ACC shift = ACC(0);
#endif
    STORE(Y, i, (LOAD(X, i) - mean) * a + shift);
#else
#ifdef TRAINING
    const ACC m = ACC(pc.count);
    const ACC cterm = LOAD(SU, 2 * c + 1) / m, kterm = rstd * LOAD(SU, 2 * c) / m;
#else
    const ACC cterm = ACC(0), kterm = ACC(0);
#endif
    STORE(Y, i, a * (LOAD(G, i) - cterm - (LOAD(X, i) - mean) * kterm));
#endif
  }
}
#endif
