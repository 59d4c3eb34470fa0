// arange: Y[i] = start + i * step (computed in 64-bit wrapping arithmetic, which the host checked fits
// int64) converted to Y's dtype, Y contiguous; bool stores value != 0 (TO_BOOL).
layout(push_constant) uniform Push {
  ADDR Y;
  int64_t n;
  int64_t start;
  int64_t step;
} pc;

void main() {
  for (idx_t i = gid(); i < idx_t(pc.n); i += gstride()) {
    const int64_t v = int64_t(uint64_t(pc.start) + uint64_t(i) * uint64_t(pc.step));
#ifdef TO_BOOL
    STORE(Y, i, v != 0 ? 1u : 0u);
#else
    STORE(Y, i, CVT(Y_C, v));
#endif
  }
}
