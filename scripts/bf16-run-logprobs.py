"""transformers' own bf16 run of the qwen3-bf16 fixture: the log-probs of the fixture's
sequences with the model, its activations and its arithmetic all in bfloat16 (what
`dtype=torch.bfloat16` gives). Written to src/engine/io/fixtures/models/qwen3-bf16/
bf16-run.json; bf16-fast-parity.test.ts compares the engine's `fast` bf16 product (activations
rounded to bf16 only where they meet a bf16 weight) with it and with the float32 reference.

    python scripts/bf16-run-logprobs.py      (torch + transformers, e.g. the venv of
                                             bench/model-vs-transformers.sh)
"""
import json
import os

import torch
from transformers import AutoModelForCausalLM

FOLDER = os.path.join(os.path.dirname(__file__), '..', 'src', 'engine', 'io', 'fixtures', 'models', 'qwen3-bf16')


def main():
    with open(os.path.join(FOLDER, 'reference.json')) as f:
        sequences = json.load(f)['sequences']
    model = AutoModelForCausalLM.from_pretrained(FOLDER, dtype=torch.bfloat16).eval()
    out = []
    with torch.no_grad():
        for ids in sequences:
            logits = model(torch.tensor([ids])).logits[0].float()
            logp = torch.log_softmax(logits, dim=-1)
            out.append([logp[t, ids[t + 1]].item() for t in range(len(ids) - 1)])
    with open(os.path.join(FOLDER, 'bf16-run.json'), 'w') as f:
        json.dump({'description': 'transformers log-probs of the qwen3-bf16 fixture run in bfloat16 (weights, activations, arithmetic)',
                   'made_by': 'scripts/bf16-run-logprobs.py', 'torch': torch.__version__, 'logprobs': out}, f)
        f.write('\n')


if __name__ == '__main__':
    main()
