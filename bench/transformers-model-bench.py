"""The transformers + peft side of `troupe bench model`: the same work on the same checkpoint, so the
two can be compared in one run (bench/model-vs-transformers.sh runs both and prints the ratios).

  python bench/transformers-model-bench.py FOLDER [--threads 2] [--json]
  python bench/transformers-model-bench.py --make-qwen3-0.6b FOLDER    # random weights, Qwen3-0.6B shape, bf16

The work, as the native-kernels issue defines it:
  decode      greedy, 32 prompt tokens then 64 new tokens with a KV cache; tokens/s over the 64
              (batch 1, and batch 16 counting 16 x 64 tokens)
  prefill     one forward pass over batch 1 x 256 prompt tokens; tokens/s
  LoRA train  r=16, alpha=32 on all seven projection modules, AdamW lr 1e-4, batch 4 x 256 tokens,
              forward + backward + step on a frozen base kept in the checkpoint's dtype;
              tokens/s as the mean over 3 steps after 1 warm-up
  peak RSS    of the whole process (ru_maxrss)

A benchmark, not a dependency: Troupe never imports it.
"""
import argparse
import json
import resource
import sys
import time

import torch


def make_qwen3_06b(folder: str) -> None:
    from transformers import Qwen3Config, Qwen3ForCausalLM

    config = Qwen3Config(
        vocab_size=151936, hidden_size=1024, intermediate_size=3072, num_hidden_layers=28,
        num_attention_heads=16, num_key_value_heads=8, head_dim=128, max_position_embeddings=40960,
        rope_theta=1000000.0, rms_norm_eps=1e-6, tie_word_embeddings=True,
        bos_token_id=151643, eos_token_id=151645, torch_dtype="bfloat16",
    )
    torch.manual_seed(0)
    model = Qwen3ForCausalLM(config).to(torch.bfloat16)
    model.save_pretrained(folder, safe_serialization=True)
    print(f"wrote {folder}: {sum(p.numel() for p in model.parameters()) / 1e6:.0f}M parameters, bf16", file=sys.stderr)


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def decode_tok_s(model, vocab: int, batch: int) -> float:
    generator = torch.Generator().manual_seed(1)
    prompt = torch.randint(0, vocab, (batch, 32), generator=generator)
    run = lambda: model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=64, min_new_tokens=64,
                                 do_sample=False, use_cache=True, pad_token_id=0)
    with torch.inference_mode():
        model.generate(prompt[:, :8], attention_mask=torch.ones_like(prompt[:, :8]), max_new_tokens=2, do_sample=False, pad_token_id=0)
        # Prefill of the 32 prompt tokens is timed too and subtracted, so the rate is over the 64 new tokens.
        prefill = timed(lambda: model(prompt))
        total = timed(run)
    return batch * 64 / max(total - prefill, 1e-9)


def prefill_tok_s(model, vocab: int) -> float:
    tokens = torch.randint(0, vocab, (1, 256), generator=torch.Generator().manual_seed(2))
    with torch.inference_mode():
        model(tokens[:, :16])
        seconds = min(timed(lambda: model(tokens)) for _ in range(2))
    return 256 / seconds


def lora_train_tok_s(model, vocab: int) -> float:
    from peft import LoraConfig, get_peft_model

    modules = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
    peft_model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, target_modules=modules, lora_dropout=0.0, task_type="CAUSAL_LM"))
    peft_model.train()
    params = [p for p in peft_model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=1e-4)
    tokens = torch.randint(0, vocab, (4, 256), generator=torch.Generator().manual_seed(3))

    def step():
        loss = peft_model(input_ids=tokens, labels=tokens).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    step()  # warm-up
    times = [timed(step) for _ in range(3)]
    return 4 * 256 / (sum(times) / len(times))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--make-qwen3-0.6b", dest="make", action="store_true")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--dtype", default="auto", help="auto (the checkpoint's), bfloat16 or float32")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.make:
        make_qwen3_06b(args.folder)
        return
    torch.set_num_threads(args.threads)
    from transformers import AutoModelForCausalLM

    start = time.perf_counter()
    dtype = "auto" if args.dtype == "auto" else getattr(torch, args.dtype)
    model = AutoModelForCausalLM.from_pretrained(args.folder, dtype=dtype)
    load_s = time.perf_counter() - start
    model.eval()
    vocab = model.config.vocab_size
    result = {
        "backend": f"transformers {__import__('transformers').__version__} + torch {torch.__version__} ({str(model.dtype).removeprefix('torch.')})",
        "threads": args.threads,
        "load_s": round(load_s, 2),
        "decode_b1_tok_s": round(decode_tok_s(model, vocab, 1), 2),
        "decode_b16_tok_s": round(decode_tok_s(model, vocab, 16), 2),
        "prefill_tok_s": round(prefill_tok_s(model, vocab), 1),
        "lora_train_tok_s": round(lora_train_tok_s(model, vocab), 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }
    print(json.dumps(result) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
