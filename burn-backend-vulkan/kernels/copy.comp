// Y[i] = X[i] over any view X into any view Y (contiguous copies, views made contiguous, slice_assign,
// cat), converting X's dtype to Y's: to bool is x != 0, float to int truncates (TO_INT: NaN 0, saturating
// to the i64 range, as the cpu backend).
layout(push_constant) uniform Push {
  ADDR X;
  ADDR Y;
  int64_t n;
  ADDR lay;
} pc;

void main() {
  for (idx_t i = gid(); i < idx_t(pc.n); i += gstride()) {
    const X_C x = LOAD(X, OFFSET(X, i));
#ifdef TO_BOOL
    STORE(Y, OFFSET(Y, i), x != X_C(0) ? 1u : 0u);
#elif defined(TO_INT)
    STORE(Y, OFFSET(Y, i), b_to_int(x));
#else
    STORE(Y, OFFSET(Y, i), x);
#endif
  }
}
