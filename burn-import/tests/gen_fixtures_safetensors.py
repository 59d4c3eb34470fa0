#!/usr/bin/python3
"""safetensors fixtures, written from the specification (torch 1.13 has no safetensors package):
8-byte little-endian header length N, N bytes of JSON {name: {dtype, shape, data_offsets}, "__metadata__"},
then the data buffer. Tensors come from torch; expected.json holds each tensor's dtype, shape and values
(as float64, bools as 0/1) for safetensors_test.cpp. Corrupt files exercise every check of the reader.
Also writes resnet18_names.json: torchvision resnet18(num_classes=10)'s state dict names, shapes and
dtypes in order, from which the ResNet test writes the (47 MB) weights file at test time."""
import json, os, struct
import torch, torchvision

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "fixtures", "safetensors")
os.makedirs(out, exist_ok=True)

DT = {torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
      torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8", torch.uint8: "U8",
      torch.bool: "BOOL"}


def raw(t):
    t = t.contiguous()
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16: its bits as int16
        return t.view(torch.int16).numpy().tobytes()
    return t.numpy().tobytes()


def header_and_buffer(tensors, metadata=None):
    header, buf = {}, b""
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, t in tensors.items():
        b = raw(t)
        header[name] = {"dtype": DT[t.dtype], "shape": list(t.shape), "data_offsets": [len(buf), len(buf) + len(b)]}
        buf += b
    return header, buf


def write(name, header, buf, pad=True, length=None):
    h = json.dumps(header, separators=(",", ":")).encode()
    if pad:  # the specification pads the header with spaces to a multiple of 8
        h += b" " * ((8 - len(h) % 8) % 8)
    with open(os.path.join(out, name), "wb") as f:
        f.write(struct.pack("<Q", len(h) if length is None else length) + h + buf)


torch.manual_seed(0)
tensors = {
    "layer.0.weight": torch.randn(3, 4, dtype=torch.float32),
    "layer.0.bias": torch.randn(4, dtype=torch.float64),
    "layer.1.half": torch.randn(2, 3).half(),
    "layer.1.bhalf": torch.randn(5).bfloat16(),
    "ints.i64": torch.tensor([-(2**40), 7, 2**62], dtype=torch.int64),
    "ints.i32": torch.tensor([[-5, 6], [2**30, -(2**31)]], dtype=torch.int32),
    "ints.i16": torch.tensor([-32768, 32767, -2], dtype=torch.int16),
    "ints.i8": torch.tensor([-128, 127, 0], dtype=torch.int8),
    "ints.u8": torch.tensor([0, 255, 9], dtype=torch.uint8),
    "mask": torch.tensor([[True, False], [False, True]]),
    "scalar": torch.tensor(3.5, dtype=torch.float32),
    "empty": torch.zeros(0, 3, dtype=torch.float32),
}
meta = {"format": "pt", "producer": "gen_fixtures_safetensors.py"}
header, buf = header_and_buffer(tensors, meta)
write("all_dtypes.safetensors", header, buf)
expected = {"metadata": meta, "tensors": {}}
for name, t in tensors.items():
    expected["tensors"][name] = {"dtype": DT[t.dtype], "shape": list(t.shape),
                                 "values": t.double().flatten().tolist() if t.dtype != torch.bool else t.int().flatten().tolist()}
with open(os.path.join(out, "expected.json"), "w") as f:
    json.dump(expected, f, indent=1)

# A minimal valid file (for the fuzzer's seeds and the tools' tests): one tensor, nested names.
small = {"encoder.linear.weight": torch.arange(6, dtype=torch.float32).reshape(2, 3),
         "encoder.linear.bias": torch.tensor([0.5, -1.5], dtype=torch.float32)}
h, b = header_and_buffer(small, {"note": "small"})
write("small.safetensors", h, b)

# Corrupt files: each check of the reader.
write("truncated.safetensors", header, buf[: len(buf) - 5])        # data cut short
with open(os.path.join(out, "all_dtypes.safetensors"), "rb") as f:
    whole = f.read()
with open(os.path.join(out, "truncated_header.safetensors"), "wb") as f:
    f.write(whole[:40])                                             # ends inside the header
with open(os.path.join(out, "short.safetensors"), "wb") as f:
    f.write(b"\x05\x00\x00")                                        # less than the length field
write("header_too_long.safetensors", header, buf, length=len(whole))  # claims more than the file
h2 = json.loads(json.dumps(header))
h2["ints.i8"]["data_offsets"] = [h2["ints.i8"]["data_offsets"][0] - 2, h2["ints.i8"]["data_offsets"][1] - 2]
write("overlap.safetensors", h2, buf)
h3 = json.loads(json.dumps(header)); h3["mask"]["dtype"] = "Q7"
write("bad_dtype.safetensors", h3, buf)
h4 = json.loads(json.dumps(header)); h4["scalar"]["data_offsets"] = [len(buf) - 4, len(buf) + 4]
write("offsets_out_of_range.safetensors", h4, buf)
h5 = {"huge": {"dtype": "F32", "shape": [2**60], "data_offsets": [0, 2**62]}}  # 2^62 bytes claimed
write("huge_claim.safetensors", h5, b"\0" * 16)
h5b = {"wrap": {"dtype": "F32", "shape": [2**32, 2**32], "data_offsets": [0, 0]}}  # 2^66 bytes: wraps
write("shape_overflow.safetensors", h5b, b"")
h6 = {"neg": {"dtype": "F32", "shape": [-1, 4], "data_offsets": [0, 16]}}
write("negative_dim.safetensors", h6, b"\0" * 16)
h7 = {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 12]}}
write("size_mismatch.safetensors", h7, b"\0" * 12)
with open(os.path.join(out, "not_json.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", 8) + b"{\"a\": [1")
h8 = {"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "a.b": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}
write("name_clash.safetensors", h8, b"\0" * 8)
with open(os.path.join(out, "bad_bool.safetensors"), "wb") as f:
    h = json.dumps({"m": {"dtype": "BOOL", "shape": [2], "data_offsets": [0, 2]}}).encode()
    f.write(struct.pack("<Q", len(h)) + h + b"\x01\x07")

# torchvision ResNet-18's state dict names (PyTorch layout) for the ResNet import test.
m = torchvision.models.resnet18(num_classes=10)
names = [{"name": k, "dtype": DT[v.dtype], "shape": list(v.shape)} for k, v in m.state_dict().items()]
with open(os.path.join(out, "resnet18_names.json"), "w") as f:
    json.dump(names, f)

# Bytes no tensor covers: appended after the data, and a hole between two tensors.
write("appended.safetensors", header, buf + b"tail")
h9 = {"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "b": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]}}
write("hole.safetensors", h9, b"\0" * 12)
