// Sorting lines (sort, argsort, topk) by (value, original index): equal values keep their order (the
// sort is stable) and NaN sorts as the largest value, as in PyTorch. Line j of X starts at OFFSET(X, j)
// (its element p is p * xstride further); results go to lines of Y and YI laid out alike (the first
// `keep` positions), or to scratch lines of n keys (S, T) and indices (SI, TI), line j at j * n.
//   BITONIC: a workgroup sorts `used` (<= SORT_CAP) positions in shared memory with a bitonic network:
//   blocks of `seg` = 2^m positions of a line (several short lines, or one block of a long line; padding
//   past n sorts last), into sorted runs of seg.
//   RUNS: an invocation sorts `run` consecutive positions of a line by insertion (CPU-type devices,
//   where a workgroup's barriers cost more than they save).
//   MERGE: sorted runs of `run` positions in S/SI merged pairwise into runs of 2 run in T/TI (or the
//   outputs): an invocation per MERGE_OUT output positions, which finds where it starts on the merge
//   path by binary search, so no pass has barriers and every pass is O(n).
layout(push_constant) uniform Push {
  ADDR X;    // the tensor
  ADDR Y;    // sorted values (0: not wanted)
  ADDR YI;   // their indices (I64)
  ADDR S;    // scratch keys and indices read by MERGE, written by BITONIC and RUNS
  ADDR SI;
  ADDR T;    // scratch keys and indices written by MERGE
  ADDR TI;
  ADDR lay;  // the lines' starts over X and Y
  int64_t n;
  int64_t xstride;
  int64_t ystride;
  int64_t lines;
  int64_t keep;
  uint seg;    // BITONIC: positions per block (a power of two)
  uint used;   // BITONIC: positions per workgroup (a power of two, a multiple of seg)
  uint run;    // RUNS: positions per invocation; MERGE: the length of the runs merged
  uint units;  // work items per line: BITONIC blocks, RUNS runs, MERGE output ranges
  uint flags;  // 1: descending, 2: write the outputs (else the scratch)
} pc;

#define DESCENDING ((pc.flags & 1u) != 0u)
#define TO_OUTPUT ((pc.flags & 2u) != 0u)
#define MERGE_OUT 256u
#define RUN_MAX 32u

// a's value sorts before b's (NaN is the largest).
bool key_before(X_C a, X_C b) {
  if (DESCENDING) return a > b || (b_isnan(a) && !b_isnan(b));
  return a < b || (b_isnan(b) && !b_isnan(a));
}

// (a, ai) sorts before (b, bi): a strict total order (indices are distinct), padding (>= n) last.
bool before(X_C a, int ai, X_C b, int bi) {
  const int n = int(pc.n);
  if (ai >= n || bi >= n) return bi >= n && (ai < n || ai < bi);
  if (key_before(a, b)) return true;
  if (key_before(b, a)) return false;
  return ai < bi;
}

// Position p of line `line` goes to the outputs (the first `keep`) or to the scratch line.
void put(idx_t line, idx_t p, X_C key, int idx) {
  if (!TO_OUTPUT) {
    STORE(S, line * idx_t(pc.n) + p, key);
    STORE(SI, line * idx_t(pc.n) + p, idx);
  } else if (p < idx_t(pc.keep)) {
    const idx_t at = OFFSET(Y, line) + p * idx_t(pc.ystride);
    if (pc.Y != 0ul) STORE(Y, at, key);
    STORE(YI, at, int64_t(idx));
  }
}

X_C element(idx_t line, idx_t p) { return LOAD(X, OFFSET(X, line) + p * idx_t(pc.xstride)); }

#if defined(BITONIC)
SHARED X_C s_key[SORT_CAP];
SHARED int s_idx[SORT_CAP];

void main() {
  const uint t = gl_LocalInvocationID.x;
  const uint seg = pc.seg, used = pc.used, seg_bits = uint(findLSB(seg));
  const idx_t per_line = idx_t(pc.units), blocks = idx_t(pc.lines) * per_line;
  const uint group_bits = uint(findLSB(used)) - seg_bits;  // blocks of a workgroup
  const idx_t first = idx_t(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
  const idx_t step = idx_t(gl_NumWorkGroups.x * gl_NumWorkGroups.y);
  const idx_t n = idx_t(pc.n);
  // The loop bound is the same for the whole workgroup, so the barriers inside are uniform.
  for (idx_t g = first; (g << group_bits) < blocks; g += step) {
    for (uint e = t; e < used; e += uint(WG_X)) {
      const idx_t blk = (g << group_bits) + idx_t(e >> seg_bits);
      const idx_t p = (blk % per_line) * idx_t(seg) + idx_t(e & (seg - 1u));
      s_key[e] = blk < blocks && p < n ? element(blk / per_line, p) : X_C(0);
      s_idx[e] = int(p);  // p >= n: padding (also in blocks past the last line, never stored)
    }
    BARRIER();
    // Merges of size k = 2, 4, ..., seg; below seg every other run of k sorts descending.
    for (uint k = 2u; k <= seg; k <<= 1) {
      for (uint j = k >> 1; j > 0u; j >>= 1) {
        for (uint q = t; q < used >> 1; q += uint(WG_X)) {
          const uint e = ((q & ~(j - 1u)) << 1) | (q & (j - 1u));  // the pair (e, e + j)
          const bool up = k == seg || (e & k) == 0u;
          const X_C av = s_key[e], bv = s_key[e + j];
          const int ai = s_idx[e], bi = s_idx[e + j];
          if (up ? before(bv, bi, av, ai) : before(av, ai, bv, bi)) {
            s_key[e] = bv;
            s_key[e + j] = av;
            s_idx[e] = bi;
            s_idx[e + j] = ai;
          }
        }
        BARRIER();
      }
    }
    for (uint e = t; e < used; e += uint(WG_X)) {
      const idx_t blk = (g << group_bits) + idx_t(e >> seg_bits);
      const idx_t p = (blk % per_line) * idx_t(seg) + idx_t(e & (seg - 1u));
      if (blk < blocks && p < n) put(blk / per_line, p, s_key[e], s_idx[e]);
    }
    BARRIER();  // the shared arrays are read before the next group's blocks overwrite them
  }
}
#elif defined(RUNS)
void main() {
  const idx_t n = idx_t(pc.n), per_line = idx_t(pc.units), run = idx_t(pc.run);
  for (idx_t q = gid(); q < idx_t(pc.lines) * per_line; q += gstride()) {
    const idx_t line = q / per_line, p0 = (q % per_line) * run;
    const int len = int(min(run, n - p0));
    X_C key[RUN_MAX];
    int idx[RUN_MAX];
    for (int i = 0; i < len; ++i) {
      const X_C v = element(line, p0 + idx_t(i));
      int at = i;
      for (; at > 0 && before(v, int(p0) + i, key[at - 1], idx[at - 1]); --at) {
        key[at] = key[at - 1];
        idx[at] = idx[at - 1];
      }
      key[at] = v;
      idx[at] = int(p0) + i;
    }
    for (int i = 0; i < len; ++i) put(line, p0 + idx_t(i), key[i], idx[i]);
  }
}
#else
void main() {
  const idx_t n = idx_t(pc.n), per_line = idx_t(pc.units), run = idx_t(pc.run);
  const idx_t span = min(idx_t(MERGE_OUT), 2 * run);  // divides 2 run: a range stays in one pair
  for (idx_t q = gid(); q < idx_t(pc.lines) * per_line; q += gstride()) {
    const idx_t line = q / per_line, o0 = (q % per_line) * span;
    if (TO_OUTPUT && o0 >= idx_t(pc.keep)) continue;
    // The pair of runs A = [a0, a0 + la) and B = [a0 + la, a0 + la + lb) holding output position o0.
    const idx_t a0 = o0 - o0 % (2 * run), la = min(run, n - a0), lb = max(idx_t(0), min(run, n - a0 - la));
    const idx_t base = line * n + a0;
    // Of the first o = o0 - a0 merged elements, i come from A: binary search on the merge path.
    const idx_t o = o0 - a0;
    idx_t lo = max(idx_t(0), o - lb), hi = min(o, la);
    while (lo < hi) {
      const idx_t mid = (lo + hi) / 2;
      if (before(LOAD(S, base + mid), LOAD(SI, base + mid), LOAD(S, base + la + o - mid - 1),
                 LOAD(SI, base + la + o - mid - 1)))
        lo = mid + 1;
      else
        hi = mid;
    }
    // The heads of A and B stay in registers: one load per merged element.
    idx_t i = lo, j = o - lo;
    X_C ak = X_C(0), bk = X_C(0);
    int ai = 0, bi = 0;
    if (i < la) ak = LOAD(S, base + i), ai = LOAD(SI, base + i);
    if (j < lb) bk = LOAD(S, base + la + j), bi = LOAD(SI, base + la + j);
    const idx_t o1 = min(o + span, la + lb);
    for (idx_t k = o; k < o1; ++k) {
      X_C key;
      int idx;
      if (j >= lb || (i < la && before(ak, ai, bk, bi))) {
        key = ak, idx = ai;
        if (++i < la) ak = LOAD(S, base + i), ai = LOAD(SI, base + i);
      } else {
        key = bk, idx = bi;
        if (++j < lb) bk = LOAD(S, base + la + j), bi = LOAD(SI, base + la + j);
      }
      if (!TO_OUTPUT) {
        STORE(T, base + k, key);
        STORE(TI, base + k, idx);
      } else {
        put(line, a0 + k, key, idx);
      }
    }
  }
}
#endif
