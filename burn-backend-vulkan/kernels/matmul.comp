// C[z] = A[z] x B[z] for every flat batch index z: A [M, K] and B [K, N] are any strided views (their row
// and column strides are pushed, so a transposed operand is read in place), C [batch, M, N] is contiguous.
// Sums in A_C: f32 for f16, double for f64, exact wrapping int / int64_t for i32 / i64 (as the cpu backend).
//
// Two variants, chosen by the host from the device profile (src/ops/matmul.cpp):
//  - register-blocked (default): every invocation computes TM x TN outputs, reading A and B directly. For
//    CPU-type devices (lavapipe), where a workgroup is one thread and shared memory is plain memory.
//  - GEMM_TILED: the workgroup stages a BK-deep slice of A (BM x BK) and of B (BK x BN) in shared memory,
//    then every invocation computes its TM x TN outputs from there. For GPUs.
//  - GEMM_COOP (f16 only, HAS_COOPMAT_NV): the same staging, as f16, and the products on the device's
//    cooperative matrices (GL_NV_cooperative_matrix): SG_M x SG_N subgroups, each summing WM x WN
//    matrices of CM_M x CM_N in f32 over steps of CM_K; the sums go through shared memory to the
//    EPILOGUE and the edge checks like the other variants. Workgroup: WG_X = SG_M * SG_N * subgroup size.
// Invocation (lx, ly) owns rows ly + i * WG_Y and columns lx + j * WG_X of its workgroup's BM x BN tile,
// interleaved so that neighbouring invocations read and write neighbouring columns.
// Grid: x walks column tiles, y row tiles, z the batch, each in steps of the grid's size, so any M, N and
// batch fit maxComputeWorkGroupCount. Rows and columns past the edge read a clamped valid element and are
// not stored (no speculative out-of-range load); K = 0 stores zeros. Batch offsets come from the host's
// layout over the broadcast batch dims (Dispatch::layout, operands A and B): OFFSET(A, z) is where A's
// matrix z starts, stride 0 along the dims it broadcasts.
//
// Epilogue hook (for the fusion code generator: matmul + bias + activation in one dispatch): every result
// is stored as EPILOGUE(acc, z, row, col) converted to C's type, with acc the sum (A_C), z the flat batch
// index, row < M, col < N; C's flat index is (z * M + row) * N + col. Default: acc. A generator may also
// define EPILOGUE_PUSH (fields appended to the Push block after its 80 bytes, e.g. `ADDR E0;`) and
// EPILOGUE_PREAMBLE (functions the expression calls), and EPILOGUE_ONCE to store through one loop that is not
// unrolled (one inlined copy of a long epilogue).
#ifndef EPILOGUE
#define EPILOGUE(acc, z, row, col) (acc)
#endif
#ifndef EPILOGUE_PUSH
#define EPILOGUE_PUSH
#endif
#ifndef EPILOGUE_PREAMBLE
#define EPILOGUE_PREAMBLE
#endif

layout(push_constant) uniform Push {
  ADDR A;
  ADDR B;
  ADDR C;
  ADDR lay;      // the batch layout: shape, A's strides, B's strides
  int64_t a_rs;  // A's strides along M and K, in elements (any sign)
  int64_t a_cs;
  int64_t b_rs;  // B's strides along K and N
  int64_t b_cs;
  int M;
  int N;
  int K;
  int batch;
  EPILOGUE_PUSH
} pc;

EPILOGUE_PREAMBLE

#define ACC_T A_C
#ifdef GEMM_COOP
#define SG_TM (WM * CM_M)
#define SG_TN (WN * CM_N)
#define BM (SG_M * SG_TM)
#define BN (SG_N * SG_TN)
#else
#define BM (WG_Y * TM)
#define BN (WG_X * TN)
#endif

#ifdef GEMM_COOP
// Row-major f16 tiles, A [BM][BK] and B [BK][BN] (strides multiples of 8 elements, as the matrix loads
// want), and each subgroup's f32 sums, SG_TM x SG_TN.
SHARED float16_t As[BM * BK];
SHARED float16_t Bs[BK * BN];
SHARED float Cs[SG_M * SG_N * SG_TM * SG_TN];
#define CM_AB(R, C) fcoopmatNV<16, gl_ScopeSubgroup, R, C>
#define CM_ACC fcoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N>

void main() {
  const idx_t ars = idx_t(pc.a_rs), acs = idx_t(pc.a_cs), brs = idx_t(pc.b_rs), bcs = idx_t(pc.b_cs);
  const int tid = int(gl_LocalInvocationID.x);
  const int sg = int(gl_SubgroupID), sgm = sg / SG_N, sgn = sg % SG_N;
  const int tiles_m = (pc.M + BM - 1) / BM, tiles_n = (pc.N + BN - 1) / BN;
  const bool a_k_fast = abs(pc.a_cs) <= abs(pc.a_rs);
  const bool b_n_fast = abs(pc.b_cs) <= abs(pc.b_rs);
  for (int z = int(gl_WorkGroupID.z); z < pc.batch; z += int(gl_NumWorkGroups.z)) {
    const idx_t a0 = OFFSET(A, idx_t(z));
    const idx_t b0 = OFFSET(B, idx_t(z));
    const idx_t c0 = idx_t(z) * idx_t(pc.M) * idx_t(pc.N);
    for (int tm = int(gl_WorkGroupID.y); tm < tiles_m; tm += int(gl_NumWorkGroups.y)) {
      for (int tn = int(gl_WorkGroupID.x); tn < tiles_n; tn += int(gl_NumWorkGroups.x)) {
        const int row0 = tm * BM, col0 = tn * BN;
        CM_ACC acc[WM * WN];
        UNROLL for (int i = 0; i < WM * WN; ++i) acc[i] = CM_ACC(0.0);
        for (int k0 = 0; k0 < pc.K; k0 += BK) {
          for (int t = tid; t < BM * BK; t += WG_X) {
            const int m = a_k_fast ? t / BK : t % BM;
            const int k = a_k_fast ? t % BK : t / BM;
            const int gm = row0 + m, gk = k0 + k;
            const A_C v = LOAD(A, a0 + idx_t(min(gm, pc.M - 1)) * ars + idx_t(min(gk, pc.K - 1)) * acs);
            As[m * BK + k] = float16_t((gm < pc.M && gk < pc.K) ? v : A_C(0));
          }
          for (int t = tid; t < BK * BN; t += WG_X) {
            const int n = b_n_fast ? t % BN : t / BK;
            const int k = b_n_fast ? t / BN : t % BK;
            const int gn = col0 + n, gk = k0 + k;
            const A_C v = LOAD(B, b0 + idx_t(min(gk, pc.K - 1)) * brs + idx_t(min(gn, pc.N - 1)) * bcs);
            Bs[k * BN + n] = float16_t((gn < pc.N && gk < pc.K) ? v : A_C(0));
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
        for (int t = tid; t < BM * BN; t += WG_X) {
          const int r = t / BN, c = t % BN;
          const int row = row0 + r, col = col0 + c;
          const int owner = (r / SG_TM) * SG_N + c / SG_TN;
          if (row < pc.M && col < pc.N)
            STORE(C, c0 + idx_t(row) * idx_t(pc.N) + idx_t(col),
                  EPILOGUE(Cs[owner * SG_TM * SG_TN + (r % SG_TM) * SG_TN + c % SG_TN], z, row, col));
        }
        BARRIER();
      }
    }
  }
}
#else
#ifdef GEMM_TILED
// K-major tiles, As[k][m] and Bs[k][n], so the inner loop reads along m and n; one element of padding per
// row, so that staging along K (a row-major A, a transposed B) does not put a warp's stores on one bank.
#define AS_LD (BM + 1)
#define BS_LD (BN + 1)
SHARED ACC_T As[BK * AS_LD];
SHARED ACC_T Bs[BK * BS_LD];
#endif

void main() {
  const idx_t ars = idx_t(pc.a_rs), acs = idx_t(pc.a_cs), brs = idx_t(pc.b_rs), bcs = idx_t(pc.b_cs);
  const int lx = int(gl_LocalInvocationID.x), ly = int(gl_LocalInvocationID.y);
  const int tiles_m = (pc.M + BM - 1) / BM, tiles_n = (pc.N + BN - 1) / BN;
#ifdef GEMM_TILED
  const int tid = ly * WG_X + lx;
  // Staging walks each operand along its smaller stride, so neighbouring invocations load neighbours.
  const bool a_k_fast = abs(pc.a_cs) <= abs(pc.a_rs);
  const bool b_n_fast = abs(pc.b_cs) <= abs(pc.b_rs);
#endif
  for (int z = int(gl_WorkGroupID.z); z < pc.batch; z += int(gl_NumWorkGroups.z)) {
    const idx_t a0 = OFFSET(A, idx_t(z));
    const idx_t b0 = OFFSET(B, idx_t(z));
    const idx_t c0 = idx_t(z) * idx_t(pc.M) * idx_t(pc.N);
    for (int tm = int(gl_WorkGroupID.y); tm < tiles_m; tm += int(gl_NumWorkGroups.y)) {
      for (int tn = int(gl_WorkGroupID.x); tn < tiles_n; tn += int(gl_NumWorkGroups.x)) {
        const int row0 = tm * BM, col0 = tn * BN;
        ACC_T acc[TM * TN];
        UNROLL for (int i = 0; i < TM * TN; ++i) acc[i] = ACC_T(0);
#ifdef GEMM_TILED
        for (int k0 = 0; k0 < pc.K; k0 += BK) {
          for (int t = tid; t < BM * BK; t += WG_X * WG_Y) {
            const int m = a_k_fast ? t / BK : t % BM;
            const int k = a_k_fast ? t % BK : t / BM;
            const int gm = row0 + m, gk = k0 + k;
            const ACC_T v = LOAD(A, a0 + idx_t(min(gm, pc.M - 1)) * ars + idx_t(min(gk, pc.K - 1)) * acs);
            As[k * AS_LD + m] = (gm < pc.M && gk < pc.K) ? v : ACC_T(0);
          }
          for (int t = tid; t < BK * BN; t += WG_X * WG_Y) {
            const int n = b_n_fast ? t % BN : t / BK;
            const int k = b_n_fast ? t / BN : t % BK;
            const int gn = col0 + n, gk = k0 + k;
            const ACC_T v = LOAD(B, b0 + idx_t(min(gk, pc.K - 1)) * brs + idx_t(min(gn, pc.N - 1)) * bcs);
            Bs[k * BS_LD + n] = (gn < pc.N && gk < pc.K) ? v : ACC_T(0);
          }
          BARRIER();
          for (int kk = 0; kk < BK; ++kk) {
            ACC_T a[TM], b[TN];
            UNROLL for (int i = 0; i < TM; ++i) a[i] = As[kk * AS_LD + ly + i * WG_Y];
            UNROLL for (int j = 0; j < TN; ++j) b[j] = Bs[kk * BS_LD + lx + j * WG_X];
            UNROLL for (int i = 0; i < TM; ++i)
              UNROLL for (int j = 0; j < TN; ++j) acc[i * TN + j] += a[i] * b[j];
          }
          BARRIER();
        }
#else
        idx_t arow[TM], bcol[TN];
        UNROLL for (int i = 0; i < TM; ++i) arow[i] = a0 + idx_t(min(row0 + ly + i * WG_Y, pc.M - 1)) * ars;
        UNROLL for (int j = 0; j < TN; ++j) bcol[j] = b0 + idx_t(min(col0 + lx + j * WG_X, pc.N - 1)) * bcs;
        for (int k = 0; k < pc.K; ++k) {
          ACC_T a[TM], b[TN];
          UNROLL for (int i = 0; i < TM; ++i) a[i] = LOAD(A, arow[i] + idx_t(k) * acs);
          UNROLL for (int j = 0; j < TN; ++j) b[j] = LOAD(B, bcol[j] + idx_t(k) * brs);
          UNROLL for (int i = 0; i < TM; ++i)
            UNROLL for (int j = 0; j < TN; ++j) acc[i * TN + j] += a[i] * b[j];
        }
#endif
#ifdef EPILOGUE_ONCE
        // A generated epilogue is one function called in a loop that is not unrolled: the driver inlines
        // every call, and TM x TN copies of a long epilogue take lavapipe minutes to compile.
        NO_UNROLL for (int e = 0; e < TM * TN; ++e) {
          const int row = row0 + ly + (e / TN) * WG_Y, col = col0 + lx + (e % TN) * WG_X;
          if (row < pc.M && col < pc.N)
            STORE(C, c0 + idx_t(row) * idx_t(pc.N) + idx_t(col), EPILOGUE(acc[e], z, row, col));
        }
#else
        UNROLL for (int i = 0; i < TM; ++i) {
          const int row = row0 + ly + i * WG_Y;
          UNROLL for (int j = 0; j < TN; ++j) {
            const int col = col0 + lx + j * WG_X;
            if (row < pc.M && col < pc.N)
              STORE(C, c0 + idx_t(row) * idx_t(pc.N) + idx_t(col), EPILOGUE(acc[i * TN + j], z, row, col));
          }
        }
#endif
      }
    }
  }
}
#endif  // GEMM_COOP
