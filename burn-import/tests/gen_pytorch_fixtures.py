#!/usr/bin/python3
"""Writes the pytorch importer's fixtures (burn-import/tests/fixtures/pytorch/) with torch 1.13:
every dtype, shared storages and strided views, 0-d and empty tensors, a nested checkpoint, in the
zip and legacy layouts, a big-endian archive, hostile files (a pickled nn.Module, an os.system
payload, pickle bombs) and damaged ones (missing or short storages, views outside their storage).
expected.json holds every tensor's dtype, shape and values. Run: /usr/bin/python3 gen_pytorch_fixtures.py
"""
import collections
import io
import json
import os
import pickle
import struct
import zipfile

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "pytorch")
expected = {}


def record(file, prefix, obj):
    """Expected entries of obj (dicts/lists/tuples flattened with '.'), for the test to compare."""
    out = expected.setdefault(file, {})

    def walk(p, v):
        if isinstance(v, torch.Tensor):
            vals = v.detach().to(torch.float64).flatten().tolist() if v.dtype != torch.bool else \
                v.flatten().to(torch.float64).tolist()
            out[p] = {"dtype": str(v.dtype).replace("torch.", ""), "shape": list(v.shape), "values": vals}
        elif isinstance(v, dict):
            for k, x in v.items():
                walk(f"{p}.{k}" if p else str(k), x)
        elif isinstance(v, (list, tuple)):
            for i, x in enumerate(v):
                walk(f"{p}.{i}" if p else str(i), x)
        elif isinstance(v, bool):
            out[p] = {"bool": v}
        elif isinstance(v, int):
            out[p] = {"int": v}
        elif isinstance(v, float):
            out[p] = {"float": v}
        elif isinstance(v, str):
            out[p] = {"str": v}

    walk(prefix, obj)


def save(name, obj, legacy=False, protocol=2, expect=True):
    path = os.path.join(OUT, name)
    torch.save(obj, path, _use_new_zipfile_serialization=not legacy, pickle_protocol=protocol)
    if expect:
        record(name, "", obj)


def dtypes():
    # Values exact in every dtype (small integers; halves for the float types).
    base = torch.tensor([[0, 1, 2], [3, 4, 5]])
    return collections.OrderedDict(
        f64=base.double() / 2 - 1, f32=base.float() / 2 - 1, f16=base.half() / 2 - 1,
        bf16=base.bfloat16() / 2 - 1, i64=base.long() * 1000000007 - 3, i32=base.int() * 1000 - 2000,
        i16=base.short() * 300 - 1000, i8=base.to(torch.int8) * 20 - 60, u8=base.to(torch.uint8) * 50,
        bool=base % 2 == 1)


def views():
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    short = torch.arange(12, dtype=torch.int16).reshape(3, 4) - 5
    return collections.OrderedDict(
        base=base,                  # the shared storage, contiguous
        cols=base[:, 1::2],         # strided columns
        t=base.t(),                 # transposed
        row=base[2],                # contiguous, at an offset
        block=base[1:3, 2:5],       # offset and row stride
        expand=torch.arange(3.0).expand(4, 3),  # stride 0
        scalar=torch.tensor(3.5),   # 0-d
        item=base[3, 4],            # 0-d view at an offset
        empty=torch.zeros(0, 3),    # no elements
        empty_view=base[2:2],       # no elements, at an offset
        short_t=short.t(),          # i16 (widened to i32), strided
        half_cols=base.half()[:, ::3],
    )


def checkpoint():
    torch.manual_seed(0)
    model = torch.nn.Sequential(collections.OrderedDict(
        layer1=torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4)),
        head=torch.nn.Linear(4, 2)))
    for p in model.parameters():  # exact values: multiples of 1/8
        p.data = torch.round(p.data * 8) / 8
    model(torch.randn(5, 3)).sum().backward()
    opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    opt.step()
    for s in opt.state.values():
        s["momentum_buffer"] = torch.round(s["momentum_buffer"] * 8) / 8
    return {"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 7, "loss": 0.25,
            "name": "run-1", "done": True, "nothing": None, "pair": (torch.ones(2), torch.arange(3)),
            "blob": b"\x00\x01", "big": 2**40, "neg": -5}


class FakeStorage:
    def __init__(self, key, numel, type_=torch.FloatStorage):
        self.key, self.numel, self.type = key, numel, type_


class FakeTensor:
    """Pickles as torch's tensors do, with any storage/offset/size/stride (for damaged files)."""

    def __init__(self, storage, offset, size, stride):
        self.args = (storage, offset, tuple(size), tuple(stride), False, collections.OrderedDict())

    def __reduce__(self):
        return (torch._utils._rebuild_tensor_v2, self.args)


class FakePickler(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, FakeStorage):
            view = getattr(obj, "view", None)
            return ("storage", obj.type, obj.key, "cpu", obj.numel) + ((view,) if view else ())
        return None


def craft_legacy(name, obj, storages):
    """A legacy-layout file (magic, protocol, sys info, pickle, keys, storages) with a hand-made pickle;
    storages: key -> (element count, bytes). Old torch wrote storage views as a 6th persistent-id item."""
    with open(os.path.join(OUT, name), "wb") as f:
        for header in (0x1950a86a20f9469cfc6c, 1001, {"protocol_version": 1001, "little_endian": True}):
            pickle.dump(header, f, protocol=2)
        FakePickler(f, protocol=2).dump(obj)
        pickle.dump(sorted(storages), f, protocol=2)
        for key in sorted(storages):
            count, data = storages[key]
            f.write(struct.pack("<q", count) + data)


def craft(name, obj=None, storages=None, pkl=None, extra=None):
    """A zip in torch's layout with a hand-made pickle and storages (bytes per key)."""
    if pkl is None:
        buf = io.BytesIO()
        FakePickler(buf, protocol=2).dump(obj)
        pkl = buf.getvalue()
    with zipfile.ZipFile(os.path.join(OUT, name), "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", pkl)
        for key, data in (storages or {}).items():
            z.writestr(f"archive/data/{key}", data)
        for n, data in (extra or {}).items():
            z.writestr(n, data)
        z.writestr("archive/version", "3\n")


class Evil:
    def __reduce__(self):
        return (os.system, ("touch /tmp/burn-import-pwned-marker",))


def big_endian():
    """The dtypes file re-written as a big-endian machine's torch would: byteorder "big", storages swapped."""
    src = zipfile.ZipFile(os.path.join(OUT, "dtypes_zip.pt"))
    with zipfile.ZipFile(os.path.join(OUT, "big_endian.pt"), "w", zipfile.ZIP_STORED) as z:
        pkl = src.read("dtypes_zip/data.pkl")
        z.writestr("archive/data.pkl", pkl)
        sizes = {}
        # Element size per storage key, from the tensors in order (keys are 0..9 in dtypes() order).
        for key, t in enumerate(dtypes().values()):
            sizes[str(key)] = t.element_size()
        for n in src.namelist():
            if n.startswith("dtypes_zip/data/"):
                key = n.rsplit("/", 1)[1]
                data = src.read(n)
                w = sizes[key]
                z.writestr(f"archive/data/{key}", b"".join(data[i:i + w][::-1] for i in range(0, len(data), w)))
        z.writestr("archive/version", "3\n")
        z.writestr("archive/byteorder", "big")
    record("big_endian.pt", "", dtypes())


def main():
    os.makedirs(OUT, exist_ok=True)
    expected.clear()
    save("dtypes_zip.pt", dtypes())
    save("dtypes_legacy.pt", dtypes(), legacy=True)
    save("views_zip.pt", views())
    save("views_legacy.pt", views(), legacy=True)
    save("views_p4.pt", views(), protocol=4)
    save("views_p5.pt", views(), protocol=5)
    save("checkpoint.pt", checkpoint())
    save("tensor_only.pt", torch.arange(5, dtype=torch.int64) * 3, expect=False)
    record("tensor_only.pt", "tensor", torch.arange(5, dtype=torch.int64) * 3)
    big_endian()
    # The same archive with deflated entries (not what torch writes, read through libzip).
    src = zipfile.ZipFile(os.path.join(OUT, "views_zip.pt"))
    with zipfile.ZipFile(os.path.join(OUT, "views_deflated.pt"), "w", zipfile.ZIP_DEFLATED) as z:
        for n in src.namelist():
            z.writestr(n, src.read(n))
    record("views_deflated.pt", "", views())
    # Hostile files: refused, never executed.
    save("module.pt", torch.nn.Linear(2, 2), expect=False)
    save("os_system.pt", {"weight": torch.ones(2), "payload": Evil()}, expect=False)
    save("os_system_legacy.pt", {"weight": torch.ones(2), "payload": Evil()}, legacy=True, expect=False)
    # Billion laughs: 30 nested lists of 10 references to the previous one (10^30 leaves).
    bomb = b"\x80\x02]q\x000" + b"".join([b"(" + b"h\x00" * 10 + b"lq\x000"] * 30) + b"h\x00."
    craft("billion_laughs.pt", pkl=bomb)
    # {"a": L} with L.append(L): a cycle, cut at burn's nesting limit.
    craft("cycle.pt", pkl=b"\x80\x02}(X\x01\x00\x00\x00a]q\x01h\x01au.")
    # Damaged files.
    f32 = struct.pack("<10f", *range(10))
    craft("missing_storage.pt", {"w": FakeTensor(FakeStorage("7", 10), 0, [10], [1])}, {"0": f32})
    craft("short_storage.pt", {"w": FakeTensor(FakeStorage("0", 10), 0, [10], [1])}, {"0": f32[:20]})
    craft("view_outside.pt", {"w": FakeTensor(FakeStorage("0", 10), 2, [3, 3], [3, 1])}, {"0": f32})
    craft("negative_stride.pt", {"w": FakeTensor(FakeStorage("0", 10), 9, [10], [-1])}, {"0": f32})
    craft("absurd_size.pt", {"w": FakeTensor(FakeStorage("0", 10), 0, [2**40, 2**40], [1, 1])}, {"0": f32})
    craft("broadcast_huge.pt", {"w": FakeTensor(FakeStorage("0", 10), 0, [2**50], [0])}, {"0": f32})
    craft("complex_storage.pt", {"w": FakeTensor(FakeStorage("0", 5, torch.ComplexFloatStorage), 0, [5], [1])},
          {"0": f32})
    # Legacy storage views: elements [3, 9) of storage "s", viewed as 2x3 from its element 0.
    view = FakeStorage("s", 10)
    view.view = ("v", 3, 6)
    craft_legacy("legacy_storage_view.pt", {"w": FakeTensor(view, 0, [2, 3], [3, 1])},
                 {"s": (10, struct.pack("<10f", *range(10)))})
    record("legacy_storage_view.pt", "", {"w": torch.arange(3.0, 9.0).reshape(2, 3)})
    craft("good_crafted.pt", {"w": FakeTensor(FakeStorage("0", 10), 1, [2, 2], [4, 2])}, {"0": f32})
    record("good_crafted.pt", "", {"w": torch.tensor([[1.0, 3.0], [5.0, 7.0]])})
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
