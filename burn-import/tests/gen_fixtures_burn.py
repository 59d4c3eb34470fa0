#!/usr/bin/python3
"""Rust Burn NamedMpk fixtures (.mpk, .mpk.gz), written from the format Burn's NamedMpkFileRecorder
writes (rmp_serde::encode::write_named of BurnRecord {metadata, item}): structs are maps keyed by
field name, Option::None and constant fields nil, Vec arrays, a Param {id: "<u64>", param: TensorData},
TensorData {bytes: bin, shape: [u64...], dtype: "F32"} (unit enum variants as their name). There is no
Python msgpack here, so the encoder is below. expected.json holds the values burn_import_test checks."""
import gzip, json, os, struct
import torch

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "fixtures", "burn")
os.makedirs(out, exist_ok=True)


def pack(v):
    """MessagePack with the smallest encodings, as rmp_serde writes them."""
    if v is None:
        return b"\xc0"
    if v is True:
        return b"\xc3"
    if v is False:
        return b"\xc2"
    if isinstance(v, int):
        if 0 <= v < 128:
            return bytes([v])
        for lim, code, fmt in ((2**8, 0xCC, ">B"), (2**16, 0xCD, ">H"), (2**32, 0xCE, ">I"), (2**64, 0xCF, ">Q")):
            if 0 <= v < lim:
                return bytes([code]) + struct.pack(fmt, v)
        if -32 <= v < 0:
            return struct.pack("b", v)
        return b"\xd3" + struct.pack(">q", v)
    if isinstance(v, float):
        return b"\xcb" + struct.pack(">d", v)
    if isinstance(v, str):
        b = v.encode()
        if len(b) < 32:
            return bytes([0xA0 | len(b)]) + b
        return (b"\xd9" + bytes([len(b)]) if len(b) < 256 else b"\xdb" + struct.pack(">I", len(b))) + b
    if isinstance(v, (bytes, bytearray)):
        return (b"\xc4" + bytes([len(v)]) if len(v) < 256 else b"\xc6" + struct.pack(">I", len(v))) + bytes(v)
    if isinstance(v, list):
        head = bytes([0x90 | len(v)]) if len(v) < 16 else b"\xdd" + struct.pack(">I", len(v))
        return head + b"".join(pack(x) for x in v)
    if isinstance(v, dict):
        head = bytes([0x80 | len(v)]) if len(v) < 16 else b"\xdf" + struct.pack(">I", len(v))
        return head + b"".join(pack(k) + pack(x) for k, x in v.items())
    raise TypeError(type(v))


DT = {torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
      torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8", torch.uint8: "U8",
      torch.bool: "Bool"}


def tensor_data(t):
    t = t.contiguous()
    raw = t.view(torch.int16).numpy().tobytes() if t.dtype == torch.bfloat16 else t.numpy().tobytes()
    return {"bytes": raw, "shape": list(t.shape), "dtype": DT[t.dtype]}


next_id = [1000]


def param(t):
    next_id[0] += 7
    return {"id": str(next_id[0]), "param": tensor_data(t)}


torch.manual_seed(0)
tensors, ids = {}, {}


def p(path, t):
    tensors[path] = t
    rec = param(t)
    ids[path] = int(rec["id"])
    return rec


def linear(path, i, o, bias=True):  # Burn's Linear: weight [d_input, d_output]
    return {"weight": p(path + ".weight", torch.randn(i, o)), "bias": p(path + ".bias", torch.randn(o)) if bias else None}


item = {
    "linear": linear("linear", 3, 2),
    "norm": {"gamma": p("norm.gamma", torch.rand(2) + 0.5), "beta": p("norm.beta", torch.randn(2)),
             "running_mean": p("norm.running_mean", torch.randn(2)), "running_var": p("norm.running_var", torch.rand(2) + 1),
             "momentum": None, "epsilon": None},
    "layers": [linear("layers.0", 2, 2), linear("layers.1", 2, 1, bias=False)],
    "half": p("half", torch.randn(2, 2).half()),
    "bhalf": p("bhalf", torch.randn(3).bfloat16()),
    "counts": tensor_data(torch.tensor([[1, -2], [3, 2**40]], dtype=torch.int64)),
    "small_ints": tensor_data(torch.tensor([-300, 7], dtype=torch.int16)),
    "mask": tensor_data(torch.tensor([True, False, True])),
    "scalar": tensor_data(torch.tensor(2.5)),
    "empty": tensor_data(torch.zeros(0, 4)),
    "epoch": 7,
    "lr": 0.5,
    "name": "tiny",
}
tensors["counts"] = torch.tensor([[1, -2], [3, 2**40]], dtype=torch.int64)
tensors["small_ints"] = torch.tensor([-300, 7], dtype=torch.int16)
tensors["mask"] = torch.tensor([True, False, True])
tensors["scalar"] = torch.tensor(2.5)
tensors["empty"] = torch.zeros(0, 4)
metadata = {"float": "f32", "int": "i64",
            "format": "burn::record::file::NamedMpkFileRecorder<burn::record::settings::FullPrecisionSettings>",
            "version": "0.18.0", "settings": "FullPrecisionSettings { }"}
record = pack({"metadata": metadata, "item": item})
with open(os.path.join(out, "model.mpk"), "wb") as f:
    f.write(record)
with open(os.path.join(out, "model.mpk.gz"), "wb") as f:
    f.write(gzip.compress(record, mtime=0))
expected = {"metadata": metadata, "ids": ids, "scalars": {"epoch": 7, "lr": 0.5, "name": "tiny"}, "tensors": {}}
for k, t in tensors.items():
    expected["tensors"][k] = {"dtype": DT[t.dtype], "shape": list(t.shape),
                              "values": t.double().flatten().tolist() if t.dtype != torch.bool else t.int().flatten().tolist()}
with open(os.path.join(out, "expected.json"), "w") as f:
    json.dump(expected, f, indent=1)

# Corrupt and hostile files.
with open(os.path.join(out, "truncated.mpk"), "wb") as f:
    f.write(record[: len(record) // 2])
with open(os.path.join(out, "truncated.mpk.gz"), "wb") as f:
    f.write(gzip.compress(record, mtime=0)[:60])
bad = {"metadata": metadata, "item": {"w": {"id": "1", "param": {"bytes": b"\0" * 8, "shape": [2], "dtype": "Q9"}}}}
with open(os.path.join(out, "bad_dtype.mpk"), "wb") as f:
    f.write(pack(bad))
bad = {"metadata": metadata, "item": {"w": {"id": "1", "param": {"bytes": b"\0" * 12, "shape": [2], "dtype": "F32"}}}}
with open(os.path.join(out, "size_mismatch.mpk"), "wb") as f:
    f.write(pack(bad))
bad = {"metadata": metadata, "item": {"w": {"id": "1", "param": {"bytes": b"", "shape": [2**62, 2**62], "dtype": "F32"}}}}
with open(os.path.join(out, "shape_overflow.mpk"), "wb") as f:
    f.write(pack(bad))
with open(os.path.join(out, "deep.mpk"), "wb") as f:  # 10000 nested arrays
    f.write(b"\x82\xa4item" + b"\x91" * 10000 + b"\xc0")
with open(os.path.join(out, "huge_array.mpk"), "wb") as f:  # claims 2^32-1 elements, has none
    f.write(b"\x81\xa4item\xdd\xff\xff\xff\xff")
with open(os.path.join(out, "no_item.mpk"), "wb") as f:
    f.write(pack({"metadata": metadata}))
with open(os.path.join(out, "old_format.mpk"), "wb") as f:  # Burn < 0.14: DataSerialize {value, shape}
    f.write(pack({"metadata": metadata, "item": {"w": {"id": "1", "param": {"value": [1.0, 2.0], "shape": [2]}}}}))
with open(os.path.join(out, "model.bpk"), "wb") as f:
    f.write(b"BURNPACK-not-supported")


# ---- burnpack (.bpk): Burn's burn-store format, written from its specification ----
def cbor(v):
    def head(major, n):
        if n < 24:
            return bytes([major << 5 | n])
        for lim, info, fmt in ((2**8, 24, ">B"), (2**16, 25, ">H"), (2**32, 26, ">I"), (2**64, 27, ">Q")):
            if n < lim:
                return bytes([major << 5 | info]) + struct.pack(fmt, n)
    if isinstance(v, bool):
        return b"\xf5" if v else b"\xf4"
    if v is None:
        return b"\xf6"
    if isinstance(v, int):
        return head(0, v) if v >= 0 else head(1, -1 - v)
    if isinstance(v, float):
        return b"\xfb" + struct.pack(">d", v)
    if isinstance(v, str):
        b = v.encode()
        return head(3, len(b)) + b
    if isinstance(v, (bytes, bytearray)):
        return head(2, len(v)) + bytes(v)
    if isinstance(v, (list, tuple)):
        return head(4, len(v)) + b"".join(cbor(x) for x in v)
    if isinstance(v, dict):
        return head(5, len(v)) + b"".join(cbor(k) + cbor(x) for k, x in v.items())
    raise TypeError(type(v))


def burnpack(named, meta, aligned=True):
    """named: [(name, tensor, param_id or None)], in the writer's order; the map is sorted (BTreeMap)."""
    desc, data, off = {}, b"", 0
    for name, t, pid in named:
        raw = tensor_data(t)["bytes"]
        start = (off + 255) // 256 * 256 if aligned else off
        data += b"\0" * (start - off) + raw
        d = {"dtype": DT[t.dtype], "shape": list(t.shape), "data_offsets": [start, start + len(raw)]}
        if pid is not None:
            d["param_id"] = pid
        desc[name] = d
        off = start + len(raw)
    m = cbor({"tensors": dict(sorted(desc.items())), "metadata": meta})
    pad = ((10 + len(m) + 255) // 256 * 256 - (10 + len(m))) if aligned else 0
    return struct.pack("<IHI", 0x4255524E, 1, len(m)) + m + b"\0" * pad + data


bp_named = [("linear.weight", tensors["linear.weight"], ids["linear.weight"]),
            ("linear.bias", tensors["linear.bias"], ids["linear.bias"]),
            ("norm.gamma", tensors["norm.gamma"], ids["norm.gamma"]),
            ("half", tensors["half"], None), ("small_ints", tensors["small_ints"], None),
            ("mask", tensors["mask"], None), ("scalar", tensors["scalar"], None), ("empty", tensors["empty"], None)]
bp_meta = {"format": "burnpack", "producer": "gen_fixtures_burn.py"}
whole = burnpack(bp_named, bp_meta)
with open(os.path.join(out, "model.bpk"), "wb") as f:
    f.write(whole)
with open(os.path.join(out, "unaligned.bpk"), "wb") as f:  # the first writers: no alignment
    f.write(burnpack(bp_named, bp_meta, aligned=False))
with open(os.path.join(out, "truncated.bpk"), "wb") as f:
    f.write(whole[:-10])
with open(os.path.join(out, "bad_magic.bpk"), "wb") as f:
    f.write(b"XXXX" + whole[4:])
with open(os.path.join(out, "metadata_too_long.bpk"), "wb") as f:
    f.write(whole[:6] + struct.pack("<I", len(whole)) + whole[10:])
with open(os.path.join(out, "huge_map.bpk"), "wb") as f:  # a map claiming 2^32-1 entries in 5 bytes
    f.write(struct.pack("<IHI", 0x4255524E, 1, 5) + b"\xba\xff\xff\xff\xff")
ov = cbor({"tensors": {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                       "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}})
with open(os.path.join(out, "overlap.bpk"), "wb") as f:
    f.write(struct.pack("<IHI", 0x4255524E, 1, len(ov)) + ov + b"\0" * 300)
