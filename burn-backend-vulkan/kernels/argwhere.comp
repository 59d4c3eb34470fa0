// argwhere in three passes over tiles of WG_X * PER elements (workgroup g owns tile g, invocation t the
// PER consecutive elements at g * TILE + t * PER, so the order is row-major):
//  COUNT: C[g] = the nonzero elements of tile g;
//  SCAN:  one workgroup turns C[0..tiles) into exclusive offsets and writes the total at C[tiles];
//  WRITE: each nonzero element's coordinates (from the shape in the layout block) go to row
//         C[g] + (nonzeros before it in its tile) of Y, [count, RANK] i64.
// X is read through its layout (DIMS dims, not collapsed, so that the same block gives the coordinates; RANK
// is only defined when X is strided).
// A nonzero float is any value but +-0 (NaN included), as on the cpu backend.
layout(push_constant) uniform Push {
  ADDR X;
  ADDR C;
  ADDR Y;
  int64_t n;
  int64_t tiles;
  ADDR lay;
} pc;

#define TILE (WG_X * PER)
SHARED idx_t partial[WG_X];

// Inclusive scan of `v` over the workgroup (Hillis-Steele); every invocation must call it.
idx_t workgroup_scan(idx_t v) {
  const uint t = gl_LocalInvocationID.x;
  partial[t] = v;
  BARRIER();
  for (uint off = 1u; off < uint(WG_X); off <<= 1u) {
    const idx_t add = t >= off ? partial[t - off] : idx_t(0);
    BARRIER();
    partial[t] += add;
    BARRIER();
  }
  const idx_t r = partial[t];
  BARRIER();
  return r;
}

#if defined(COUNT) || defined(WRITE)
bool nonzero(idx_t i) { return LOAD(X, OFFSET(X, i)) != CVT(X_C, 0); }

// The flat index of this invocation's first element, or -1 for workgroups past the last tile.
idx_t first_element() {
  const idx_t g = idx_t(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
  if (g >= idx_t(pc.tiles)) return idx_t(-1);
  return g * idx_t(TILE) + idx_t(gl_LocalInvocationID.x) * idx_t(PER);
}

idx_t count_mine(idx_t first) {
  idx_t c = 0;
  for (int j = 0; j < PER; ++j) {
    const idx_t i = first + idx_t(j);
    if (i < idx_t(pc.n) && nonzero(i)) ++c;
  }
  return c;
}
#endif

#ifdef COUNT
void main() {
  const idx_t first = first_element();
  if (first < 0) return;  // the whole workgroup: tiles are uniform per workgroup
  const idx_t total = workgroup_scan(count_mine(first));
  if (gl_LocalInvocationID.x == uint(WG_X - 1)) AT(BufI64, pc.C, first / idx_t(TILE), 8) = int64_t(total);
}
#endif

#ifdef SCAN
void main() {
  // Invocation t owns tiles [t * per, min((t + 1) * per, tiles)).
  const idx_t tiles = idx_t(pc.tiles);
  const idx_t per = (tiles + idx_t(WG_X) - 1) / idx_t(WG_X);
  const idx_t b = idx_t(gl_LocalInvocationID.x) * per;
  const idx_t e = min(b + per, tiles);
  idx_t sum = 0;
  for (idx_t i = b; i < e; ++i) sum += idx_t(AT(BufI64, pc.C, i, 8));
  idx_t at = workgroup_scan(sum) - sum;
  for (idx_t i = b; i < e; ++i) {
    const idx_t v = idx_t(AT(BufI64, pc.C, i, 8));
    AT(BufI64, pc.C, i, 8) = int64_t(at);
    at += v;
  }
  if (gl_LocalInvocationID.x == uint(WG_X - 1)) AT(BufI64, pc.C, tiles, 8) = int64_t(at);
}
#endif

#ifdef WRITE
void main() {
  const idx_t first = first_element();
  if (first < 0) return;
  const idx_t mine = count_mine(first);
  idx_t row = idx_t(AT(BufI64, pc.C, first / idx_t(TILE), 8)) + workgroup_scan(mine) - mine;
  if (mine == 0) return;
  IdxBuf L = IdxBuf(pc.lay);
  for (int j = 0; j < PER; ++j) {
    const idx_t i = first + idx_t(j);
    if (i >= idx_t(pc.n) || !nonzero(i)) continue;
    idx_t rem = i;
    for (int d = DIMS - 1; d >= 0; --d) {
      const idx_t s = L.v[d];
      AT(BufI64, pc.Y, row * idx_t(DIMS) + idx_t(d), 8) = int64_t(rem % s);
      rem /= s;
    }
    ++row;
  }
}
#endif
