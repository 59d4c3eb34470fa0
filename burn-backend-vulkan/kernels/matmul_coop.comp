// C[z] = A[z] x B[z] in f16 on the device's cooperative matrices (GL_NV_cooperative_matrix, HAS_COOPMAT_NV): the
// vulkan plugin's third GEMM, beside burn-gpu/kernels/matmul.kernel's register-blocked and tiled ones, whose
// arguments, batch layout, grid walk, edge checks and epilogue hooks it shares (read that kernel's header).
// Its own file because cooperative matrices have no OpenCL C spelling (docs/decisions.md).
// The workgroup stages a BK-deep slice of A (BM x BK) and of B (BK x BN) in shared memory as f16; SG_M x SG_N
// subgroups each sum WM x WN matrices of CM_M x CM_N in f32 over steps of CM_K; the sums go through shared
// memory to the epilogue hooks. Workgroup: WG_X = SG_M * SG_N * subgroup size.
#ifndef EPILOGUE
#define EPILOGUE(acc, z, row, col) (acc)
#endif
#ifndef EPILOGUE_STORE
#define EPILOGUE_STORE(epi_v, epi_i) STORE(C, epi_i, epi_v)
#endif
#ifndef EPILOGUE_PUSH
#define EPILOGUE_PUSH
#endif

#define SG_TM (WM * CM_M)
#define SG_TN (WN * CM_N)
#define BM (SG_M * SG_TM)
#define BN (SG_N * SG_TN)

// Row-major f16 tiles, A [BM][BK] and B [BK][BN] (strides multiples of 8 elements, as the matrix loads
// want), and each subgroup's f32 sums, SG_TM x SG_TN.
SHARED float16_t As[BM * BK];
SHARED float16_t Bs[BK * BN];
SHARED float Cs[SG_M * SG_N * SG_TM * SG_TN];
#define CM_AB(R, C) fcoopmatNV<16, gl_ScopeSubgroup, R, C>
#define CM_ACC fcoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N>

KERNEL_PARAMS
  PARAM_TENSOR(A)
  PARAM_TENSOR(B)
  PARAM_TENSOR(C)
  PARAM_INDEX(lay)
  PARAM(int64_t, a_rs)
  PARAM(int64_t, a_cs)
  PARAM(int64_t, b_rs)
  PARAM(int64_t, b_cs)
  PARAM(int, size_m)
  PARAM(int, size_n)
  PARAM(int, size_k)
  PARAM(int, batch)
  EPILOGUE_PUSH
KERNEL_MAIN {
  const idx_t ars = idx_t(ARG(a_rs)), acs = idx_t(ARG(a_cs)), brs = idx_t(ARG(b_rs)), bcs = idx_t(ARG(b_cs));
  const int M = ARG(size_m), N = ARG(size_n), K = ARG(size_k);
  const int tid = int(gl_LocalInvocationID.x);
  const int sg = int(gl_SubgroupID), sgm = sg / SG_N, sgn = sg % SG_N;
  const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
  const bool a_k_fast = abs(ARG(a_cs)) <= abs(ARG(a_rs));
  const bool b_n_fast = abs(ARG(b_cs)) <= abs(ARG(b_rs));
  for (int z = int(gl_WorkGroupID.z); z < ARG(batch); z += int(gl_NumWorkGroups.z)) {
    const idx_t a0 = OFFSET(A, idx_t(z));
    const idx_t b0 = OFFSET(B, idx_t(z));
    const idx_t c0 = idx_t(z) * idx_t(M) * idx_t(N);
    for (int tm = int(gl_WorkGroupID.y); tm < tiles_m; tm += int(gl_NumWorkGroups.y)) {
      for (int tn = int(gl_WorkGroupID.x); tn < tiles_n; tn += int(gl_NumWorkGroups.x)) {
        const int row0 = tm * BM, col0 = tn * BN;
        CM_ACC acc[WM * WN];
        UNROLL for (int i = 0; i < WM * WN; ++i) acc[i] = CM_ACC(0.0);
        for (int k0 = 0; k0 < K; k0 += BK) {
          for (int t = tid; t < BM * BK; t += WG_X) {
            const int m = a_k_fast ? t / BK : t % BM;
            const int k = a_k_fast ? t % BK : t / BM;
            const int gm = row0 + m, gk = k0 + k;
            const A_C v = LOAD(A, a0 + idx_t(min(gm, M - 1)) * ars + idx_t(min(gk, K - 1)) * acs);
            As[m * BK + k] = float16_t((gm < M && gk < K) ? v : A_C(0));
          }
          for (int t = tid; t < BK * BN; t += WG_X) {
            const int n = b_n_fast ? t % BN : t / BK;
            const int k = b_n_fast ? t / BN : t % BK;
            const int gn = col0 + n, gk = k0 + k;
            const A_C v = LOAD(B, b0 + idx_t(min(gk, K - 1)) * brs + idx_t(min(gn, N - 1)) * bcs);
            Bs[k * BN + n] = float16_t((gn < N && gk < K) ? v : A_C(0));
          }
          BARRIER();
          UNROLL for (int kk = 0; kk < BK; kk += CM_K) {
            CM_AB(CM_M, CM_K) a[WM];
            CM_AB(CM_K, CM_N) b[WN];
            UNROLL for (int i = 0; i < WM; ++i)
              coopMatLoadNV(a[i], As, uint((sgm * SG_TM + i * CM_M) * BK + kk), uint(BK), false);
            UNROLL for (int j = 0; j < WN; ++j)
              coopMatLoadNV(b[j], Bs, uint(kk * BN + sgn * SG_TN + j * CM_N), uint(BN), false);
            UNROLL for (int i = 0; i < WM; ++i)
              UNROLL for (int j = 0; j < WN; ++j) acc[i * WN + j] = coopMatMulAddNV(a[i], b[j], acc[i * WN + j]);
          }
          BARRIER();
        }
        UNROLL for (int i = 0; i < WM; ++i)
          UNROLL for (int j = 0; j < WN; ++j)
            coopMatStoreNV(acc[i * WN + j], Cs, uint(sg * SG_TM * SG_TN + i * CM_M * SG_TN + j * CM_N), uint(SG_TN),
                           false);
        BARRIER();
        // One store loop, not unrolled, whatever EPILOGUE_ONCE says.
        for (int t = tid; t < BM * BN; t += WG_X) {
          const int r = t / BN, c = t % BN;
          const int row = row0 + r, col = col0 + c;
          const int owner = (r / SG_TM) * SG_N + c / SG_TN;
          if (row < M && col < N) {
            const idx_t ci = c0 + idx_t(row) * idx_t(N) + idx_t(col);
            const A_C v = A_C(EPILOGUE(Cs[owner * SG_TM * SG_TN + (r % SG_TM) * SG_TN + c % SG_TN], z, row, col));
            EPILOGUE_STORE(v, ci);
          }
        }
        BARRIER();
      }
    }
  }
}
