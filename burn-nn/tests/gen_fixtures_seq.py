#!/usr/bin/python3
"""PyTorch values for burn-nn's sequence layers: MultiHeadAttention, PositionalEncoding,
RotaryEncoding, Lstm/Gru/Rnn (and bidirectional). Run with /usr/bin/python3; writes fixtures/seq.json.
Each case holds `params` as Burn's parameter paths in Burn's layout (Linear weights [in, out])."""
import json, math, os
import torch

torch.manual_seed(1125)
torch.set_default_dtype(torch.float64)
out = {}

def t(x):
    x = x.detach()
    if x.dtype == torch.bool:
        return {"shape": list(x.shape), "values": x.flatten().int().tolist()}
    return {"shape": list(x.shape), "values": x.double().flatten().tolist()}

def lin(params, path, w, b):
    params[path + ".weight"] = t(w.T)
    if b is not None:
        params[path + ".bias"] = t(b)

# MultiHeadAttention: PyTorch's packed in_proj is Burn's query, key and value Linears.
def mha_case(name, b, lq, lk, e, h, pad, attn):
    m = torch.nn.MultiheadAttention(e, h, batch_first=True)
    with torch.no_grad():  # non-zero biases, so the fixture checks them
        m.in_proj_bias.uniform_(-0.5, 0.5)
        m.out_proj.bias.uniform_(-0.5, 0.5)
    params = {}
    for i, p in enumerate(["query", "key", "value"]):
        lin(params, p, m.in_proj_weight[i * e:(i + 1) * e], m.in_proj_bias[i * e:(i + 1) * e])
    lin(params, "output", m.out_proj.weight, m.out_proj.bias)
    q = torch.randn(b, lq, e, requires_grad=True)
    k = torch.randn(b, lk, e)
    v = torch.randn(b, lk, e)
    kpm = am = None
    case = {"params": params, "n_heads": h, "query": t(q), "key": t(k), "value": t(v)}
    if pad:
        kpm = torch.zeros(b, lk, dtype=torch.bool)
        kpm[0, -2:] = True
        case["mask_pad"] = t(kpm)
    if attn:
        am3 = torch.triu(torch.ones(lq, lk, dtype=torch.bool), diagonal=1).expand(b, lq, lk)
        am = am3.repeat_interleave(h, dim=0)
        case["mask_attn"] = t(am3)
    y, w = m(q, k, v, key_padding_mask=kpm, attn_mask=am, need_weights=True, average_attn_weights=False)
    g = torch.randn_like(y)
    (y * g).sum().backward()
    case.update({"context": t(y), "weights": t(w), "grad_out": t(g), "grad_query": t(q.grad),
                 "grad_query_weight": t(m.in_proj_weight.grad[:e].T)})
    out[name] = case

mha_case("mha_self", 2, 5, 5, 8, 2, False, False)
mha_case("mha_masks", 2, 4, 6, 12, 3, True, True)

# Sinusoidal encoding (PyTorch tutorial / Burn) and rotary encoding (Burn's interleaved pairs).
x = torch.randn(2, 7, 6)
pos = torch.arange(7.0)[:, None]
div = torch.exp(torch.arange(0, 6, 2) * (-math.log(10000.0) / 6))
pe = torch.zeros(7, 6)
pe[:, 0::2] = torch.sin(pos * div)
pe[:, 1::2] = torch.cos(pos * div)
out["positional"] = {"x": t(x), "y": t(x + pe)}

def rope(x, start, theta=10000.0):
    d = x.shape[-1]
    p = torch.arange(start, start + x.shape[-2], dtype=torch.float64)[:, None]
    ang = p * theta ** (-2.0 * torch.arange(d // 2) / d)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    y = torch.empty_like(x)
    y[..., 0::2] = x0 * torch.cos(ang) - x1 * torch.sin(ang)
    y[..., 1::2] = x0 * torch.sin(ang) + x1 * torch.cos(ang)
    return y

x = torch.randn(2, 3, 5, 8)
out["rotary"] = {"x": t(x), "y": t(rope(x, 0)), "y_start3": t(rope(x, 3))}

# Recurrent layers: PyTorch's stacked gate weights split into Burn's GateControllers.
def gates(params, prefix, mod, suffix, names, hidden):
    wih, whh = getattr(mod, "weight_ih_l0" + suffix), getattr(mod, "weight_hh_l0" + suffix)
    bih, bhh = getattr(mod, "bias_ih_l0" + suffix), getattr(mod, "bias_hh_l0" + suffix)
    for i, n in enumerate(names):
        if n is None:
            continue
        s = slice(i * hidden, (i + 1) * hidden)
        lin(params, prefix + n + ".input_transform", wih[s], bih[s])
        lin(params, prefix + n + ".hidden_transform", whh[s], bhh[s])

def rnn_case(name, kind, bi, batch_first):
    b, steps, d_in, hid = 3, 4, 5, 6
    cls = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU, "rnn": torch.nn.RNN}[kind]
    m = cls(d_in, hid, batch_first=batch_first, bidirectional=bi)
    names = {"lstm": ["input_gate", "forget_gate", "cell_gate", "output_gate"],
             "gru": ["reset_gate", "update_gate", "new_gate"], "rnn": ["gate"]}[kind]
    params = {}
    dirs = [("forward_dir.", ""), ("reverse_dir.", "_reverse")] if bi else [("", "")]
    for prefix, suffix in dirs:
        gates(params, prefix, m, suffix, names, hid)
    x = torch.randn(*((b, steps) if batch_first else (steps, b)), d_in, requires_grad=True)
    y, state = m(x)
    g = torch.randn_like(y)
    (y * g).sum().backward()
    case = {"params": params, "x": t(x), "y": t(y), "grad_out": t(g), "grad_x": t(x.grad)}
    if kind == "lstm":
        case["hidden"], case["cell"] = t(state[0]), t(state[1])
    else:
        case["hidden"] = t(state)
    first = (dirs[0][0] + names[0]) + ".input_transform.weight"
    case["grad_first_weight"] = t(getattr(m, "weight_ih_l0").grad[:hid].T)
    case["first_weight_path"] = first
    out[name] = case

rnn_case("lstm", "lstm", False, True)
rnn_case("bilstm", "lstm", True, True)
rnn_case("gru_time_major", "gru", False, False)
rnn_case("bigru", "gru", True, True)
rnn_case("rnn", "rnn", False, True)
rnn_case("birnn", "rnn", True, True)

# Transformer encoder and decoder (dropout 0, train mode so PyTorch takes its plain path).
def mha_params(params, prefix, m, e):
    for i, p in enumerate(["query", "key", "value"]):
        lin(params, prefix + p, m.in_proj_weight[i * e:(i + 1) * e], m.in_proj_bias[i * e:(i + 1) * e])
    lin(params, prefix + "output", m.out_proj.weight, m.out_proj.bias)

def norm_params(params, prefix, n):
    params[prefix + ".gamma"] = t(n.weight)
    params[prefix + ".beta"] = t(n.bias)

def randomize_norms(mod):
    with torch.no_grad():
        for n in mod.modules():
            if isinstance(n, torch.nn.LayerNorm):
                n.weight.uniform_(0.5, 1.5)
                n.bias.uniform_(-0.5, 0.5)

def encoder_case(name, norm_first, activation):
    e, h, ff, n_layers, b, L = 8, 2, 16, 2, 2, 5
    layer = torch.nn.TransformerEncoderLayer(e, h, ff, dropout=0.0, activation=activation, batch_first=True,
                                             norm_first=norm_first)
    enc = torch.nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
    randomize_norms(enc)
    enc.train()
    params = {}
    for i, l in enumerate(enc.layers):
        p = f"layers.{i}."
        mha_params(params, p + "mha.", l.self_attn, e)
        lin(params, p + "pwff.linear_inner", l.linear1.weight, l.linear1.bias)
        lin(params, p + "pwff.linear_outer", l.linear2.weight, l.linear2.bias)
        norm_params(params, p + "norm_1", l.norm1)
        norm_params(params, p + "norm_2", l.norm2)
    x = torch.randn(b, L, e, requires_grad=True)
    pad = torch.zeros(b, L, dtype=torch.bool)
    pad[1, -1] = True
    causal = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)
    y = enc(x, mask=causal, src_key_padding_mask=pad)
    g = torch.randn_like(y)
    (y * g).sum().backward()
    out[name] = {"params": params, "n_heads": h, "d_ff": ff, "n_layers": n_layers, "x": t(x), "mask_pad": t(pad),
                 "mask_attn": t(causal.expand(b, L, L)), "y": t(y), "grad_out": t(g), "grad_x": t(x.grad)}

encoder_case("encoder_post_relu", False, "relu")
encoder_case("encoder_pre_gelu", True, "gelu")

def decoder_case(name, norm_first):
    e, h, ff, n_layers, b, lt, lm = 8, 2, 16, 2, 2, 4, 6
    layer = torch.nn.TransformerDecoderLayer(e, h, ff, dropout=0.0, activation="relu", batch_first=True,
                                             norm_first=norm_first)
    dec = torch.nn.TransformerDecoder(layer, n_layers)
    randomize_norms(dec)
    params = {}
    for i, l in enumerate(dec.layers):
        p = f"layers.{i}."
        mha_params(params, p + "self_attn.", l.self_attn, e)
        mha_params(params, p + "cross_attn.", l.multihead_attn, e)
        lin(params, p + "pwff.linear_inner", l.linear1.weight, l.linear1.bias)
        lin(params, p + "pwff.linear_outer", l.linear2.weight, l.linear2.bias)
        for k in (1, 2, 3):
            norm_params(params, p + f"norm_{k}", getattr(l, f"norm{k}"))
    tgt = torch.randn(b, lt, e, requires_grad=True)
    mem = torch.randn(b, lm, e, requires_grad=True)
    causal = torch.triu(torch.ones(lt, lt, dtype=torch.bool), diagonal=1)
    mpad = torch.zeros(b, lm, dtype=torch.bool)
    mpad[0, -2:] = True
    y = dec(tgt, mem, tgt_mask=causal, memory_key_padding_mask=mpad)
    g = torch.randn_like(y)
    (y * g).sum().backward()
    out[name] = {"params": params, "n_heads": h, "d_ff": ff, "n_layers": n_layers, "target": t(tgt), "memory": t(mem),
                 "target_mask_attn": t(causal.expand(b, lt, lt)), "memory_mask_pad": t(mpad), "y": t(y),
                 "grad_out": t(g), "grad_target": t(tgt.grad), "grad_memory": t(mem.grad)}

decoder_case("decoder_post", False)
decoder_case("decoder_pre", True)

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "fixtures", "seq.json"), "w") as f:
    json.dump(out, f)
