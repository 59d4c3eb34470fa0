// Indexing by an index tensor I (i64 or i32, any view), checked against dim_size: an index outside
// [0, dim_size) is a fault (negative indices too, as on the cpu backend) naming the op through pc.tag.
//  GATHER:  Y[i] = X[OFFSET(X, i) + I[i] * dim_stride] for every element i of the index shape, Y contiguous;
//           X's layout strides are 0 along the gathered dim (gather, select, embedding). Operands X and Y
//           move raw bits (the host gives them an integer dtype of the element's size).
//  SCATTER: one invocation per line along the scattered dim; it walks the line in order,
//           Y[OFFSET(Y, l) + I[..j..] * ostep] += V[..j..], so every output element is owned by one
//           invocation and sums in the cpu backend's order (scatter_add, select_add, embedding_backward).
// NEGATIVE: an index's sign is tested in its own type: lavapipe (Mesa 22.3) found `int64_t(i) < 0` false
// for a negative i32 i loaded from memory, letting negative i32 indices through.
#ifdef GATHER
layout(push_constant) uniform Push {
  ADDR X;
  ADDR I;
  ADDR Y;
  ADDR faults;
  int64_t n;
  int64_t dim_stride;
  int64_t dim_size;
  ADDR lay;
  uint tag;
} pc;

void main() {
  for (idx_t i = gid(); i < idx_t(pc.n); i += gstride()) {
    const I_C raw = LOAD(I, OFFSET(I, i));
    const int64_t k = CVT(int64_t, raw);
    if (raw < CVT(I_C, 0) || k >= pc.dim_size) {  // the sign in I's own type (NEGATIVE above)
      raise_fault(pc.faults, pc.tag, FAULT_INDEX, k, pc.dim_size);
      STORE(Y, i, CVT(Y_C, 0));
      continue;
    }
    STORE(Y, i, LOAD(X, OFFSET(X, i) + CVT(idx_t, k * pc.dim_stride)));
  }
}
#endif

#ifdef SCATTER
layout(push_constant) uniform Push {
  ADDR I;
  ADDR V;
  ADDR Y;
  ADDR faults;
  int64_t lines;
  int64_t j_begin;  // the part [j_begin, j_end) of every line this dispatch adds (DeviceLimits::max_loop)
  int64_t j_end;
  int64_t istep;
  int64_t vstep;
  int64_t ostep;
  int64_t dim_size;
  ADDR lay;
  uint tag;
} pc;

void main() {
  for (idx_t l = gid(); l < idx_t(pc.lines); l += gstride()) {
    const idx_t io = OFFSET(I, l), vo = OFFSET(V, l), yo = OFFSET(Y, l);
    for (int64_t j = pc.j_begin; j < pc.j_end; ++j) {
      const I_C raw = LOAD(I, io + CVT(idx_t, j * pc.istep));
      const int64_t k = CVT(int64_t, raw);
      if (raw < CVT(I_C, 0) || k >= pc.dim_size) {
        raise_fault(pc.faults, pc.tag, FAULT_INDEX, k, pc.dim_size);
        continue;
      }
      const idx_t y = yo + CVT(idx_t, k * pc.ostep);
      STORE(Y, y, LOAD(Y, y) + LOAD(V, vo + CVT(idx_t, j * pc.vstep)));
    }
  }
}
#endif
