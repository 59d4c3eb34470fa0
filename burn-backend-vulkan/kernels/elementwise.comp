// Y[i] = OP(A[i]) or OP(A[i], B[i]) or OP(A[i], B[i], C[i]) (ARITY 1-3) over broadcast views A, B, C into a
// contiguous Y; OP is an expression of a, b, c (compute types) and s0, s1 (the op's scalars, decoded from
// bits by SCALAR0/SCALAR1). Faulting ops (integer division) call raise_fault with pc.tag.
layout(push_constant) uniform Push {
  ADDR A;
  ADDR B;
  ADDR C;
  ADDR Y;
  ADDR faults;
  int64_t n;
  uint64_t s0_bits;
  uint64_t s1_bits;
  ADDR lay;
  uint tag;
} pc;

#ifndef SCALAR0
#define SCALAR0(bits) 0
#endif
#ifndef SCALAR1
#define SCALAR1(bits) 0
#endif
#ifndef PREAMBLE
#define PREAMBLE
#endif
PREAMBLE

void main() {
  const S_C s0 = S_C(SCALAR0(pc.s0_bits));
  const S_C s1 = S_C(SCALAR1(pc.s1_bits));
  for (idx_t i = gid(); i < idx_t(pc.n); i += gstride()) {
    const A_C a = LOAD(A, OFFSET(A, i));
#if ARITY >= 2
    const B_C b = LOAD(B, OFFSET(B, i));
#endif
#if ARITY >= 3
    const C_C c = LOAD(C, OFFSET(C, i));
#endif
    STORE(Y, i, OP);
  }
}
