"""PEFT adapters as peft writes them for a model wrapped without a task type, with peft's log-probs.

    /tmp/fixtures-venv/bin/python scripts/make-peft-fixtures.py

(a venv with torch, transformers, peft and safetensors: see scripts/make-model-fixtures.py for
how to make one from the wheels on disk.) It reads the committed Qwen3 fixture
(src/engine/io/fixtures/models/qwen3, made by make-model-fixtures.py), leaves it untouched, and
writes beside it:

  qwen3-lora-notask  get_peft_model(model, LoraConfig(...)) with no task_type, so
                     adapter_config.json says "task_type": null (r 4, lora_alpha 16, q/v/down)
  qwen3-rslora       use_rslora=True (scale alpha / sqrt(r), not alpha / r), r 8, lora_alpha 12,
                     target_modules "all-linear" (peft expands it to the seven projections)

Both use init_lora_weights=False (random A and B), so the adapter changes every log-prob.
Each folder's reference.json holds the adapted model's float32 log-probs of the qwen3 fixture's
reference sequences; `npm test` compares Troupe with them without Python
(src/engine/io/peft-parity.test.ts).
"""
import json
import os
import shutil

import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

MODELS = os.path.join(os.path.dirname(__file__), '..', 'src', 'engine', 'io', 'fixtures', 'models')
BASE = os.path.join(MODELS, 'qwen3')

ADAPTERS = {
    'qwen3-lora-notask': dict(r=4, lora_alpha=16, target_modules=['q_proj', 'v_proj', 'down_proj'],
                              init_lora_weights=False, lora_dropout=0.0),
    'qwen3-rslora': dict(r=8, lora_alpha=12, target_modules='all-linear', use_rslora=True,
                         init_lora_weights=False, lora_dropout=0.0, task_type='CAUSAL_LM'),
}


@torch.no_grad()
def logprobs(model, seqs):
    out = []
    for ids in seqs:
        logits = model(input_ids=torch.tensor([ids])).logits[0].float()
        lp = torch.log_softmax(logits, dim=-1)
        out.append([lp[t - 1, ids[t]].item() for t in range(1, len(ids))])
    return out


def write_reference(folder, description, seqs, lps):
    # The same layout as make-model-fixtures.py writes (one sequence a line).
    with open(os.path.join(folder, 'reference.json'), 'w') as f:
        f.write(json.dumps({'description': description, 'made_by': 'scripts/make-peft-fixtures.py'})[:-1])
        f.write(',\n "sequences": [\n  ' + ',\n  '.join(json.dumps(s) for s in seqs) + '\n ]')
        f.write(',\n "logprobs": [\n  ' + ',\n  '.join(json.dumps(lp) for lp in lps) + '\n ]\n}\n')


def main():
    with open(os.path.join(BASE, 'reference.json')) as f:
        seqs = json.load(f)['sequences']
    for seed, (name, options) in enumerate(ADAPTERS.items(), start=77):
        torch.manual_seed(seed)  # init_lora_weights=False draws A and B from torch's global generator
        base = AutoModelForCausalLM.from_pretrained(BASE, dtype=torch.float32, attn_implementation='eager').eval()
        peft_model = get_peft_model(base, LoraConfig(**options)).eval()
        folder = os.path.join(MODELS, name)
        shutil.rmtree(folder, ignore_errors=True)
        peft_model.save_pretrained(folder)
        os.remove(os.path.join(folder, 'README.md'))  # peft's model-card template, nothing of ours
        config_path = os.path.join(folder, 'adapter_config.json')
        with open(config_path) as f:
            saved = json.load(f)
        # peft records the absolute path the base was loaded from: a path of the machine that
        # wrote the fixture, meaningless in a clone. The tests pass the base themselves.
        saved['base_model_name_or_path'] = None
        with open(config_path, 'w') as f:
            json.dump(saved, f, indent=2, sort_keys=True)
            f.write('\n')
        print(name, 'task_type', saved['task_type'], 'use_rslora', saved['use_rslora'], 'targets', sorted(saved['target_modules']))
        write_reference(folder, f'qwen3 with this adapter (peft {options}), log-probs in float32', seqs,
                        logprobs(peft_model, seqs))


if __name__ == '__main__':
    main()
