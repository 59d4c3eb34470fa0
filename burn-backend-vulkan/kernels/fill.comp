// Y[i] = the scalar (given as bits: SCALAR decodes pc.bits into Y_C) for every element of a contiguous Y.
layout(push_constant) uniform Push {
  ADDR Y;
  int64_t n;
  uint64_t bits;
} pc;

void main() {
  const Y_C v = SCALAR(pc.bits);
  for (idx_t i = gid(); i < idx_t(pc.n); i += gstride()) STORE(Y, i, v);
}
