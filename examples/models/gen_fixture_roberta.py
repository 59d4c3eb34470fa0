#!/usr/bin/python3
"""Fixtures of the RoBERTa test (roberta_test.cpp), from a plain-PyTorch twin of Hugging Face's RobertaModel.

Debian has no `transformers`, so RobertaModel's forward (transformers 4.2x, eager attention) is written
here with torch.nn modules under Hugging Face's module and parameter names: embeddings (word, position
and token type embeddings summed, LayerNorm, dropout; position ids padding_idx + 1 + the running count
of non-pad tokens, padding_idx for a pad token), encoder.layer.N (self attention with the additive
mask (1 - attention_mask) * finfo.min, attention.output dense + dropout + LayerNorm of the residual
sum, intermediate dense + exact (erf) gelu, output dense + dropout + LayerNorm), and pooler (dense
then tanh on the first token). Its state dict holds no buffers (transformers >= 4.31 registers
position_ids and token_type_ids as non-persistent).

fixture_roberta.json: a small config (vocab 100, hidden 32, 2 layers, 4 heads, intermediate 64, max
positions 16, type vocab 1) in f64 with deterministic parameters: parameter k of the state dict (in
order), element j in PyTorch's layout, with s = sin(2.1 * j + 0.001 * j^2 + 0.7 * k + 0.3) (the j^2
term keeps a weight matrix from being rank 2): embedding tables s, Linear weights s * 1.5 / sqrt(in),
LayerNorm weights 1 + 0.5 * s, biases 0.05 * s. Two sequences of 7 tokens, the second padded with
pad id 1 after 4 tokens, attention mask = ids != 1 (given, as a tokenizer gives it). It holds the
state dict's names and shapes, the position ids, the eval-mode last hidden state and pooler output,
and the gradients of a fixed loss for layer 0's query weight and the word and position tables.

fixture_roberta_graph.onnx: that small network exported by torch.onnx.export (opset 13) without its
weights: every parameter is a graph input named as in the state dict (the test feeds the formula's
values), so the file holds the graph only (about 40 KB).

roberta_base_names.json: the full-size roberta-base twin's state dict names, dtypes and shapes in
order (its 500 MB of weights are never committed), for the test that burn's RoBERTa-base has them.

Run with Debian's /usr/bin/python3."""
import json, math, os
import torch
from torch import nn
import torch.nn.functional as F

here = os.path.dirname(os.path.abspath(__file__))


class Config:
    def __init__(self, vocab_size=50265, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                 intermediate_size=3072, max_position_embeddings=514, type_vocab_size=1, pad_token_id=1,
                 layer_norm_eps=1e-5, dropout=0.1):
        self.__dict__.update(locals())
        del self.__dict__["self"]


class RobertaEmbeddings(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.word_embeddings = nn.Embedding(c.vocab_size, c.hidden_size, padding_idx=c.pad_token_id)
        self.position_embeddings = nn.Embedding(c.max_position_embeddings, c.hidden_size, padding_idx=c.pad_token_id)
        self.token_type_embeddings = nn.Embedding(c.type_vocab_size, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)
        self.dropout = nn.Dropout(c.dropout)
        self.padding_idx = c.pad_token_id

    def forward(self, input_ids):
        position_ids = position_ids_of(input_ids, self.padding_idx)
        token_type_ids = torch.zeros_like(input_ids)
        e = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        e = e + self.position_embeddings(position_ids)
        return self.dropout(self.LayerNorm(e))


def position_ids_of(input_ids, padding_idx):
    """transformers' create_position_ids_from_input_ids."""
    mask = input_ids.ne(padding_idx).int()
    return (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + padding_idx


class RobertaSelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.heads, self.head_size = c.num_attention_heads, c.hidden_size // c.num_attention_heads
        self.query = nn.Linear(c.hidden_size, c.hidden_size)
        self.key = nn.Linear(c.hidden_size, c.hidden_size)
        self.value = nn.Linear(c.hidden_size, c.hidden_size)
        self.dropout = nn.Dropout(c.dropout)

    def split(self, x):
        return x.view(x.shape[0], x.shape[1], self.heads, self.head_size).permute(0, 2, 1, 3)

    def forward(self, h, extended_mask):
        q, k, v = self.split(self.query(h)), self.split(self.key(h)), self.split(self.value(h))
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_size) + extended_mask
        ctx = self.dropout(scores.softmax(-1)) @ v
        return ctx.permute(0, 2, 1, 3).reshape(h.shape)


class DenseLayerNorm(nn.Module):
    """RobertaSelfOutput and RobertaOutput: LayerNorm(dropout(dense(h)) + input)."""

    def __init__(self, c, d_in):
        super().__init__()
        self.dense = nn.Linear(d_in, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)
        self.dropout = nn.Dropout(c.dropout)

    def forward(self, h, x):
        return self.LayerNorm(self.dropout(self.dense(h)) + x)


class RobertaAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self = RobertaSelfAttention(c)
        self.output = DenseLayerNorm(c, c.hidden_size)


class RobertaIntermediate(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.intermediate_size)


class RobertaLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.attention = RobertaAttention(c)
        self.intermediate = RobertaIntermediate(c)
        self.output = DenseLayerNorm(c, c.intermediate_size)

    def forward(self, x, extended_mask):
        a = self.attention.output(self.attention.self(x, extended_mask), x)
        return self.output(F.gelu(self.intermediate.dense(a)), a)


class RobertaEncoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.layer = nn.ModuleList([RobertaLayer(c) for _ in range(c.num_hidden_layers)])


class RobertaPooler(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.hidden_size)


class RobertaModel(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embeddings = RobertaEmbeddings(c)
        self.encoder = RobertaEncoder(c)
        self.pooler = RobertaPooler(c)

    def forward(self, input_ids, attention_mask=None):
        if attention_mask is None:  # transformers' default: every position attends everywhere
            attention_mask = torch.ones_like(input_ids)
        h = self.embeddings(input_ids)
        extended = (1.0 - attention_mask[:, None, None, :].to(h.dtype)) * torch.finfo(h.dtype).min
        for layer in self.encoder.layer:
            h = layer(h, extended)
        return h, torch.tanh(self.pooler.dense(h[:, 0]))


def value(name, t, k):
    j = torch.arange(t.numel(), dtype=torch.float64)
    s = torch.sin(2.1 * j + 0.001 * j * j + 0.7 * k + 0.3)
    if name.endswith("embeddings.weight"):
        return s
    if t.dim() == 2:  # a Linear's [out, in]
        return s * 1.5 / math.sqrt(t.shape[1])
    if name.endswith("LayerNorm.weight"):
        return 1 + 0.5 * s
    return 0.05 * s


def names(m):
    return [{"name": k, "dtype": str(v.dtype).replace("torch.", ""), "shape": list(v.shape)}
            for k, v in m.state_dict().items()]


def values(y):
    return {"shape": list(y.shape), "values": y.flatten().tolist()}


if __name__ == "__main__":
    small = dict(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                 max_position_embeddings=16, type_vocab_size=1)
    m = RobertaModel(Config(**small)).double().eval()
    with torch.no_grad():
        for k, (name, t) in enumerate(m.state_dict().items()):
            t.copy_(value(name, t, k).reshape(t.shape))
    ids = torch.tensor([[0, 31, 47, 5, 88, 12, 2], [0, 64, 9, 2, 1, 1, 1]])
    mask = ids.ne(1).long()
    with torch.no_grad():
        h, pooled = m(ids, mask)
    # The gradient of sum(h * cos(0.1 * j)) + sum(pooled) (j: the element of h in row-major order) for
    # layer 0's query weight and the word and position tables (no gradient in their padding rows), dropout
    # off as in eval.
    h2, pooled2 = m(ids, mask)
    loss = (h2 * torch.cos(0.1 * torch.arange(h2.numel(), dtype=torch.float64)).reshape(h2.shape)).sum() + pooled2.sum()
    loss.backward()
    grads = {"encoder.layer.0.attention.self.query.weight": values(m.encoder.layer[0].attention.self.query.weight.grad),
             "embeddings.word_embeddings.weight": values(m.embeddings.word_embeddings.weight.grad),
             "embeddings.position_embeddings.weight": values(m.embeddings.position_embeddings.weight.grad)}
    with open(os.path.join(here, "fixture_roberta.json"), "w") as f:
        json.dump({"config": small, "input_ids": values(ids), "attention_mask": values(mask),
                   "position_ids": values(position_ids_of(ids, 1)), "state_dict": names(m),
                   "num_params": sum(p.numel() for p in m.parameters()), "last_hidden_state": values(h),
                   "pooler_output": values(pooled), "loss": loss.item(), "grads": grads}, f)
    print("small RoBERTa: last hidden state", h[1, 4, :4].tolist(), "pooled", pooled[:, :4].tolist())

    # The same network as ONNX without its weights (export_params=False: each parameter a graph input
    # named as in the state dict; exported after the fill, since torch merges inputs of equal values).
    torch.onnx.export(m.float(), (ids, mask), os.path.join(here, "fixture_roberta_graph.onnx"),
                      input_names=["input_ids", "attention_mask"], output_names=["last_hidden_state", "pooler_output"],
                      dynamic_axes={"input_ids": {0: "batch", 1: "length"}, "attention_mask": {0: "batch", 1: "length"}},
                      opset_version=13, export_params=False, do_constant_folding=False)

    m = RobertaModel(Config())
    with open(os.path.join(here, "roberta_base_names.json"), "w") as f:
        json.dump({"num_params": sum(p.numel() for p in m.parameters()), "state_dict": names(m)}, f)
    print("roberta-base parameters:", sum(p.numel() for p in m.parameters()))
