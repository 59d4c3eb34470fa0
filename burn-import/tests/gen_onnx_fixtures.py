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
