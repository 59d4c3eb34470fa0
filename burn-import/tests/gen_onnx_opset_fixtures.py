# Makes burn-import/tests/fixtures/onnx/opsets/: one-node (or few-node) models at opsets 18 to 22,
# laid out as the ONNX backend test cases (model.onnx, test_data_set_0/input_N.pb and output_N.pb), with
# the outputs computed by ONNX Runtime (npm onnxruntime-node, which runs opset 22) through
# run_ort_fixtures.mjs. Debian's onnx (1.12) knows schemas only to opset 17, so the models are built with
# its helper and not checked. Run with /usr/bin/python3 after
#   cd bench/onnxruntime && ONNXRUNTIME_NODE_INSTALL=skip npm install
# burn_import_onnx_backend_test runs every case (OnnxBackend.Opsets18To22); CI needs neither Python nor npm.
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper, numpy_helper

here = os.path.dirname(os.path.abspath(__file__))
out_root = os.path.join(here, "fixtures", "onnx", "opsets")
rng = np.random.default_rng(0)

F = TensorProto.FLOAT
NP_TO_ONNX = {np.dtype(np.float32): F, np.dtype(np.int64): TensorProto.INT64, np.dtype(np.int32): TensorProto.INT32,
              np.dtype(np.uint8): TensorProto.UINT8, np.dtype(np.int8): TensorProto.INT8,
              np.dtype(np.bool_): TensorProto.BOOL, np.dtype(np.float64): TensorProto.DOUBLE,
              np.dtype(np.float16): TensorProto.FLOAT16}

cases = []


def case(name, opset, nodes, inputs, outputs, initializers=()):
    """inputs: [(name, array)]; outputs: [name]. Output types and shapes are left to the runtime."""
    cases.append(dict(name=name, opset=opset, nodes=nodes, inputs=inputs, outputs=outputs,
                      initializers=list(initializers)))


def rand(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def i64(*v):
    return np.array(v, dtype=np.int64)


N = helper.make_node

# ---- opset 18: Reduce* take axes as an input ----
x = rand(2, 3, 4)
case("reduce_axes_input_op18", 18,
     [N("ReduceMean", ["x", "axes"], ["mean"], keepdims=0),
      N("ReduceMax", ["x", "axes"], ["max"]),
      N("ReduceMin", ["x", "axes"], ["min"], keepdims=0),
      N("ReduceProd", ["x", "axes"], ["prod"]),
      N("ReduceSumSquare", ["x", "axes"], ["sumsq"]),
      N("ReduceL1", ["x", "axes"], ["l1"]),
      N("ReduceL2", ["x", "axes"], ["l2"], keepdims=0),
      N("ReduceLogSumExp", ["x", "axes"], ["lse"]),
      N("ReduceLogSum", ["ax", "axes"], ["ls"]),
      N("ReduceSum", ["x", "axes"], ["sum"])],
     [("x", x), ("ax", np.abs(x) + 0.1), ("axes", i64(1, -1))],
     ["mean", "max", "min", "prod", "sumsq", "l1", "l2", "lse", "ls", "sum"])
case("reduce_empty_axes_op18", 18,
     [N("ReduceMean", ["x"], ["all"], keepdims=1),
      N("ReduceMax", ["x", "none"], ["same"], noop_with_empty_axes=1)],
     [("x", rand(3, 4)), ("none", np.zeros((0,), dtype=np.int64))], ["all", "same"])
case("reduce_max_bool_op20", 20,
     [N("ReduceMax", ["b", "axes"], ["any"], keepdims=0), N("ReduceMin", ["b", "axes"], ["all"], keepdims=0)],
     [("b", rng.integers(0, 2, (3, 4)).astype(np.bool_)), ("axes", i64(1))], ["any", "all"])

# ---- Split num_outputs (18), Pad axes (18) and wrap (19) ----
case("split_num_outputs_op18", 18, [N("Split", ["x"], ["a", "b", "c"], axis=0, num_outputs=3)],
     [("x", rand(7, 2))], ["a", "b", "c"])
case("pad_axes_op18", 18, [N("Pad", ["x", "pads", "value", "axes"], ["y"], mode="constant")],
     [("x", rand(2, 3, 4)), ("pads", i64(1, 0, 2, 3)), ("value", np.array(1.5, dtype=np.float32)),
      ("axes", i64(-1, 1))], ["y"])
case("pad_axes_edge_op18", 18, [N("Pad", ["x", "pads", "", "axes"], ["y"], mode="edge")],
     [("x", rand(2, 3, 4)), ("pads", i64(2, 1)), ("axes", i64(0))], ["y"])
case("pad_wrap_op19", 19, [N("Pad", ["x", "pads"], ["y"], mode="wrap")],
     [("x", rand(3, 4)), ("pads", i64(2, 1, 1, 3))], ["y"])

# ---- ScatterND and ScatterElements reduction max/min (18) and mul (16) ----
data = rand(4, 3)
for red in ["max", "min", "mul"]:
    case(f"scatternd_{red}_op18", 18, [N("ScatterND", ["data", "idx", "upd"], ["y"], reduction=red)],
         [("data", data), ("idx", i64(1, 3, 1).reshape(3, 1)), ("upd", rand(3, 3))], ["y"])
    case(f"scatter_elements_{red}_op18", 18,
         [N("ScatterElements", ["data", "idx", "upd"], ["y"], axis=1, reduction=red)],
         [("data", data), ("idx", np.array([[0, 2, 0], [1, 1, -1]], dtype=np.int64)), ("upd", rand(2, 3))], ["y"])

# ---- Resize: axes, keep_aspect_ratio_policy (18), half_pixel_symmetric (19) ----
img = rand(1, 2, 4, 6)
case("resize_axes_scales_linear_op18", 18,
     [N("Resize", ["x", "", "scales"], ["y"], mode="linear", axes=[2, 3])],
     [("x", img), ("scales", np.array([2.0, 1.5], dtype=np.float32))], ["y"])
case("resize_not_larger_nearest_op18", 18,
     [N("Resize", ["x", "", "", "sizes"], ["y"], mode="nearest", axes=[3, 2], keep_aspect_ratio_policy="not_larger")],
     [("x", img), ("sizes", i64(9, 7))], ["y"])
case("resize_not_smaller_linear_op18", 18,
     [N("Resize", ["x", "", "", "sizes"], ["y"], mode="linear", axes=[2, 3], keep_aspect_ratio_policy="not_smaller")],
     [("x", img), ("sizes", i64(6, 7))], ["y"])
case("resize_half_pixel_symmetric_op19", 19,
     [N("Resize", ["x", "", "scales"], ["y"], mode="linear", coordinate_transformation_mode="half_pixel_symmetric")],
     [("x", img), ("scales", np.array([1.0, 1.0, 1.7, 0.6], dtype=np.float32))], ["y"])
case("resize_cubic_sizes_op19", 19,
     [N("Resize", ["x", "", "", "sizes"], ["y"], mode="cubic", axes=[2, 3])],
     [("x", img), ("sizes", i64(7, 9))], ["y"])

# ---- AveragePool dilations (19), LpPool ceil_mode (18), GlobalLpPool, LpNormalization ----
pool_in = rand(1, 2, 7, 8)
case("averagepool_dilations_op19", 19,
     [N("AveragePool", ["x"], ["y"], kernel_shape=[3, 2], dilations=[2, 3], pads=[1, 1, 1, 1]),
      N("AveragePool", ["x"], ["z"], kernel_shape=[2, 2], dilations=[2, 2], strides=[2, 2], ceil_mode=1,
        count_include_pad=1, pads=[1, 0, 0, 1])],
     [("x", pool_in)], ["y", "z"])
case("lppool_op18", 18,
     [N("LpPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], p=2, ceil_mode=1),
      N("LpPool", ["x"], ["z"], kernel_shape=[2, 3], p=1)],
     [("x", pool_in)], ["y", "z"])
case("global_lppool_op18", 18, [N("GlobalLpPool", ["x"], ["y"], p=3)], [("x", pool_in)], ["y"])
case("lp_normalization_op18", 18,
     [N("LpNormalization", ["x"], ["l2"], axis=-1, p=2), N("LpNormalization", ["x"], ["l1"], axis=0, p=1)],
     [("x", rand(3, 4))], ["l2", "l1"])

# ---- activations: Gelu (20), Mish (18) ----
act = rand(3, 5) * 3
case("gelu_op20", 20, [N("Gelu", ["x"], ["y"]), N("Gelu", ["x"], ["t"], approximate="tanh")], [("x", act)], ["y", "t"])
case("mish_op18", 18, [N("Mish", ["x"], ["y"])], [("x", act)], ["y"])

# ---- normalisations: GroupNormalization (18 per group, 21 per channel), LayerNormalization stash ----
gx = rand(2, 6, 3, 2)
case("group_normalization_op18", 18, [N("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=3, epsilon=1e-3)],
     [("x", gx), ("s", rand(3)), ("b", rand(3))], ["y"])
case("group_normalization_op21", 21, [N("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=2)],
     [("x", gx), ("s", rand(6)), ("b", rand(6))], ["y"])
lx = rand(2, 3, 4)
case("layer_normalization_stash_op22", 22,
     [N("LayerNormalization", ["x", "s", "b"], ["y", "mean", "inv_std"], axis=-2, epsilon=1e-3)],
     [("x", lx), ("s", rand(3, 4)), ("b", rand(3, 4))], ["y", "mean", "inv_std"])

# ---- Bitwise (18) ----
ia, ib = rng.integers(-100, 100, (3, 4)).astype(np.int32), rng.integers(-100, 100, (3, 4)).astype(np.int32)
ua = rng.integers(0, 256, (5,)).astype(np.uint8)
case("bitwise_op18", 18,
     [N("BitwiseAnd", ["a", "b"], ["and"]), N("BitwiseOr", ["a", "b"], ["or"]), N("BitwiseXor", ["a", "b"], ["xor"]),
      N("BitwiseNot", ["a"], ["not"]), N("BitwiseNot", ["u"], ["unot"])],
     [("a", ia), ("b", ib), ("u", ua)], ["and", "or", "xor", "not", "unot"])

# ---- geometry: CenterCropPad (18), Col2Im (18), DeformConv (19), AffineGrid (20), GridSample (20) ----
case("center_crop_pad_op18", 18, [N("CenterCropPad", ["x", "shape"], ["y"], axes=[0, -2])],
     [("x", rand(5, 4, 3)), ("shape", i64(2, 7))], ["y"])
case("center_crop_pad_all_op18", 18, [N("CenterCropPad", ["x", "shape"], ["y"])],
     [("x", rand(4, 5)), ("shape", i64(7, 2))], ["y"])
case("col2im_op18", 18, [N("Col2Im", ["x", "image", "block"], ["y"])],
     [("x", rand(1, 2 * 2 * 3, 3 * 2)), ("image", i64(4, 4)), ("block", i64(2, 3))], ["y"])
case("col2im_pads_strides_op18", 18,
     [N("Col2Im", ["x", "image", "block"], ["y"], strides=[2, 1], pads=[1, 0, 0, 1], dilations=[1, 2])],
     [("x", rand(2, 3 * 2 * 2, 2 * 2)), ("image", i64(4, 3)), ("block", i64(2, 2))], ["y"])
dx = rand(1, 4, 5, 5)
case("deform_conv_op19", 19,
     [N("DeformConv", ["x", "w", "off", "b", "mask"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=2,
        offset_group=2)],
     [("x", dx), ("w", rand(6, 2, 3, 3)), ("off", rand(1, 2 * 2 * 9, 5, 5)), ("b", rand(6)),
      ("mask", rng.uniform(0, 1, (1, 2 * 9, 5, 5)).astype(np.float32))], ["y"])
case("deform_conv_strided_op22", 22,
     [N("DeformConv", ["x", "w", "off"], ["y"], kernel_shape=[2, 2], strides=[2, 2], dilations=[1, 2],
        pads=[0, 1, 1, 0])],
     [("x", dx), ("w", rand(3, 4, 2, 2)), ("off", rand(1, 2 * 4, 3, 2) * 0.7)], ["y"])
case("affine_grid_2d_op20", 20, [N("AffineGrid", ["theta", "size"], ["g"], align_corners=0)],
     [("theta", rand(2, 2, 3)), ("size", i64(2, 3, 4, 5))], ["g"])
case("affine_grid_3d_op20", 20, [N("AffineGrid", ["theta", "size"], ["g"], align_corners=1)],
     [("theta", rand(1, 3, 4)), ("size", i64(1, 1, 2, 3, 4))], ["g"])
case("grid_sample_linear_op20", 20,
     [N("GridSample", ["x", "grid"], ["y"], mode="linear", padding_mode="border"),
      N("GridSample", ["x", "grid"], ["z"], mode="nearest", align_corners=1)],
     [("x", rand(1, 2, 4, 5)), ("grid", rng.uniform(-1.1, 1.1, (1, 3, 2, 2)).astype(np.float32))], ["y", "z"])

# ---- DFT axis as an input (20) ----
case("dft_axis_input_op20", 20,
     [N("DFT", ["x", "", "axis"], ["y"]), N("DFT", ["x", "len"], ["z"], onesided=1)],
     [("x", rand(2, 5, 3, 1)), ("axis", i64(1).reshape(())), ("len", i64(4).reshape(()))], ["y", "z"])

# ---- quantization (19: dequantized type follows the scale; 21: output_dtype) ----
case("quantize_output_dtype_op21", 21,
     [N("QuantizeLinear", ["x", "s"], ["q"], output_dtype=TensorProto.INT8),
      N("DequantizeLinear", ["q", "s"], ["d"])],
     [("x", rand(2, 5) * 30), ("s", np.array(0.25, dtype=np.float32))], ["q", "d"])

# ---- the 19/21/22 type-widening versions: a small net at opset 22 ----
case("convnet_op22", 22,
     [N("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]), N("Relu", ["c"], ["r"]),
      N("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
      N("Shape", ["p"], ["shp"]), N("Flatten", ["p"], ["f"]), N("Identity", ["f"], ["fi"]),
      N("Gemm", ["fi", "fw", "fb"], ["g"], transB=1), N("Cast", ["g"], ["gd"], to=TensorProto.DOUBLE),
      N("Softmax", ["gd"], ["y"]),
      N("Constant", [], ["k"], value=numpy_helper.from_array(i64(2))),
      N("Equal", ["shp", "k"], ["eq"]),
      N("ConstantOfShape", ["k"], ["ones"], value=numpy_helper.from_array(np.array([1], dtype=np.int32))),
      N("Unsqueeze", ["ones", "k0"], ["u"]), N("Transpose", ["u"], ["t"]), N("Squeeze", ["t", "k1"], ["s"]),
      N("Reshape", ["s", "k"], ["rs"])],
     [("x", rand(2, 2, 4, 4))], ["y", "eq", "rs"],
     initializers=[numpy_helper.from_array(rand(3, 2, 3, 3), "w"), numpy_helper.from_array(rand(3), "b"),
                   numpy_helper.from_array(rand(5, 12), "fw"), numpy_helper.from_array(rand(5), "fb"),
                   numpy_helper.from_array(i64(0), "k0"), numpy_helper.from_array(i64(1), "k1")])

# ---- added later: appended so the earlier cases keep their random inputs ----
# GridSample cubic (bicubic before 20), each padding mode.
gs_x, gs_grid = rand(2, 2, 4, 5), rng.uniform(-1.4, 1.4, (2, 3, 4, 2)).astype(np.float32)
case("grid_sample_cubic_op20", 20,
     [N("GridSample", ["x", "grid"], ["zeros"], mode="cubic"),
      N("GridSample", ["x", "grid"], ["border"], mode="cubic", padding_mode="border", align_corners=1),
      N("GridSample", ["x", "grid"], ["reflection"], mode="cubic", padding_mode="reflection"),
      N("GridSample", ["x", "grid"], ["reflection_ac"], mode="cubic", padding_mode="reflection", align_corners=1)],
     [("x", gs_x), ("grid", gs_grid)], ["zeros", "border", "reflection", "reflection_ac"])

# Scan at opset 8 (batch dim 0, sequence_lens, a reversed scan input): not a new opset, but the one
# Scan version libonnx-testdata covers only without sequence_lens and directions.
scan_body = helper.make_graph(
    [N("Add", ["s_in", "a"], ["s_out"]), N("Mul", ["s_out", "b"], ["y"])], "scan_body",
    [helper.make_tensor_value_info(n, F, [2]) for n in ("s_in", "a", "b")],
    [helper.make_tensor_value_info(n, F, [2]) for n in ("s_out", "y")])
case("scan_sequence_lens_op8", 8,
     [N("Scan", ["lens", "init", "xa", "xb"], ["final", "ys"], body=scan_body, num_scan_inputs=2, directions=[0, 1])],
     [("lens", i64(3, 1)), ("init", rand(2, 2)), ("xa", rand(2, 3, 2)), ("xb", rand(2, 3, 2))], ["final", "ys"])

# Quantized models on the int8 op (matmul_integer): QDQ (QuantizeLinear -> DequantizeLinear -> MatMul with a
# DequantizeLinear int8 weight initializer, per column and per tensor), QOperator (QLinearMatMul), the dynamic
# quantization chain (DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul), MatMulInteger over full-range
# u8 x s8 operands (255 x -128 / 127) and a u8 weight with zero points, ConvInteger and QLinearConv (im2col), QDQ
# Convs (below). burn_import_onnx_engine_test checks that
# matmul_integer ran (OnnxQuant.*).
def f32(v):
    return np.array(v, dtype=np.float32)  # 0-d: a per-tensor scale


def init(name, a):
    return numpy_helper.from_array(a, name)


qw = rng.integers(-128, 128, (16, 8)).astype(np.int8)
case("qdq_matmul_per_column_op19", 19,
     [N("QuantizeLinear", ["x", "xs", "xz"], ["xq"]), N("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
      N("DequantizeLinear", ["w", "ws", "wz"], ["wd"], axis=1), N("MatMul", ["xd", "wd"], ["m"]),
      N("Add", ["m", "b"], ["y"])],
     [("x", rand(3, 16))], ["y"],
     initializers=[init("xs", f32(0.02)), init("xz", np.array(128, dtype=np.uint8)), init("w", qw),
                   init("ws", rng.uniform(0.001, 0.01, 8).astype(np.float32)), init("wz", np.zeros(8, np.int8)),
                   init("b", rand(8))])
case("qdq_matmul_per_tensor_u8_op19", 19,
     [N("QuantizeLinear", ["x", "xs", "xz"], ["xq"]), N("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
      N("DequantizeLinear", ["w", "ws", "wz"], ["wd"]), N("MatMul", ["xd", "wd"], ["y"])],
     [("x", rand(2, 3, 16))], ["y"],
     initializers=[init("xs", f32(0.03)), init("xz", np.array(-3, dtype=np.int8)),
                   init("w", rng.integers(0, 256, (16, 5)).astype(np.uint8)), init("ws", f32(0.004)),
                   init("wz", np.array(131, dtype=np.uint8))])
case("qlinear_matmul_op19", 19,
     [N("QLinearMatMul", ["a", "as", "az", "w", "ws", "wz", "ys", "yz"], ["y"])],
     [("a", rng.integers(0, 256, (4, 16)).astype(np.uint8))], ["y"],
     initializers=[init("as", f32(0.05)), init("az", np.array(120, dtype=np.uint8)), init("w", qw),
                   init("ws", f32(0.01)), init("wz", np.array(2, dtype=np.int8)), init("ys", f32(0.3)),
                   init("yz", np.array(100, dtype=np.uint8))])
case("dynamic_quantize_matmul_integer_op19", 19,
     [N("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]), N("MatMulInteger", ["xq", "w", "xz", "wz"], ["acc"]),
      N("Cast", ["acc"], ["accf"], to=F), N("Mul", ["xs", "ws"], ["s"]), N("Mul", ["accf", "s"], ["y"])],
     [("x", rand(5, 16))], ["acc", "y"],
     initializers=[init("w", qw), init("wz", np.array(0, dtype=np.int8)), init("ws", f32(0.007))])
full_a = rng.integers(0, 256, (3, 1024)).astype(np.uint8)
full_a[0] = 255
full_b = rng.integers(-128, 128, (1024, 4)).astype(np.int8)
full_b[:, 0] = -128
full_b[:, 1] = 127
case("matmul_integer_full_range_op19", 19,
     [N("MatMulInteger", ["a", "b"], ["y"]), N("MatMulInteger", ["a", "bu", "", "bz"], ["yu"])],
     [("a", full_a), ("b", full_b)], ["y", "yu"],
     initializers=[init("bu", rng.integers(0, 256, (1024, 6)).astype(np.uint8)), init("bz", np.array(255, dtype=np.uint8))])

case("conv_integer_op19", 19,
     [N("ConvInteger", ["x", "w", "xz", "wz"], ["y"], pads=[1, 2, 0, 1], strides=[2, 1], dilations=[1, 2])],
     [("x", rng.integers(0, 256, (2, 3, 7, 6)).astype(np.uint8))], ["y"],
     initializers=[init("w", rng.integers(-128, 128, (4, 3, 3, 2)).astype(np.int8)),
                   init("xz", np.array(97, dtype=np.uint8)), init("wz", np.array(-5, dtype=np.int8))])
case("qlinear_conv_op19", 19,
     [N("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"], pads=[1, 1, 1, 1])],
     [("x", rng.integers(0, 256, (2, 3, 6, 5)).astype(np.uint8))], ["y"],
     initializers=[init("xs", f32(0.02)), init("xz", np.array(128, dtype=np.uint8)),
                   init("w", rng.integers(-127, 128, (4, 3, 3, 3)).astype(np.int8)),
                   init("ws", rng.uniform(0.002, 0.01, 4).astype(np.float32)), init("wz", np.zeros(4, np.int8)),
                   init("ys", f32(0.05)), init("yz", np.array(110, dtype=np.uint8)),
                   init("b", rng.integers(-2000, 2000, 4).astype(np.int32))])


# Grouped, 1-D and 3-D integer convs and MatMulInteger/QLinearMatMul with a batched b, also on matmul_integer (one
# call per group or per batch entry of b); the weights span the full int8 range (-128 and 127 next to u8 255 inputs).
def full_range_w(*shape):
    w = rng.integers(-128, 128, shape).astype(np.int8)
    w.flat[0::5] = -128
    w.flat[1::5] = 127
    return w


def full_range_x(*shape):
    x = rng.integers(0, 256, shape).astype(np.uint8)
    x.flat[0::3] = 255
    return x


case("conv_integer_grouped_op19", 19,
     [N("ConvInteger", ["x", "w", "xz", "wz"], ["y"], group=2, pads=[1, 0, 1, 2], strides=[1, 2])],
     [("x", full_range_x(2, 4, 6, 7))], ["y"],
     initializers=[init("w", full_range_w(6, 2, 3, 3)), init("xz", np.array(3, dtype=np.uint8)),
                   init("wz", np.array(-7, dtype=np.int8))])
case("conv_integer_depthwise_1d_op19", 19,
     [N("ConvInteger", ["x", "w", "xz"], ["y"], group=3, pads=[2, 1], strides=[2], dilations=[2])],
     [("x", full_range_x(2, 3, 11))], ["y"],
     initializers=[init("w", full_range_w(6, 1, 3)), init("xz", np.array(200, dtype=np.uint8))])
case("conv_integer_3d_op19", 19,
     [N("ConvInteger", ["x", "w", "xz", "wz"], ["y"], pads=[1, 0, 1, 0, 1, 1], strides=[1, 2, 1])],
     [("x", full_range_x(2, 2, 4, 5, 4))], ["y"],
     initializers=[init("w", rng.integers(0, 256, (3, 2, 2, 3, 2)).astype(np.uint8)),
                   init("xz", np.array(128, dtype=np.uint8)), init("wz", np.array(255, dtype=np.uint8))])
case("qlinear_conv_grouped_op19", 19,
     [N("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"], group=2, pads=[1, 1, 1, 1])],
     [("x", full_range_x(2, 4, 5, 5))], ["y"],
     initializers=[init("xs", f32(0.02)), init("xz", np.array(128, dtype=np.uint8)), init("w", full_range_w(4, 2, 3, 3)),
                   init("ws", rng.uniform(0.002, 0.01, 4).astype(np.float32)), init("wz", np.zeros(4, np.int8)),
                   init("ys", f32(0.2)), init("yz", np.array(110, dtype=np.uint8)),
                   init("b", rng.integers(-2000, 2000, 4).astype(np.int32))])
case("qlinear_conv_1d_op19", 19,
     [N("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"], ["y"], pads=[1, 1], strides=[2])],
     [("x", full_range_x(2, 3, 9))], ["y"],
     initializers=[init("xs", f32(0.03)), init("xz", np.array(100, dtype=np.uint8)), init("w", full_range_w(5, 3, 3)),
                   init("ws", f32(0.004)), init("wz", np.array(0, dtype=np.int8)), init("ys", f32(0.25)),
                   init("yz", np.array(120, dtype=np.uint8))])
case("qlinear_conv_3d_op19", 19,
     [N("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"], pads=[0, 1, 1, 1, 0, 1])],
     [("x", full_range_x(1, 2, 3, 4, 5))], ["y"],
     initializers=[init("xs", f32(0.02)), init("xz", np.array(128, dtype=np.uint8)), init("w", full_range_w(3, 2, 2, 2, 3)),
                   init("ws", rng.uniform(0.002, 0.01, 3).astype(np.float32)), init("wz", np.zeros(3, np.int8)),
                   init("ys", f32(0.15)), init("yz", np.array(90, dtype=np.uint8)),
                   init("b", rng.integers(-2000, 2000, 3).astype(np.int32))])
case("matmul_integer_batched_op19", 19,
     [N("MatMulInteger", ["a", "b", "az", "bz"], ["y"]), N("MatMulInteger", ["a2", "b2"], ["y2"]),
      N("MatMulInteger", ["a1", "b1", "", "bz1"], ["y1"])],
     [("a", full_range_x(2, 3, 4, 16)), ("a2", full_range_x(4, 16)), ("a1", full_range_x(16))], ["y", "y2", "y1"],
     initializers=[init("b", full_range_w(3, 16, 5)), init("az", np.array(7, dtype=np.uint8)),
                   init("bz", rng.integers(-10, 10, (3, 1, 5)).astype(np.int8)), init("b2", full_range_w(2, 16, 6)),
                   init("b1", full_range_w(1, 16, 5)), init("bz1", np.array(-3, dtype=np.int8))])
case("qlinear_matmul_batched_op19", 19,
     [N("QLinearMatMul", ["a", "as", "az", "w", "ws", "wz", "ys", "yz"], ["y"])],
     [("a", full_range_x(2, 4, 16))], ["y"],
     initializers=[init("as", f32(0.05)), init("az", np.array(120, dtype=np.uint8)), init("w", full_range_w(2, 16, 6)),
                   init("ws", f32(0.01)), init("wz", np.array(2, dtype=np.int8)), init("ys", f32(0.3)),
                   init("yz", np.array(100, dtype=np.uint8))])

# QDQ Convs (DequantizeLinear -> Conv <- DequantizeLinear of a constant int8 weight), which the loader rewrites into
# one burn.internal/QDQConv node on matmul_integer: per-output-channel weight scales (axis 0) with a float bias,
# and a grouped, dilated conv with an int8 activation, a per-tensor weight zero point and the exporters' int32 bias
# through its own DequantizeLinear.
case("qdq_conv_per_channel_op19", 19,
     [N("QuantizeLinear", ["x", "xs", "xz"], ["xq"]), N("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
      N("DequantizeLinear", ["w", "ws", "wz"], ["wd"], axis=0),
      N("Conv", ["xd", "wd", "b"], ["y"], pads=[1, 1, 1, 1], strides=[2, 1])],
     [("x", rand(2, 3, 7, 6))], ["y"],
     initializers=[init("xs", f32(0.02)), init("xz", np.array(128, dtype=np.uint8)), init("w", full_range_w(4, 3, 3, 3)),
                   init("ws", rng.uniform(0.002, 0.01, 4).astype(np.float32)), init("wz", np.zeros(4, np.int8)),
                   init("b", rand(4))])
case("qdq_conv_grouped_op19", 19,
     [N("QuantizeLinear", ["x", "xs", "xz"], ["xq"]), N("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
      N("DequantizeLinear", ["w", "ws", "wz"], ["wd"]), N("DequantizeLinear", ["bq", "bs"], ["bd"], axis=0),
      N("Conv", ["xd", "wd", "bd"], ["y"], group=2, pads=[0, 1, 2, 1], dilations=[2, 1])],
     [("x", rand(2, 4, 8, 5))], ["y"],
     initializers=[init("xs", f32(0.03)), init("xz", np.array(-4, dtype=np.int8)), init("w", full_range_w(6, 2, 2, 3)),
                   init("ws", f32(0.006)), init("wz", np.array(-3, dtype=np.int8)),
                   init("bq", rng.integers(-5000, 5000, 6).astype(np.int32)),
                   init("bs", np.full(6, np.float32(0.03) * np.float32(0.006), np.float32))])


def build(c):
    inputs = [helper.make_tensor_value_info(n, NP_TO_ONNX[a.dtype], list(a.shape)) for n, a in c["inputs"]]
    outputs = [helper.make_empty_tensor_value_info(n) for n in c["outputs"]]
    graph = helper.make_graph(c["nodes"], c["name"], inputs, outputs, initializer=c["initializers"])
    m = helper.make_model(graph, producer_name="burn-cpp gen_onnx_opset_fixtures.py",
                          opset_imports=[helper.make_opsetid("", c["opset"])])
    m.ir_version = 10 if c["opset"] >= 21 else 9 if c["opset"] >= 19 else 8
    return m


# Small models of the benchmark's int8 forms, quantized by the benchmark's own quantizer
# (bench/onnxruntime/quantize_onnx.py, as ONNX Runtime's tool writes them): a QDQ CNN (per-channel int8 convs and
# a Gemm with int32 biases, u8 activations calibrated in ONNX Runtime, a residual Add, MaxPool, GlobalAveragePool,
# the Relus dropped into the u8 ranges) and a dynamic-quantized MLP on a [batch, sequence, features] input (two
# MatMuls sharing one DynamicQuantizeLinear). OnnxQuant checks every product ran on matmul_integer.
sys.path.insert(0, os.path.join(here, "..", "..", "bench", "onnxruntime"))
import quantize_onnx  # noqa: E402


def quantized_case(name, opset, nodes, inputs, outputs, initializers, calibration=None):
    """The fp32 model of these nodes quantized: QDQ with ranges from the feed sets `calibration`, else dynamic."""
    fp32 = build(dict(name=name, opset=opset, nodes=nodes, inputs=inputs, outputs=outputs, initializers=initializers))
    q = quantize_onnx.calibrated_static(fp32, calibration) if calibration else quantize_onnx.quantize_dynamic(fp32)
    case(name, opset, list(q.graph.node), inputs, outputs, list(q.graph.initializer))


def conv_weight(cout, cin, k):
    return (rng.standard_normal((cout, cin, k, k)) / np.sqrt(cin * k * k)).astype(np.float32)


x = rand(2, 3, 10, 10)
quantized_case("qdq_cnn_op19", 19,
               [N("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]), N("Relu", ["c1"], ["r1"]),
                N("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]), N("Add", ["c2", "r1"], ["a"]),
                N("Relu", ["a"], ["r2"]), N("MaxPool", ["r2"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
                N("Conv", ["p", "w3", "b3"], ["c3"], pads=[1, 1, 1, 1], strides=[2, 2]), N("Relu", ["c3"], ["r3"]),
                N("GlobalAveragePool", ["r3"], ["g"]), N("Flatten", ["g"], ["f"]),
                N("Gemm", ["f", "wf", "bf"], ["logits"], transB=1)],
               [("x", x)], ["logits"],
               [init("w1", conv_weight(8, 3, 3)), init("b1", rand(8) * 0.1), init("w2", conv_weight(8, 8, 3)),
                init("b2", rand(8) * 0.1), init("w3", conv_weight(16, 8, 3)), init("b3", rand(16) * 0.1),
                init("wf", rand(10, 16) * 0.25), init("bf", rand(10) * 0.1)],
               calibration=[{"x": x}] + [{"x": rand(2, 3, 10, 10)} for _ in range(3)])
quantized_case("dynamic_quantized_mlp_op19", 19,
               [N("MatMul", ["x", "w1"], ["m1"]), N("Add", ["m1", "b1"], ["h1"]), N("Relu", ["h1"], ["r1"]),
                N("MatMul", ["x", "w2"], ["m2"]), N("Add", ["m2", "b2"], ["h2"]), N("Mul", ["r1", "h2"], ["h"]),
                N("MatMul", ["h", "w3"], ["m3"]), N("Add", ["m3", "b3"], ["y"])],
               [("x", rand(2, 5, 32))], ["y"],
               [init("w1", rand(32, 48) * 0.2), init("b1", rand(48) * 0.1), init("w2", rand(32, 48) * 0.2),
                init("b2", rand(48) * 0.1), init("w3", rand(48, 16) * 0.2), init("b3", rand(16) * 0.1)])


# The remaining QDQ forms (appended: the cases above keep their random inputs). fuse_qdq_products rewrites any
# DequantizeLinear pair into a MatMul, Gemm or Conv and the node decides at run time. On matmul_integer
# (OnnxQuant.QuantizedMatMulsRunOnTheIntegerOp): f16 scales (opset 19: the products and biases in f16), weights that
# are not constants (a Transpose or Reshape of an int8 initializer, a graph input) under an activation whose scale and
# zero point are computed (DynamicQuantizeLinear), activation scales and zero points per row of a (a MatMul's axis
# -2, a transposed Gemm's axis 1, with alpha and beta), QLinearMatMul's b parameters per batch entry ([B, 1, N]) and
# a 1-D b for MatMulInteger and QLinearMatMul.
def h16(v):
    return np.array(v, dtype=np.float16)


case("qdq_matmul_f16_scales_op19", 19,
     [N("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]), N("DequantizeLinear", ["w", "ws"], ["wd"], axis=1),
      N("MatMul", ["xd", "wd"], ["m"]), N("Add", ["m", "b"], ["y"]),
      N("DequantizeLinear", ["w2", "ws2", "wz2"], ["wd2"], axis=0), N("Gemm", ["xd", "wd2", "b2"], ["g"], transB=1)],
     [("xq", full_range_x(3, 16))], ["y", "g"],
     initializers=[init("xs", h16(0.02)), init("xz", np.array(128, np.uint8)), init("w", full_range_w(16, 8)),
                   init("ws", rng.uniform(0.001, 0.01, 8).astype(np.float16)), init("b", rand(8).astype(np.float16)),
                   init("w2", full_range_w(5, 16)), init("ws2", rng.uniform(0.001, 0.01, 5).astype(np.float16)),
                   init("wz2", rng.integers(-5, 5, 5).astype(np.int8)), init("b2", rand(5).astype(np.float16))])
case("qdq_conv_f16_scales_op19", 19,
     [N("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]), N("DequantizeLinear", ["w", "ws", "wz"], ["wd"], axis=0),
      N("Conv", ["xd", "wd", "b"], ["y"], pads=[1, 1, 1, 1])],
     [("xq", full_range_x(2, 3, 6, 5))], ["y"],
     initializers=[init("xs", h16(0.03)), init("xz", np.array(120, np.uint8)), init("w", full_range_w(4, 3, 3, 3)),
                   init("ws", rng.uniform(0.002, 0.01, 4).astype(np.float16)), init("wz", np.zeros(4, np.int8)),
                   init("b", rand(4).astype(np.float16))])
case("qdq_computed_weights_op19", 19,
     [N("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]), N("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
      N("Transpose", ["wt"], ["w"], perm=[1, 0]), N("DequantizeLinear", ["w", "ws"], ["wd"], axis=1),
      N("MatMul", ["xd", "wd"], ["y"]),
      N("DequantizeLinear", ["wi", "wis", "wiz"], ["wid"]), N("MatMul", ["xd", "wid"], ["yi"])],
     [("x", rand(2, 3, 16)), ("wi", full_range_w(16, 6))], ["y", "yi"],
     initializers=[init("wt", full_range_w(8, 16)), init("ws", rng.uniform(0.001, 0.01, 8).astype(np.float32)),
                   init("wis", f32(0.004)), init("wiz", np.array(3, np.int8))])
case("qdq_conv_computed_weight_op19", 19,
     [N("QuantizeLinear", ["x", "xs", "xz"], ["xq"]), N("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
      N("Reshape", ["wf", "shape"], ["w"]), N("DequantizeLinear", ["w", "ws", "wz"], ["wd"], axis=0),
      N("Conv", ["xd", "wd", "b"], ["y"], group=2, strides=[2, 1])],
     [("x", rand(2, 4, 7, 6))], ["y"],
     initializers=[init("xs", f32(0.03)), init("xz", np.array(128, np.uint8)), init("wf", full_range_w(6 * 2 * 3 * 3)),
                   init("shape", i64(6, 2, 3, 3)), init("ws", rng.uniform(0.002, 0.01, 6).astype(np.float32)),
                   init("wz", rng.integers(-4, 4, 6).astype(np.int8)), init("b", rand(6))])
case("qdq_matmul_per_row_activation_op19", 19,
     [N("DequantizeLinear", ["aq", "as", "az"], ["ad"], axis=1),
      N("DequantizeLinear", ["w", "ws", "wz"], ["wd"], axis=1), N("MatMul", ["ad", "wd"], ["y"]),
      N("DequantizeLinear", ["atq", "ats", "atz"], ["atd"], axis=1),
      N("DequantizeLinear", ["wt", "wts"], ["wtd"], axis=0),
      N("Gemm", ["atd", "wtd", "bt"], ["g"], transA=1, transB=1, alpha=0.5, beta=2.0)],
     [("aq", full_range_x(2, 4, 16)), ("atq", full_range_x(16, 3))], ["y", "g"],
     initializers=[init("as", rng.uniform(0.01, 0.03, 4).astype(np.float32)),
                   init("az", rng.integers(100, 150, 4).astype(np.uint8)), init("w", full_range_w(16, 5)),
                   init("ws", rng.uniform(0.001, 0.01, 5).astype(np.float32)), init("wz", np.zeros(5, np.int8)),
                   init("ats", rng.uniform(0.01, 0.03, 3).astype(np.float32)),
                   init("atz", rng.integers(100, 150, 3).astype(np.uint8)), init("wt", full_range_w(5, 16)),
                   init("wts", rng.uniform(0.001, 0.01, 5).astype(np.float32)), init("bt", rand(5))])
case("qlinear_matmul_batched_params_op19", 19,
     [N("QLinearMatMul", ["a", "as", "az", "w", "ws", "wz", "ys", "yz"], ["y"]),
      N("MatMulInteger", ["a", "v", "az", "vz"], ["yv"]),
      N("QLinearMatMul", ["a", "as", "az", "v", "vs", "vz", "ys", "yz"], ["yq"])],
     [("a", full_range_x(2, 4, 16))], ["y", "yv", "yq"],
     initializers=[init("as", f32(0.05)), init("az", np.array(120, np.uint8)), init("w", full_range_w(2, 16, 6)),
                   init("ws", rng.uniform(0.005, 0.015, (2, 1, 6)).astype(np.float32)),
                   init("wz", rng.integers(-3, 3, (2, 1, 6)).astype(np.int8)), init("ys", f32(0.3)),
                   init("yz", np.array(100, np.uint8)), init("v", full_range_w(16)), init("vs", f32(0.01)),
                   init("vz", np.array(2, np.int8))])
# Forms that stay off the integer op (docs/decisions.md, "quantized forms off the integer op"), against ONNX Runtime
# in OnnxQuant.FormsOffTheIntegerOpMatchOnnxRuntime: activation parameters per index of the summed axis (a MatMul's
# K, a Conv's input channels), a weight's per K, and DequantizeLinear's int32 values.
case("qdq_float_path_forms_op19", 19,
     [N("DequantizeLinear", ["aq", "ak", "azk"], ["ad"], axis=-1), N("DequantizeLinear", ["w", "ws"], ["wd"]),
      N("MatMul", ["ad", "wd"], ["y_k"]),
      N("DequantizeLinear", ["aq", "as"], ["ad2"]), N("DequantizeLinear", ["w", "wk"], ["wdk"], axis=0),
      N("MatMul", ["ad2", "wdk"], ["y_wk"]),
      N("DequantizeLinear", ["ai", "ais"], ["aid"]), N("MatMul", ["aid", "wd"], ["y_i32"]),
      N("DequantizeLinear", ["xq", "xc", "xzc"], ["xd"], axis=1), N("DequantizeLinear", ["cw", "cws"], ["cwd"]),
      N("Conv", ["xd", "cwd"], ["y_c"], pads=[1, 1, 1, 1])],
     [("aq", full_range_x(3, 16)), ("ai", rng.integers(-40000, 40000, (3, 16)).astype(np.int32)),
      ("xq", full_range_x(2, 3, 5, 5))], ["y_k", "y_wk", "y_i32", "y_c"],
     initializers=[init("ak", rng.uniform(0.01, 0.03, 16).astype(np.float32)),
                   init("azk", rng.integers(100, 150, 16).astype(np.uint8)), init("w", full_range_w(16, 5)),
                   init("ws", f32(0.004)), init("as", f32(0.02)),
                   init("wk", rng.uniform(0.001, 0.01, 16).astype(np.float32)), init("ais", f32(0.0001)),
                   init("xc", rng.uniform(0.01, 0.03, 3).astype(np.float32)),
                   init("xzc", rng.integers(100, 150, 3).astype(np.uint8)), init("cw", full_range_w(4, 3, 3, 3)),
                   init("cws", f32(0.005))])

# QLinearMatMul's f16 scales (opset 21), on matmul_integer and requantized with the f32 multiplier.
case("qlinear_matmul_f16_scales_op21", 21,
     [N("QLinearMatMul", ["a", "as", "az", "w", "ws", "wz", "ys", "yz"], ["y"])],
     [("a", full_range_x(3, 5, 16))], ["y"],
     initializers=[init("as", h16(0.05)), init("az", np.array(120, np.uint8)), init("w", full_range_w(16, 6)),
                   init("ws", rng.uniform(0.005, 0.015, 6).astype(np.float16)), init("wz", np.zeros(6, np.int8)),
                   init("ys", h16(0.3)), init("yz", np.array(100, np.uint8))])


def main():
    # Written beside the committed cases and swapped in only when every case ran in ONNX Runtime.
    staging = out_root + ".new"
    if os.path.isdir(staging):
        shutil.rmtree(staging)
    os.makedirs(staging)
    request = []
    for c in cases:
        d = os.path.join(staging, c["name"])
        os.makedirs(os.path.join(d, "test_data_set_0"))
        with open(os.path.join(d, "model.onnx"), "wb") as f:
            f.write(build(c).SerializeToString())
        feeds = {}
        for i, (n, a) in enumerate(c["inputs"]):
            with open(os.path.join(d, "test_data_set_0", f"input_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(a, n).SerializeToString())
            data = a.view(np.uint16) if a.dtype == np.float16 else a  # float16 travels as its bit patterns
            feeds[n] = {"dtype": str(a.dtype), "dims": list(a.shape), "data": data.flatten().tolist()}
        request.append({"name": c["name"], "model": os.path.join(d, "model.onnx"), "feeds": feeds,
                        "outputs": c["outputs"]})
    with tempfile.TemporaryDirectory() as tmp:
        req, res = os.path.join(tmp, "request.json"), os.path.join(tmp, "result.json")
        with open(req, "w") as f:
            json.dump(request, f)
        subprocess.run(["node", os.path.join(here, "run_ort_fixtures.mjs"), req, res], check=True)
        with open(res) as f:
            results = json.load(f)
    for c in cases:
        d = os.path.join(staging, c["name"], "test_data_set_0")
        for i, o in enumerate(results[c["name"]]):
            a = (np.array(o["data"], dtype=np.uint16).view(np.float16) if o["dtype"] == "float16"
                 else np.array(o["data"], dtype=o["dtype"])).reshape(o["dims"])
            with open(os.path.join(d, f"output_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(a, c["outputs"][i]).SerializeToString())
    if os.path.isdir(out_root):
        shutil.rmtree(out_root)
    os.rename(staging, out_root)
    print("wrote", len(cases), "cases to", out_root)


main()
