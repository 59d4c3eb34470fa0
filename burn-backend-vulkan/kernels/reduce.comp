// One pass of a reduction along a line: every output j (its line starts at OFFSET(X, j), element k at
// ROFF(k) from there) folds the elements [c * chunk, (c + 1) * chunk) of its line, chunk c, into a
// state; the last pass (LAST, one chunk) finishes it into Y, other passes write partial states at
// j * chunks + c for the next pass, whose input lines are those partials (not FIRST).
//   ROW: a workgroup per (output, chunk), its invocations striding the chunk, then a tree in shared
//        memory (a subgroup op first where SUBGROUP_OP is given); for long contiguous lines on GPUs.
//   else: an invocation per (output, chunk), folding its chunk in order; for short or strided lines,
//        and every line on CPU-type devices.
// State kinds: plain (one accumulator ACC: sum, mean, prod, max, min, any, all: LIFT(v) turns an input
// element into ACC, STEP(a, b) merges two ACCs, FINISH(a) gives the result), KIND_ARG (value and I64
// index: argmax/argmin, first index on ties, NaN wins as in PyTorch; BETTER(v, w) is the strict order)
// and KIND_VAR (count, mean, M2: Welford per element, Chan's formula to merge; var).
layout(push_constant) uniform Push {
  ADDR X;   // input values (FIRST: the tensor view; else the partial values or means)
  ADDR X2;  // later passes: partial indices (arg) or M2 (var)
  ADDR X3;  // later passes: partial counts (var)
  ADDR Y;   // LAST: the result (arg: the values, 0 when not wanted); else the partial values or means
  ADDR Y2;  // arg: the indices (LAST) or partial indices; var: partial M2
  ADDR Y3;  // var: partial counts
  ADDR lay;  // the outputs' layout over X (OFFSET)
  ADDR red;  // the reduced dims' layout over X when RED_RANK > 1
  int64_t n;           // elements of a line in this pass
  int64_t total;       // elements of a line of the tensor (mean's divisor, var)
  int64_t rstride;     // the line's stride when RED_RANK == 1
  int64_t groups;      // outputs * chunks
  int64_t chunks;      // chunks per line
  int64_t chunk;       // elements per chunk
  int64_t correction;  // var: the divisor is max(0, total - correction)
} pc;

#if RED_RANK > 1
#define ROFF(k) strided_offset(IdxBuf(pc.red), 0, RED_RANK, RED_RANK, (k))
#else
#define ROFF(k) ((k) * idx_t(pc.rstride))
#endif

#ifndef LIFT
#define LIFT(v) ACC(v)
#endif

// ---- the state of a fold, per kind ----
#if defined(KIND_ARG)
struct State {
  ACC v;
  int64_t i;
};
State st_init() { return State(INIT, 0x7fffffffffffffffl); }
// a wins over b: strictly better, or equal (both NaN included) with the lower index.
bool arg_wins(ACC av, int64_t ai, ACC bv, int64_t bi) {
  if (BETTER(av, bv)) return true;
  if (BETTER(bv, av)) return false;
  return ai < bi;
}
State st_merge(State a, State b) { return arg_wins(b.v, b.i, a.v, a.i) ? b : a; }
#ifdef FIRST
State st_load(idx_t pos, idx_t k) { return State(LOAD(X, pos), int64_t(k)); }
#else
State st_load(idx_t pos, idx_t k) { return State(LOAD(X, pos), LOAD(X2, pos)); }
#endif
#elif defined(KIND_VAR)
struct State {
  ACC n;
  ACC mean;
  ACC m2;
};
State st_init() { return State(ACC(0), ACC(0), ACC(0)); }
State st_merge(State a, State b) {
  const ACC n = a.n + b.n;
  if (b.n == ACC(0)) return a;
  if (a.n == ACC(0)) return b;
  const ACC d = b.mean - a.mean;
  return State(n, a.mean + d * (b.n / n), a.m2 + b.m2 + d * d * (a.n * b.n / n));
}
#ifdef FIRST
State st_load(idx_t pos, idx_t k) { return State(ACC(1), ACC(LOAD(X, pos)), ACC(0)); }
#else
State st_load(idx_t pos, idx_t k) { return State(LOAD(X3, pos), LOAD(X, pos), LOAD(X2, pos)); }
#endif
#else
struct State {
  ACC a;
};
State st_init() { return State(INIT); }
State st_merge(State a, State b) { return State(STEP(a.a, b.a)); }
#ifdef FIRST
State st_load(idx_t pos, idx_t k) { return State(LIFT(LOAD(X, pos))); }
#else
State st_load(idx_t pos, idx_t k) { return State(LOAD(X, pos)); }
#endif
#endif

// Folds one element (Welford's update for var: exact in order, no cancellation).
State st_fold(State s, idx_t pos, idx_t k) {
#if defined(KIND_VAR) && defined(FIRST)
  const ACC v = ACC(LOAD(X, pos));
  const ACC n = s.n + ACC(1);
  const ACC d = v - s.mean;
  const ACC mean = s.mean + d / n;
  return State(n, mean, s.m2 + d * (v - mean));
#else
  return st_merge(s, st_load(pos, k));
#endif
}

// Writes output j (LAST) or partial g.
void st_store(State s, idx_t j, idx_t g) {
#ifdef LAST
#if defined(KIND_ARG)
  if (pc.Y != 0ul) STORE(Y, j, s.v);
  STORE(Y2, j, s.i);
#elif defined(KIND_VAR)
  STORE(Y, j, s.m2 / ACC(max(pc.total - pc.correction, 0l)));
#else
  const ACC a = s.a;
  STORE(Y, j, FINISH(a));
#endif
#else
#if defined(KIND_ARG)
  STORE(Y, g, s.v);
  STORE(Y2, g, s.i);
#elif defined(KIND_VAR)
  STORE(Y, g, s.mean);
  STORE(Y2, g, s.m2);
  STORE(Y3, g, s.n);
#else
  STORE(Y, g, s.a);
#endif
#endif
}

#ifdef ROW
SHARED State s_st[WG_X];

// The workgroup's states merged into s_st[0].
void tree(State s) {
  const uint t = gl_LocalInvocationID.x;
#ifdef SUBGROUP_OP
  const ACC a = SUBGROUP_OP(s.a);
  if (gl_SubgroupInvocationID == 0u) s_st[gl_SubgroupID] = State(a);
  BARRIER();
  for (uint w = gl_NumSubgroups >> 1; w > 0u; w >>= 1) {
    if (t < w) s_st[t] = st_merge(s_st[t], s_st[t + w]);
    BARRIER();
  }
#else
  s_st[t] = s;
  BARRIER();
  for (uint w = WG_X >> 1; w > 0u; w >>= 1) {
    if (t < w) s_st[t] = st_merge(s_st[t], s_st[t + w]);
    BARRIER();
  }
#endif
}

void main() {
  const idx_t t = idx_t(gl_LocalInvocationID.x);
  const idx_t n = idx_t(pc.n), chunks = idx_t(pc.chunks), chunk = idx_t(pc.chunk);
  const idx_t first = idx_t(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
  const idx_t step = idx_t(gl_NumWorkGroups.x * gl_NumWorkGroups.y);
  // The loop bound is the same for the whole workgroup, so the barriers inside are uniform.
  for (idx_t g = first; g < idx_t(pc.groups); g += step) {
    const idx_t j = g / chunks, k0 = (g % chunks) * chunk;
    const idx_t k1 = min(k0 + chunk, n);
    const idx_t base = OFFSET(X, j);
    State s = st_init();
    for (idx_t k = k0 + t; k < k1; k += idx_t(WG_X)) s = st_fold(s, base + ROFF(k), k);
    tree(s);
    if (t == 0) st_store(s_st[0], j, g);
    BARRIER();  // s_st[0] is read before the next group's tree overwrites it
  }
}
#else
void main() {
  const idx_t n = idx_t(pc.n), chunks = idx_t(pc.chunks), chunk = idx_t(pc.chunk);
  for (idx_t g = gid(); g < idx_t(pc.groups); g += gstride()) {
    const idx_t j = g / chunks, k0 = (g % chunks) * chunk;
    const idx_t k1 = min(k0 + chunk, n);
    const idx_t base = OFFSET(X, j);
    State s = st_init();
    for (idx_t k = k0; k < k1; ++k) s = st_fold(s, base + ROFF(k), k);
    st_store(s, j, g);
  }
}
#endif
