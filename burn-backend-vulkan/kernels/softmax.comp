// softmax / log_softmax (LOG) along the middle dim of a contiguous X seen as [rows, n, inner], into a
// contiguous Y of the same shape, as the cpu backend: m = the NaN-propagating max, s = sum exp(x - m),
// y = exp(x - m) / s, or (x - m) - log(s) (not x - (m + log(s)), which rounds away small differences).
// A row of -inf gives NaN (x - m is NaN), as the cpu. Sums in X_C (f32 for f16).
//  ROWS (inner == 1, long rows): a workgroup per row, its invocations striding the row, tree reductions.
//  else: an invocation per lane (row, i) walking its n elements at stride inner, so that neighbouring
//  invocations read neighbouring elements.
layout(push_constant) uniform Push {
  ADDR X;
  ADDR Y;
  int64_t rows;
  int64_t n;
  int64_t inner;
} pc;

#define ACC X_C

// y from x, the row's max m and k = 1 / s (softmax) or log(s) (log_softmax).
ACC finish(ACC x, ACC m, ACC k) {
#ifdef LOG
  return (x - m) - k;
#else
  return b_exp(x - m) * k;
#endif
}

void main() {
  const idx_t n = idx_t(pc.n);
#ifdef ROWS
  const idx_t t = idx_t(gl_LocalInvocationID.x);
  for (idx_t r = group_id(); r < idx_t(pc.rows); r += group_stride()) {
    const idx_t base = r * n;
    ACC m = -ACC(F32_INF);
    for (idx_t j = t; j < n; j += WG_X) m = b_max(m, LOAD(X, base + j));
    m = wg_max(m);
    ACC s = ACC(0);
    for (idx_t j = t; j < n; j += WG_X) s += b_exp(LOAD(X, base + j) - m);
    s = wg_sum(s);
#ifdef LOG
    const ACC k = b_log(s);
#else
    const ACC k = ACC(1) / s;
#endif
    for (idx_t j = t; j < n; j += WG_X) STORE(Y, base + j, finish(LOAD(X, base + j), m, k));
  }
#else
  const idx_t inner = idx_t(pc.inner);
  const idx_t lanes = idx_t(pc.rows) * inner;
  for (idx_t l = gid(); l < lanes; l += gstride()) {
    const idx_t base = (l / inner) * n * inner + l % inner;
    ACC m = -ACC(F32_INF);
    for (idx_t j = 0; j < n; ++j) m = b_max(m, LOAD(X, base + j * inner));
    ACC s = ACC(0);
    for (idx_t j = 0; j < n; ++j) s += b_exp(LOAD(X, base + j * inner) - m);
#ifdef LOG
    const ACC k = b_log(s);
#else
    const ACC k = ACC(1) / s;
#endif
    for (idx_t j = 0; j < n; ++j) STORE(Y, base + j * inner, finish(LOAD(X, base + j * inner), m, k));
  }
#endif
}
