// Inclusive scans (cumsum, cumprod, cummax, cummin) along lines: line j of X starts at OFFSET(X, j) and
// of the contiguous Y at OFFSET(Y, j), element k is k * xstride (k * ystride) further. Values fold in
// ACC with reduce.comp's defines (LIFT(v) of an element, STEP(a, b)), and every prefix is stored.
//   BLOCKED: a workgroup per (line, block of `chunk` elements), for long lines: each invocation folds its
//   run of chunk / WG_X consecutive elements, the workgroup scans the runs' totals in shared memory,
//   then each run is folded again from its prefix and stored. A block starts from P[j * chunks + b - 1],
//   the inclusive scan of the lines' block totals (reduce.comp's partials), so the work stays O(n).
//   else: an invocation per (line, block), in order, from the same prefixes (CPU-type devices); with
//   one block per line (chunks 1, chunk n) an invocation per line, in order, as the cpu backend.
layout(push_constant) uniform Push {
  ADDR X;
  ADDR Y;
  ADDR P;  // the scanned block totals, [lines x chunks] in ACC (read when chunks > 1)
  ADDR lay;
  int64_t n;  // elements per line
  int64_t xstride;
  int64_t ystride;
  int64_t lines;
  int64_t chunks;  // blocks per line
  int64_t chunk;   // elements per block (BLOCKED: a multiple of WG_X)
} pc;

#ifndef LIFT
#define LIFT(v) ACC(v)
#endif

#ifdef BLOCKED
SHARED ACC s_run[WG_X];

void main() {
  const uint t = gl_LocalInvocationID.x;
  const idx_t n = idx_t(pc.n), chunks = idx_t(pc.chunks), items = idx_t(pc.chunk) / idx_t(WG_X);
  const idx_t xs = idx_t(pc.xstride), ys = idx_t(pc.ystride);
  const idx_t first = idx_t(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
  const idx_t step = idx_t(gl_NumWorkGroups.x * gl_NumWorkGroups.y);
  for (idx_t g = first; g < idx_t(pc.lines) * chunks; g += step) {
    const idx_t j = g / chunks, b = g % chunks;
    const idx_t bx = OFFSET(X, j), by = OFFSET(Y, j);
    const idx_t k0 = b * idx_t(pc.chunk) + idx_t(t) * items, k1 = min(k0 + items, n);
    ACC total = INIT;
    for (idx_t k = k0; k < k1; ++k) total = STEP(total, LIFT(LOAD(X, bx + k * xs)));
    s_run[t] = total;
    BARRIER();
    // Hillis-Steele: after the round of width w, s_run[t] folds the runs (t - 2w, t].
    for (uint w = 1u; w < uint(WG_X); w <<= 1) {
      const ACC before = t >= w ? s_run[t - w] : INIT;
      BARRIER();
      s_run[t] = STEP(before, s_run[t]);
      BARRIER();
    }
    ACC run = b > 0 ? LOAD(P, j * chunks + b - 1) : INIT;
    if (t > 0u) run = STEP(run, s_run[t - 1u]);
    for (idx_t k = k0; k < k1; ++k) {
      run = STEP(run, LIFT(LOAD(X, bx + k * xs)));
      STORE(Y, by + k * ys, run);
    }
    BARRIER();  // s_run is read before the next block's runs overwrite it
  }
}
#else
void main() {
  const idx_t n = idx_t(pc.n), chunks = idx_t(pc.chunks), chunk = idx_t(pc.chunk);
  const idx_t xs = idx_t(pc.xstride), ys = idx_t(pc.ystride);
  for (idx_t g = gid(); g < idx_t(pc.lines) * chunks; g += gstride()) {
    const idx_t j = g / chunks, b = g % chunks;
    const idx_t bx = OFFSET(X, j), by = OFFSET(Y, j);
    ACC run = b > 0 ? LOAD(P, j * chunks + b - 1) : INIT;
    for (idx_t k = b * chunk; k < min(n, (b + 1) * chunk); ++k) {
      run = STEP(run, LIFT(LOAD(X, bx + k * xs)));
      STORE(Y, by + k * ys, run);
    }
  }
}
#endif
