#!/usr/bin/python3
"""Side-by-side reference for `troupe bench engine`: one training step (forward + backward +
AdamW) of the standard benchmark model in PyTorch CPU, same shapes as Troupe's engine.

  apt-get install python3-torch libopenblas0-pthread    # Debian's PyTorch 1.13 CPU + OpenBLAS
  /usr/bin/python3 bench/torch-train-step.py [--threads 2] [--json]

A benchmark, not a dependency: Troupe never imports it.
"""
import argparse, json, math, statistics, time
import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Block(nn.Module):
    def __init__(self, hidden, heads, inter):
        super().__init__()
        self.heads, self.hd = heads, hidden // heads
        self.input_layernorm = RMSNorm(hidden)
        self.q = nn.Linear(hidden, hidden, bias=False)
        self.k = nn.Linear(hidden, hidden, bias=False)
        self.v = nn.Linear(hidden, hidden, bias=False)
        self.o = nn.Linear(hidden, hidden, bias=False)
        self.post_attention_layernorm = RMSNorm(hidden)
        self.gate = nn.Linear(hidden, inter, bias=False)
        self.up = nn.Linear(hidden, inter, bias=False)
        self.down = nn.Linear(inter, hidden, bias=False)

    def forward(self, x, cos, sin, mask):
        B, T, C = x.shape
        h = self.input_layernorm(x)
        q = self.q(h).view(B, T, self.heads, self.hd).transpose(1, 2)  # (B, nh, T, hd)
        k = self.k(h).view(B, T, self.heads, self.hd).transpose(1, 2)
        v = self.v(h).view(B, T, self.heads, self.hd).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        att = (q @ k.transpose(-2, -1)) / math.sqrt(self.hd)  # (B, nh, T, T)
        att = att.masked_fill(mask, float('-inf')).softmax(-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        x = x + self.o(y)
        h = self.post_attention_layernorm(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class Model(nn.Module):
    def __init__(self, vocab, hidden, layers, heads, inter, context):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.layers = nn.ModuleList(Block(hidden, heads, inter) for _ in range(layers))
        self.norm = RMSNorm(hidden)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)
        hd = hidden // heads
        inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        ang = torch.outer(torch.arange(context).float(), inv)
        ang = torch.cat((ang, ang), dim=-1)
        self.register_buffer('cos', ang.cos())
        self.register_buffer('sin', ang.sin())
        self.register_buffer('mask', torch.triu(torch.ones(context, context, dtype=torch.bool), 1))

    def forward(self, ids):
        T = ids.shape[1]
        x = self.embed(ids)
        for layer in self.layers:
            x = layer(x, self.cos[:T], self.sin[:T], self.mask[:T, :T])
        return self.lm_head(self.norm(x))


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--threads', type=int, default=2)
    p.add_argument('--steps', type=int, default=10)
    p.add_argument('--json', action='store_true')
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    vocab, hidden, layers, heads, inter, context, batch = 64, 256, 4, 4, 1024, 128, 16
    model = Model(vocab, hidden, layers, heads, inter, context)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    ids = torch.randint(0, vocab, (batch, context + 1))
    times, cpu = [], []
    for step in range(a.steps + 2):
        t0 = time.perf_counter()
        c0 = time.process_time()
        logits = model(ids[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, vocab), ids[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step >= 2:
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
    params = sum(p.numel() for p in model.parameters())
    result = {'torch_version': torch.__version__, 'threads': a.threads, 'params': params,
              'train_step_ms': statistics.median(times), 'min_ms': min(times), 'max_ms': max(times),
              # CPU time of all threads per step: on a busy machine, the 1-thread figure is
              # close to what the step takes on an idle one
              'cpu_ms': statistics.median(cpu)}
    print(json.dumps(result) if a.json else
          f"PyTorch {torch.__version__} CPU, {a.threads} threads, {params/1e6:.2f}M params: "
          f"train step median {result['train_step_ms']:.0f} ms (range {min(times):.0f}-{max(times):.0f})")


if __name__ == '__main__':
    main()
