// The GLSL side of burn's kernel dialect, prepended to every kernel after the host's defines.
// Tensors are passed as 64-bit device addresses (push constants); each operand X of a kernel arrives as
// defines X_T (storage type), X_C (compute type: float for f16, else X_T) and X_BUF (its buffer type),
// so kernel bodies read LOAD(X, i) and write STORE(X, i, v) whatever the dtype.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_control_flow_attributes : require
#ifdef HAS_F16
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif
#if defined(HAS_F16) || defined(HAS_BF16)
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_16bit_storage : require
#endif
#ifdef HAS_COOPMAT_NV
// Cooperative matrices (the f16 GEMM, kernels/matmul_coop.comp): gl_ScopeSubgroup comes from the
// memory-scope extension, gl_SubgroupID from subgroup_basic.
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#endif
#ifdef HAS_SUBGROUP_ARITH
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

#ifndef WG_Y
#define WG_Y 1
#endif
#ifndef WG_Z
#define WG_Z 1
#endif
layout(local_size_x = WG_X, local_size_y = WG_Y, local_size_z = WG_Z) in;

// Workgroup shared memory and the workgroup barrier (which also orders shared-memory accesses).
#define SHARED shared
#define BARRIER() barrier()
// Before a loop of constant trip count: unrolled, so arrays it indexes stay in registers.
#define UNROLL [[unroll]]
// Before a loop whose body must stay one copy (a long generated function the driver inlines at each call).
#define NO_UNROLL [[dont_unroll]]
// A variable whose value the compiler computes exactly as written (no x - x = 0, no contraction): a fused
// program's registers, which the eager ops computed in separate kernels.
#define PRECISE precise

// Storage buffers by element type; a pointer is ADDR (a uint64_t device address).
#define ADDR uint64_t
layout(buffer_reference, std430, buffer_reference_align = 4) buffer BufF32 { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer BufI32 { int v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer BufU32 { uint v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer BufI64 { int64_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 1) buffer BufU8 { uint8_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 1) buffer BufI8 { int8_t v[]; };
#ifdef HAS_F64
layout(buffer_reference, std430, buffer_reference_align = 8) buffer BufF64 { double v[]; };
#endif
#ifdef HAS_F16
layout(buffer_reference, std430, buffer_reference_align = 2) buffer BufF16 { float16_t v[]; };
#endif
#ifdef HAS_BF16
// bf16 is stored as its 16 bits and computed as float: widening is exact, narrowing rounds to nearest even.
layout(buffer_reference, std430, buffer_reference_align = 2) buffer BufU16 { uint16_t v[]; };
float b_bf16_to_f32(uint16_t b) { return uintBitsToFloat(uint(b) << 16); }
uint16_t b_f32_to_bf16(float f) {
  const uint u = floatBitsToUint(f);
  if (isnan(f)) return uint16_t((u >> 16) | 0x40u);
  return uint16_t((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
// From any scalar type (an int cast to bf16 goes through float).
#define b_f32_to_bf16f(v) b_f32_to_bf16(float(v))
#endif

// Element i of the `size`-byte elements of buffer type B at address `addr`. GLSL indexes arrays with 32-bit
// ints only, so with 64-bit indices (INDEX64) the element's own address is formed instead.
#ifdef INDEX64
#define AT(B, addr, i, size) B((addr) + uint64_t(i) * uint64_t(size)).v[0]
#else
#define AT(B, addr, i, size) B(addr).v[i]
#endif

// Element access through an operand's defines: X_BUF is its buffer type and ARG(X) its address, X_SIZE its
// element size, X_FROM and X_TO convert between its storage and compute types (constructors, or the bf16
// bit conversions).
#define LOAD(X, i) X##_FROM(AT(X##_BUF, ARG(X), i, X##_SIZE))
#define STORE(X, i, val) AT(X##_BUF, ARG(X), i, X##_SIZE) = X##_TO(val)
// A conversion between scalar types (a constructor in GLSL, a cast in OpenCL C).
#define CVT(T, x) T(x)
// Four 32-bit words (a Philox block): GLSL's uvec4, built by UVEC4 (OpenCL C's uint4 in prelude.clh).
#define UVEC4(a, b, c, d) uvec4(a, b, c, d)
// Bit casts of the scalars kernels receive as 64 bits.
#define b_as_f32(u) uintBitsToFloat(u)
#define b_as_f64(u) uint64BitsToDouble(u)
// abs of any scalar type (OpenCL C spells it fabs for floats).
#define b_abs(x) abs(x)

// A kernel's arguments (burn-gpu/README.md): push constants in declaration order, so the host pushes them
// in that order with std430 alignment. KERNEL_PARAMS opens the list, KERNEL_MAIN closes it and names the
// entry point, and the body reads argument x as ARG(x).
#define KERNEL_PARAMS layout(push_constant) uniform Push {
#define PARAM_TENSOR(X) ADDR X;
#define PARAM_FAULTS(X) ADDR X;
#define PARAM_INDEX(X) ADDR X;
#define PARAM(T, X) T X;
#define KERNEL_MAIN } pc; void main()
#define ARG(x) pc.x

// The fusion code generator's kernels (burn-gpu/src/fused.cpp): their tensors arrive as one argument, a table
// of addresses (push constants stay within 128 bytes whatever the operand count), operand X at entry X_SLOT;
// their scalars as a table of 64-bit words.
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer Addrs { uint64_t v[]; };
#define PARAM_TENSOR_TABLE(T) ADDR T;
#define TABLE_TENSOR(X)
#define TLOAD(X, i) X##_FROM(AT(X##_BUF, Addrs(ARG(io)).v[X##_SLOT], i, X##_SIZE))
#define TSTORE(X, i, val) AT(X##_BUF, Addrs(ARG(io)).v[X##_SLOT], i, X##_SIZE) = X##_TO(val)
#define PARAM_WORDS(X) ADDR X;
#define WORD_AT(X, k) Addrs(ARG(X)).v[k]

// Index arithmetic: 32-bit unless a tensor of the dispatch spans 2^31 elements or more (INDEX64).
#ifdef INDEX64
#define idx_t int64_t
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer IdxBuf { int64_t v[]; };
#else
#define idx_t int
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer IdxBuf { int v[]; };
#endif

// A 1-D grid of any size: the host launches at most maxComputeWorkGroupCount[0] x [1] groups and every
// invocation walks [gid(), n) in steps of gstride().
idx_t gid() {
  return idx_t(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * idx_t(WG_X) + idx_t(gl_LocalInvocationID.x);
}
idx_t gstride() { return idx_t(gl_NumWorkGroups.x) * idx_t(gl_NumWorkGroups.y) * idx_t(WG_X); }
// The same for a grid of workgroups that each take one item (a row, a channel): the workgroup walks
// [group_id(), n) in steps of group_stride(); uniform within the workgroup, so barriers may follow.
idx_t group_id() { return idx_t(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x); }
idx_t group_stride() { return idx_t(gl_NumWorkGroups.x) * idx_t(gl_NumWorkGroups.y); }
// The invocation's index in its workgroup (of WG_X).
uint lid() { return gl_LocalInvocationID.x; }
// A 3-D grid (the GEMM-shaped kernels): the invocation's row in its WG_X x WG_Y workgroup, the workgroup's
// index and the workgroup count along axis a (0, 1, 2).
int lid_y() { return int(gl_LocalInvocationID.y); }
#define group_at(a) int(gl_WorkGroupID[a])
#define groups_at(a) int(gl_NumWorkGroups[a])
// Subgroups, where the host defines HAS_SUBGROUP_ARITH (the device has subgroup arithmetic): the
// invocation's index in its subgroup, the subgroup's index in the workgroup, the workgroup's subgroups.
// The host names the reduction itself (subgroupAdd, ...), as SUBGROUP_OP.
#ifdef HAS_SUBGROUP_ARITH
#define sg_lid() gl_SubgroupInvocationID
#define sg_id() gl_SubgroupID
#define sg_count() gl_NumSubgroups
#endif
// Workgroup arrays: GLSL declares them at file scope, OpenCL C in the kernel's outermost scope, so a kernel
// names its arrays in both places, SHARED_ARRAYS_FILE(SHARED_ARRAY(T, name, size) ...) before KERNEL_PARAMS
// and SHARED_ARRAYS_KERNEL(the same) first in the body; each language keeps one.
#define SHARED_ARRAY(T, name, size) shared T name[size];
#define SHARED_ARRAYS_FILE(decls) decls
#define SHARED_ARRAYS_KERNEL(decls)
// Entry k of the index block argument L (a layout's [shape | strides...]).
#define INDEX_AT(L, k) IdxBuf(ARG(L)).v[k]
// The index block argument L as strided_offset takes it.
#define INDEX_BLOCK(L) IdxBuf(ARG(L))

// The element offset of flat row-major index i of a strided view, from a layout block holding the shape
// (RANK entries) at `shape` and the view's strides (RANK entries) at `strides`, both indices into IdxBuf L.
idx_t strided_offset(IdxBuf L, int shape, int strides, int rank, idx_t i) {
  idx_t off = 0;
  for (int d = rank - 1; d >= 0; --d) {
    const idx_t n = L.v[shape + d];
    const idx_t c = i % n;
    i /= n;
    off += c * L.v[strides + d];
  }
  return off;
}

// Bool results are bytes 0 or 1.
#define BOOL_T uint8_t

// Faults a kernel finds in its data (an index out of range, an integer division by zero) are written to
// the context's fault block, the first one wins; the host raises it at the next read or sync, naming
// the op through `tag`.
layout(buffer_reference, std430, buffer_reference_align = 8) buffer FaultBuf {
  uint code;
  uint tag;
  int64_t value;
  int64_t limit;
};
#define FAULT_INDEX 1u
#define FAULT_DIV_ZERO 2u
void raise_fault(ADDR faults, uint tag, uint code, int64_t value, int64_t limit) {
  FaultBuf f = FaultBuf(faults);
  if (atomicCompSwap(f.code, 0u, code) == 0u) {
    f.tag = tag;
    f.value = value;
    f.limit = limit;
  }
}

#ifndef RANK
#define RANK 1
#endif
// The element offset of operand X for flat index i, by its mode (0 contiguous, 1 broadcast scalar,
// 2 strided): the kernel's arguments hold the layout's address as `lay`.
#define OFFSET(X, i) \
  ((X##_MODE) == 0 ? (i) : (X##_MODE) == 1 ? idx_t(0) : strided_offset(IdxBuf(ARG(lay)), 0, X##_STRIDES, RANK, (i)))
