#!/usr/bin/python3
"""PyTorch values for burn-nn's optimizer and LR scheduler tests. Run with Debian's /usr/bin/python3
(torch 1.13); writes fixtures/optim.json and fixtures/lr.json.

The optimizer problem: w [4, 3] (Burn's Linear layout, [d_input, d_output]) and b [3], loss
mean((x w + b - y)^2); each case runs 20 steps of a torch.optim optimizer in float64 and records w
and b after every step. Adan has no torch version: its update is written out below from the paper /
the official code (sail-sg/Adan, no_prox), and the C++ rule is checked against that."""
import json, math, os
import torch

torch.manual_seed(20261125)
torch.set_default_dtype(torch.float64)

def t(x):
    return {"shape": list(x.shape), "values": x.detach().double().flatten().tolist()}

x = torch.randn(8, 4)
y = torch.randn(8, 3)
w0 = torch.randn(4, 3) * 0.5
b0 = torch.randn(3) * 0.5
STEPS = 20

def loss_of(w, b):
    return ((x @ w + b - y) ** 2).mean()

def run(make_opt, clip_norm=None):
    w = w0.clone().requires_grad_(True)
    b = b0.clone().requires_grad_(True)
    opt = make_opt(w, b)
    ws, bs = [], []
    for _ in range(STEPS):
        opt.zero_grad()
        loss_of(w, b).backward()
        if clip_norm is not None:
            torch.nn.utils.clip_grad_norm_([w, b], clip_norm)
        opt.step()
        ws.append(t(w))
        bs.append(t(b))
    return {"w": ws, "b": bs}

out = {"x": t(x), "y": t(y), "w0": t(w0), "b0": t(b0), "cases": {}}
cases = out["cases"]

def case(name, kind, config, lr, make_opt, **extra):
    c = {"optimizer": kind, "config": config, "lr": lr}
    c.update(run(make_opt, extra.get("clip_norm")))
    if "clip_norm" in extra:
        c["clip_norm"] = extra["clip_norm"]
    if "groups" in extra:
        c["groups"] = extra["groups"]
    cases[name] = c

O = torch.optim
case("sgd", "sgd", {}, 0.1, lambda w, b: O.SGD([w, b], lr=0.1))
case("sgd_momentum_dampening_wd", "sgd", {"momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01}, 0.05,
     lambda w, b: O.SGD([w, b], lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01))
case("sgd_nesterov", "sgd", {"momentum": 0.9, "nesterov": True, "weight_decay": 0.01}, 0.05,
     lambda w, b: O.SGD([w, b], lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01))
case("sgd_clip_norm", "sgd", {"momentum": 0.5, "grad_clip_norm": 0.3}, 0.1,
     lambda w, b: O.SGD([w, b], lr=0.1, momentum=0.5), clip_norm=0.3)
case("adam", "adam", {"epsilon": 1e-8}, 0.05, lambda w, b: O.Adam([w, b], lr=0.05, eps=1e-8))
case("adam_wd_amsgrad", "adam", {"epsilon": 1e-5, "weight_decay": 0.1, "amsgrad": True, "beta_1": 0.8}, 0.05,
     lambda w, b: O.Adam([w, b], lr=0.05, betas=(0.8, 0.999), eps=1e-5, weight_decay=0.1, amsgrad=True))
case("adamw", "adamw", {"epsilon": 1e-8, "weight_decay": 0.1}, 0.05,
     lambda w, b: O.AdamW([w, b], lr=0.05, eps=1e-8, weight_decay=0.1))
case("adagrad", "adagrad",
     {"lr_decay": 0.01, "weight_decay": 0.01, "initial_accumulator_value": 0.1, "epsilon": 1e-10}, 0.1,
     lambda w, b: O.Adagrad([w, b], lr=0.1, lr_decay=0.01, weight_decay=0.01, initial_accumulator_value=0.1,
                            eps=1e-10))
case("rmsprop", "rmsprop", {"alpha": 0.9, "epsilon": 1e-8}, 0.01,
     lambda w, b: O.RMSprop([w, b], lr=0.01, alpha=0.9, eps=1e-8))
case("rmsprop_centered_momentum", "rmsprop",
     {"centered": True, "momentum": 0.5, "weight_decay": 0.01, "epsilon": 1e-8}, 0.01,
     lambda w, b: O.RMSprop([w, b], lr=0.01, centered=True, momentum=0.5, weight_decay=0.01, eps=1e-8))
# Parameter groups: w at a tenth of the lr with its own weight decay, b with the optimizer's.
case("adam_groups", "adam", {"epsilon": 1e-8, "weight_decay": 0.01}, 0.05,
     lambda w, b: O.Adam([{"params": [w], "lr": 0.005, "weight_decay": 0.2}, {"params": [b]}],
                         lr=0.05, eps=1e-8, weight_decay=0.01),
     groups=[{"param": "w", "lr_scale": 0.1, "weight_decay": 0.2}])


class Adan(O.Optimizer):
    """The Adan update (Xie et al. 2022, Algorithm 1 as in the official code, no_prox: decoupled decay)."""
    def __init__(self, params, lr, betas=(0.98, 0.92, 0.99), eps=1e-8, weight_decay=0.0):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self):
        for g in self.param_groups:
            b1, b2, b3 = g["betas"]
            for p in g["params"]:
                st = self.state[p]
                grad = p.grad
                if not st:
                    st["step"] = 0
                    st["m"] = torch.zeros_like(p)
                    st["v"] = torch.zeros_like(p)
                    st["n"] = torch.zeros_like(p)
                    st["prev"] = grad.clone()
                st["step"] += 1
                k = st["step"]
                diff = grad - st["prev"]
                st["m"] = b1 * st["m"] + (1 - b1) * grad                            # m_k
                st["v"] = b2 * st["v"] + (1 - b2) * diff                            # v_k
                u = grad + b2 * diff
                st["n"] = b3 * st["n"] + (1 - b3) * u * u                           # n_k
                denom = st["n"].sqrt() / math.sqrt(1 - b3 ** k) + g["eps"]
                update = (st["m"] / (1 - b1 ** k) + b2 * st["v"] / (1 - b2 ** k)) / denom
                p.mul_(1 - g["lr"] * g["weight_decay"])
                p.add_(-g["lr"] * update)
                st["prev"] = grad.clone()

case("adan", "adan", {"weight_decay": 0.02}, 0.05, lambda w, b: Adan([w, b], lr=0.05, weight_decay=0.02))


# Muon (no torch 1.13 version): the `muon` package's muon_update, run on PyTorch's [out, in] layout
# (the transposes of Burn's Linear weights), on a two-layer problem so that both the scale
# sqrt(max(1, out / in)) and the tall case of the Newton-Schulz iteration are met; the bias trains
# with torch's AdamW, the group the C++ side gives its own rule.
def zeropower_via_newtonschulz5(G, steps):
    a, b, c = (3.4445, -4.7750, 2.0315)
    X = G.clone()
    if G.size(-2) > G.size(-1):
        X = X.mT
    X = X / (X.norm(dim=(-2, -1), keepdim=True) + 1e-7)
    for _ in range(steps):
        A = X @ X.mT
        B = b * A + c * A @ A
        X = a * X + B @ X
    if G.size(-2) > G.size(-1):
        X = X.mT
    return X

def muon_update(grad, momentum, beta=0.95, ns_steps=5, nesterov=True):
    momentum.lerp_(grad, 1 - beta)
    update = grad.lerp_(momentum, beta) if nesterov else momentum
    update = zeropower_via_newtonschulz5(update, steps=ns_steps)
    update *= max(1, grad.size(-2) / grad.size(-1)) ** 0.5
    return update

mx = torch.randn(8, 3)
my = torch.randn(8, 2)
m_w1 = torch.randn(3, 6) * 0.5   # Burn layout [d_input, d_output]
m_w2 = torch.randn(6, 2) * 0.5
m_b2 = torch.randn(2) * 0.5
def muon_loss(w1, w2, b2):
    return ((torch.tanh(mx @ w1) @ w2 + b2 - my) ** 2).mean()
w1, w2, b2 = (p.clone().requires_grad_(True) for p in (m_w1, m_w2, m_b2))
LR, WD = 0.02, 0.01
aux = O.AdamW([b2], lr=LR * 10, eps=1e-8, weight_decay=WD)
bufs = [torch.zeros(6, 3), torch.zeros(2, 6)]
rec = {"w1": [], "w2": [], "b2": []}
for _ in range(STEPS):
    for p in (w1, w2, b2):
        p.grad = None
    muon_loss(w1, w2, b2).backward()
    with torch.no_grad():
        for p, buf in zip((w1, w2), bufs):
            u = muon_update(p.grad.T.clone(), buf, beta=0.95, ns_steps=5, nesterov=True)  # [out, in]
            p.mul_(1 - LR * WD)
            p.add_(u.T, alpha=-LR)
    aux.step()
    for k, p in (("w1", w1), ("w2", w2), ("b2", b2)):
        rec[k].append(t(p))
out["muon"] = {"x": t(mx), "y": t(my), "w1": t(m_w1), "w2": t(m_w2), "b2": t(m_b2), "lr": LR,
               "weight_decay": WD, "bias_lr_scale": 10.0, "steps": rec}

# L-BFGS on the same two-layer problem (the closure re-evaluates it), with and without line search;
# history_size 3 in the first case so that the history wraps.
lbfgs = {}
for name, kw, calls in [("fixed_step", dict(lr=0.5, max_iter=5, history_size=3), 4),
                        ("strong_wolfe", dict(lr=1.0, max_iter=6, line_search_fn="strong_wolfe"), 3)]:
    w1, w2, b2 = (p.clone().requires_grad_(True) for p in (m_w1, m_w2, m_b2))
    opt = O.LBFGS([w1, w2, b2], **kw)
    def closure():
        opt.zero_grad()
        l = muon_loss(w1, w2, b2)
        l.backward()
        return l
    steps = []
    for _ in range(calls):
        loss = opt.step(closure)
        st = opt.state[w1]
        steps.append({"loss": float(loss), "w1": t(w1), "w2": t(w2), "b2": t(b2), "n_iter": st["n_iter"],
                      "func_evals": st["func_evals"]})
    cfg = dict(kw)
    if "line_search_fn" not in cfg:
        cfg["line_search_fn"] = ""
    lbfgs[name] = {"config": cfg, "steps": steps}
out["lbfgs"] = lbfgs

# Clipping alone: the gradients at w0, b0 clipped by norm (2 and inf) and by value.
w = w0.clone().requires_grad_(True)
b = b0.clone().requires_grad_(True)
loss_of(w, b).backward()
clips = {"grad_w": t(w.grad), "grad_b": t(b.grad)}
for name, fn in [("norm2", lambda ps: torch.nn.utils.clip_grad_norm_(ps, 0.5)),
                 ("norm_inf", lambda ps: torch.nn.utils.clip_grad_norm_(ps, 0.2, norm_type=float("inf"))),
                 ("norm3_no_clip", lambda ps: torch.nn.utils.clip_grad_norm_(ps, 100.0, norm_type=3.0)),
                 ("value", lambda ps: torch.nn.utils.clip_grad_value_(ps, 0.3))]:
    pw, pb = w.grad.clone(), b.grad.clone()
    ww = torch.zeros_like(w, requires_grad=True)
    bb = torch.zeros_like(b, requires_grad=True)
    ww.grad, bb.grad = pw, pb
    total = fn([ww, bb])
    clips[name] = {"w": t(ww.grad), "b": t(bb.grad), "total": None if total is None else float(total)}
out["clipping"] = clips

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "fixtures", "optim.json"), "w") as f:
    json.dump(out, f)

# LR schedulers: the lr of each of N steps (get_last_lr() before each scheduler.step()).
N = 40
def lrs(make_sched, base):
    p = torch.zeros(1, requires_grad=True)
    opt = O.SGD([p], lr=base)
    s = make_sched(opt)
    seq = []
    for _ in range(N):
        seq.append(s.get_last_lr()[0])
        opt.step()
        s.step()
    return seq

S = O.lr_scheduler
lr = {}
lr["linear"] = {"config": {"initial_lr": 0.1, "final_lr": 0.01, "num_iters": 25},
                "lrs": lrs(lambda o: S.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=25), 0.1)}
lr["step"] = {"config": {"initial_lr": 0.5, "step_size": 7, "gamma": 0.3},
              "lrs": lrs(lambda o: S.StepLR(o, step_size=7, gamma=0.3), 0.5)}
lr["exponential"] = {"config": {"initial_lr": 0.2, "gamma": 0.93},
                     "lrs": lrs(lambda o: S.ExponentialLR(o, gamma=0.93), 0.2)}
lr["cosine"] = {"config": {"initial_lr": 0.1, "min_lr": 0.001, "num_iters": 30},
                "lrs": lrs(lambda o: S.CosineAnnealingLR(o, T_max=30, eta_min=0.001), 0.1)}
lr["noam"] = {"config": {"init_lr": 2.0, "warmup_steps": 10, "model_size": 64},
              "lrs": lrs(lambda o: S.LambdaLR(o, lambda e: 64 ** -0.5 * min((e + 1) ** -0.5, (e + 1) * 10 ** -1.5)),
                         2.0)}
# Warm-up from 0.1x to 1x in 8 steps, then cosine to 0 over 30 steps.
lr["warmup_cosine"] = {"lrs": lrs(lambda o: S.SequentialLR(o, [S.LinearLR(o, start_factor=0.1, end_factor=1.0,
                                                                          total_iters=8),
                                                              S.CosineAnnealingLR(o, T_max=30, eta_min=0.0)],
                                                          milestones=[8]), 0.1)}
# Exponential decay times a step factor (torch ChainedScheduler).
lr["chained"] = {"lrs": lrs(lambda o: S.ChainedScheduler([S.ExponentialLR(o, gamma=0.95),
                                                          S.StepLR(o, step_size=10, gamma=0.5)]), 0.1)}
with open(os.path.join(here, "fixtures", "lr.json"), "w") as f:
    json.dump(lr, f, indent=0)
