# Makes burn-import/tests/fixtures/onnx/: a tiny conv net exported by torch.onnx.export (opset 13)
# and the PyTorch values an imported copy must reproduce: the output for a fixed input and the
# gradients of loss = sum(out * w_out) with respect to every initializer. Run with /usr/bin/python3.
import json
import os

import torch

torch.manual_seed(0)
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "onnx")
os.makedirs(here, exist_ok=True)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 3, 3, padding=1)
        self.fc1 = torch.nn.Linear(3 * 2 * 2, 5)
        self.fc2 = torch.nn.Linear(5, 4)

    def forward(self, x):
        y = torch.nn.functional.max_pool2d(torch.relu(self.conv(x)), 2)
        y = torch.flatten(y, 1)
        return self.fc2(torch.tanh(self.fc1(y)))


net = Net().double().eval()
x = torch.randn(2, 2, 4, 4, dtype=torch.float64)
w_out = torch.randn(2, 4, dtype=torch.float64)
net_f = Net().eval()
net_f.load_state_dict({k: v.float() for k, v in net.state_dict().items()})
torch.onnx.export(net_f, x.float(), os.path.join(here, "convnet.onnx"), opset_version=13,
                  input_names=["x"], output_names=["y"], do_constant_folding=False)

out = net(x)
loss = (out * w_out).sum()
loss.backward()
fix = {
    "x": {"shape": list(x.shape), "values": x.flatten().tolist()},
    "w_out": {"shape": list(w_out.shape), "values": w_out.flatten().tolist()},
    "y": {"shape": list(out.shape), "values": out.detach().flatten().tolist()},
    "grads": {n: {"shape": list(p.grad.shape), "values": p.grad.flatten().tolist()} for n, p in net.named_parameters()},
}
with open(os.path.join(here, "convnet.json"), "w") as f:
    json.dump(fix, f)
print("wrote", here)

# initializers.onnx: one initializer per element type, stored as raw bytes and in the typed fields,
# with dotted names, a 0-d and an empty tensor: the importer's record path (and its fuzzer's seed).
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)
kinds = [
    ("float32", TensorProto.FLOAT, np.float32), ("float64", TensorProto.DOUBLE, np.float64),
    ("float16", TensorProto.FLOAT16, np.float16), ("int64", TensorProto.INT64, np.int64),
    ("int32", TensorProto.INT32, np.int32), ("int16", TensorProto.INT16, np.int16),
    ("int8", TensorProto.INT8, np.int8), ("uint8", TensorProto.UINT8, np.uint8),
    ("uint16", TensorProto.UINT16, np.uint16), ("uint32", TensorProto.UINT32, np.uint32),
    ("bool", TensorProto.BOOL, np.bool_),
]
inits, expected = [], {}
for name, code, np_type in kinds:
    if np_type is np.bool_:
        a = rng.integers(0, 2, size=(2, 3)).astype(np.bool_)
    elif np.issubdtype(np_type, np.floating):
        a = rng.standard_normal((2, 3)).astype(np_type)
    else:
        info = np.iinfo(np_type)
        a = rng.integers(max(info.min, -1000), min(info.max, 1000), size=(2, 3)).astype(np_type)
    raw = numpy_helper.from_array(a, "raw." + name)  # raw_data
    # make_tensor stores float16 values as their bit patterns in int32_data itself
    typed = helper.make_tensor("typed." + name, code, a.shape, a.flatten().tolist())
    inits += [raw, typed]
    expected[name] = {"shape": list(a.shape), "values": a.astype(np.float64).flatten().tolist()}
inits.append(numpy_helper.from_array(np.array(3.5, dtype=np.float32), "scalar"))
inits.append(numpy_helper.from_array(np.zeros((0, 4), dtype=np.float32), "empty"))
graph = helper.make_graph([helper.make_node("Identity", ["scalar"], ["y"])], "initializers", [],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])], initializer=inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="gen_onnx_fixtures")
onnx.checker.check_model(model)
onnx.save(model, os.path.join(here, "initializers.onnx"))
with open(os.path.join(here, "initializers.json"), "w") as f:
    json.dump(expected, f)
