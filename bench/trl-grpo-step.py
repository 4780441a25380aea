"""TRL's side of `troupe bench grpo-step`: one single-agent GRPO step with LoRA in TRL's GRPOTrainer +
peft, the same work on the same folder (bench/grpo-step-vs-trl.sh runs both and prints them together).

  python bench/trl-grpo-step.py FOLDER [--dtype bfloat16|float32] [--prompts 4] [--k 8] [--tokens 64] [--lora-rank 16] [--threads 2] [--json]

The step, as `troupe bench grpo-step` does it:
  rollout   P text prompts (the strings of grpoStepPrompts in src/cli/bench-grpo-step.ts), K completions
            each of exactly N new tokens (min_new_tokens = N, temperature 1, no top-k / top-p)
  reward    the share of even token ids in the completion; GRPO advantages per prompt
  update    one optimizer step (PPO-clip loss, beta 0: no reference model) on all P x K completions
            with LoRA r, alpha 2r on the seven projections of the frozen base, loaded in --dtype
            (bfloat16 by default, with the Trainer's bf16 mixed precision; float32 without it).
            Which is faster depends on the CPU: where it has no bf16 products PyTorch emulates
            them, so bench/grpo-step-vs-trl.sh runs both and compares Troupe with the faster.
Prints the rollout (generation + scoring) and update times of the step, and the peak RSS.
A benchmark, not a dependency: Troupe never imports it.
"""
import argparse
import json
import resource
import tempfile
import time

import torch


def prompts(count: int) -> list[str]:
    return [f"Task {i + 1}: a robot stands on a grid with walls. Explain, step by step, how it finds the shortest path to the goal." for i in range(count)]


def even_id_share(completion_ids, **_kwargs) -> list[float]:
    return [sum(1 for t in ids if t % 2 == 0) / max(len(ids), 1) for ids in completion_ids]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--prompts", type=int, default=4)
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--lora-rank", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--dtype", choices=["bfloat16", "float32"], default="bfloat16")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    import datasets
    import transformers
    import trl
    from peft import LoraConfig
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    start = time.perf_counter()
    model = AutoModelForCausalLM.from_pretrained(args.folder, dtype=getattr(torch, args.dtype))
    tokenizer = AutoTokenizer.from_pretrained(args.folder, padding_side="left")
    load_s = time.perf_counter() - start
    batch = args.prompts * args.k
    with tempfile.TemporaryDirectory() as out:
        config = GRPOConfig(
            output_dir=out, use_cpu=True, report_to="none", save_strategy="no", logging_steps=1, max_steps=1,
            per_device_train_batch_size=batch, gradient_accumulation_steps=1, num_generations=args.k,
            max_completion_length=args.tokens, generation_kwargs={"min_new_tokens": args.tokens},
            temperature=1.0, top_p=1.0, top_k=0, learning_rate=1e-5, beta=0.0, num_iterations=1, bf16=args.dtype == "bfloat16",
            shuffle_dataset=False, seed=1,
        )
        lora = LoraConfig(r=args.lora_rank, lora_alpha=2 * args.lora_rank, lora_dropout=0.0, task_type="CAUSAL_LM",
                          target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"])
        trainer = GRPOTrainer(model=model, reward_funcs=even_id_share, args=config, processing_class=tokenizer,
                              train_dataset=datasets.Dataset.from_dict({"prompt": prompts(args.prompts)}), peft_config=lora)
        # The rollout is _generate_and_score_completions (generation, rewards, advantages); the rest of
        # the training step is the update.
        rollout = {"s": 0.0}
        generate = trainer._generate_and_score_completions

        def timed_generate(*a, **kw):
            t0 = time.perf_counter()
            result = generate(*a, **kw)
            rollout["s"] += time.perf_counter() - t0
            return result

        trainer._generate_and_score_completions = timed_generate
        t0 = time.perf_counter()
        trainer.train()
        step_s = time.perf_counter() - t0
    result = {
        "backend": f"TRL {trl.__version__} GRPOTrainer + transformers {transformers.__version__} + torch {torch.__version__} ({args.dtype})",
        "dtype": args.dtype, "threads": args.threads, "prompts": args.prompts, "k": args.k, "new_tokens": args.tokens, "lora_rank": args.lora_rank,
        "load_s": round(load_s, 2), "rollout_s": round(rollout["s"], 2), "update_s": round(step_s - rollout["s"], 2),
        "step_s": round(step_s, 2), "rollout_tok_s": round(batch * args.tokens / max(rollout["s"], 1e-9), 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }
    print(json.dumps(result) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
