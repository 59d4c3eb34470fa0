// Scaled dot-product attention, flash-attention style, as the cpu backend (burn-backend-cpu/src/ops/
// attention.cpp; semantics in burn-tensor/src/defaults/attention.cpp): softmax(scale * q k^T, masked to -inf)
// v, without ever holding the [Lq, Lk] scores. Q [B, H, Lq, E], K [B, H, Lk, E], V [B, H, Lk, Ev] and the
// bool mask M (true = masked out, broadcast through stride 0) are any views, read through their strides
// (a block of idx_t at pc.strides: batch, head, row and column strides of Q, K, V and M); O is contiguous.
// A workgroup takes WG_X queries of one (b, h), an invocation each, and walks the keys in blocks of KB
// staged in shared memory: the block's scores (causal: key j > query i masked, top-left aligned), its
// max, then an online softmax update (running max m and sum l, the output rescaled by exp(m - m_new)).
// The output is o / l; a row whose keys are all masked has l = 0 and gives NaN, as the cpu.
// The query row and the output accumulators live in registers of D values: value columns beyond D are
// done in further passes over the keys; QGLOBAL (E > D) reads the query and the keys from memory instead.
// Loops over the keys of a block stay loops ([[dont_unroll]]): unrolled KB x D bodies took LLVM minutes to
// compile on lavapipe. Loops over D unroll, so that q and o stay in registers.
#extension GL_EXT_control_flow_attributes : require

#define ACC Q_C

layout(push_constant) uniform Push {
  ADDR Q;
  ADDR K;
  ADDR V;
  ADDR M;
  ADDR O;
  ADDR strides;
  int batch;
  int heads;
  int lq;
  int lk;
  int e;
  int ev;
  int causal;
  int has_mask;
  ACC scale;
} pc;

#ifndef QGLOBAL
SHARED ACC Ks[KB * D];
#endif
SHARED ACC Vs[KB * D];

void main() {
  const int lx = int(gl_LocalInvocationID.x);
  IdxBuf sb = IdxBuf(pc.strides);
  const idx_t qsb = sb.v[0], qsh = sb.v[1], qsl = sb.v[2], qse = sb.v[3];
  const idx_t ksb = sb.v[4], ksh = sb.v[5], ksl = sb.v[6], kse = sb.v[7];
  const idx_t vsb = sb.v[8], vsh = sb.v[9], vsl = sb.v[10], vse = sb.v[11];
  const idx_t msb = sb.v[12], msh = sb.v[13], msl = sb.v[14], msk = sb.v[15];
  const ACC scale = ACC(pc.scale);
  const ACC ninf = -ACC(F32_INF);
  const int qblocks = (pc.lq + WG_X - 1) / WG_X;
  for (int bh = int(gl_WorkGroupID.y); bh < pc.batch * pc.heads; bh += int(gl_NumWorkGroups.y)) {
    const int b = bh / pc.heads, h = bh % pc.heads;
    const idx_t qbase = idx_t(b) * qsb + idx_t(h) * qsh, kbase = idx_t(b) * ksb + idx_t(h) * ksh;
    const idx_t vbase = idx_t(b) * vsb + idx_t(h) * vsh, mbase = idx_t(b) * msb + idx_t(h) * msh;
    for (int qb = int(gl_WorkGroupID.x); qb < qblocks; qb += int(gl_NumWorkGroups.x)) {
      const int q0 = qb * WG_X, rows = min(WG_X, pc.lq - q0);
      const int i = min(q0 + lx, pc.lq - 1);
      const idx_t qrow = qbase + idx_t(i) * qsl;
#ifndef QGLOBAL
      ACC q[D];
      for (int c = 0; c < D; ++c) q[c] = c < pc.e ? ACC(LOAD(Q, qrow + idx_t(c) * qse)) : ACC(0);
#endif
      // Causal: keys past the block's last query are masked for every row.
      const int kend = pc.causal != 0 ? min(pc.lk, q0 + rows) : pc.lk;
      for (int c0 = 0; c0 < pc.ev; c0 += D) {
        const int cw = min(D, pc.ev - c0);
        ACC m = ninf, l = ACC(0);
        ACC o[D];
        for (int c = 0; c < D; ++c) o[c] = ACC(0);
        for (int j0 = 0; j0 < kend; j0 += KB) {
          const int cols = min(KB, kend - j0);
#ifndef QGLOBAL
          for (int t = lx; t < KB * pc.e; t += WG_X) {
            const int jj = t / pc.e, c = t % pc.e;
            ACC v = ACC(0);
            if (jj < cols) v = ACC(LOAD(K, kbase + idx_t(j0 + jj) * ksl + idx_t(c) * kse));
            Ks[jj * D + c] = v;
          }
#endif
          for (int t = lx; t < KB * cw; t += WG_X) {
            const int jj = t / cw, c = t % cw;
            ACC v = ACC(0);
            if (jj < cols) v = ACC(LOAD(V, vbase + idx_t(j0 + jj) * vsl + idx_t(c0 + c) * vse));
            Vs[jj * D + c] = v;
          }
          BARRIER();
          ACC s[KB];
          ACC bmax = ninf;
          [[dont_unroll]] for (int jj = 0; jj < KB; ++jj) {
            ACC sc = ninf;
            const int j = j0 + jj;
            if (jj < cols && !(pc.causal != 0 && j > i) &&
                !(pc.has_mask != 0 && uint(LOAD(M, mbase + idx_t(i) * msl + idx_t(j) * msk)) != 0u)) {
              ACC dot = ACC(0);
#ifdef QGLOBAL
              for (int c = 0; c < pc.e; ++c)
                dot += ACC(LOAD(Q, qrow + idx_t(c) * qse)) * ACC(LOAD(K, kbase + idx_t(j) * ksl + idx_t(c) * kse));
#else
              for (int c = 0; c < D; ++c)  // a constant trip count, so q stays in registers
                if (c < pc.e) dot += q[c] * Ks[jj * D + c];
#endif
              sc = scale * dot;
            }
            s[jj] = sc;
            bmax = bmax > sc ? bmax : sc;
          }
          if (bmax != ninf) {  // else every key of the block is masked for this row: nothing changes
            const ACC mnew = m > bmax ? m : bmax;
            const ACC corr = m == ninf ? ACC(0) : b_exp(m - mnew);
            ACC sum = ACC(0);
            [[dont_unroll]] for (int jj = 0; jj < KB; ++jj) {
              s[jj] = s[jj] == ninf ? ACC(0) : b_exp(s[jj] - mnew);
              sum += s[jj];
            }
            l = l * corr + sum;
            m = mnew;
            for (int c = 0; c < D; ++c) o[c] *= corr;
            [[dont_unroll]] for (int jj = 0; jj < KB; ++jj) {
              const ACC p = s[jj];
              for (int c = 0; c < D; ++c)
                if (c < cw) o[c] += p * Vs[jj * D + c];
            }
          }
          BARRIER();
        }
        if (lx < rows) {
          // A row with every key masked has l = 0: NaN, as softmax over all -inf in the reference math.
          const ACC inv = l > ACC(0) ? ACC(1) / l : ACC(F32_NAN);
          const idx_t orow = ((idx_t(b) * idx_t(pc.heads) + idx_t(h)) * idx_t(pc.lq) + idx_t(q0 + lx)) * idx_t(pc.ev);
          for (int c = 0; c < D; ++c)
            if (c < cw) STORE(O, orow + idx_t(c0 + c), o[c] * inv);
        }
      }
    }
  }
}
