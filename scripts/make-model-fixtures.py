"""Tiny random checkpoints written by transformers itself, with transformers' log-probs.

    python scripts/make-model-fixtures.py

Any venv with torch, transformers, peft, safetensors and tokenizers works; to make one from
the wheels on disk:

    python3 -m venv /tmp/fixtures-venv
    /tmp/fixtures-venv/bin/pip install --no-index --find-links /opt/wheels \
        --find-links /opt/pypi/files --find-links /opt/pypi-more/files \
        torch transformers peft safetensors tokenizers
    /tmp/fixtures-venv/bin/python scripts/make-model-fixtures.py

It writes src/engine/io/fixtures/models/<name>/ (config.json, model.safetensors or shards,
a word-level tokenizer, reference.json). `npm test` compares Troupe's log-probs with
reference.json without Python (src/engine/io/model-parity.test.ts). Every weight is random,
biases and norm weights included: a zero bias or a unit norm would hide a loading bug.

  llama3-gqa     Llama with llama3 rope scaling (original context 64, so every regime of the
                 rescaled table is used), 4 query heads over 2 kv heads, attention_bias and
                 mlp_bias, untied head
  qwen2-tied     Qwen2 with its q/k/v biases and a tied head
  qwen3          Qwen3 with q_norm/k_norm and head_dim 16 != hidden 32 / 4 heads
  qwen3-bf16     the qwen3 weights rounded to bf16, saved in bf16 and sharded; its reference
                 log-probs are computed in f32 from the rounded weights
  qwen3-lora     a PEFT adapter on qwen3 (init_lora_weights=False, lora_alpha 24, r 4, all seven
                 projections); reference.json holds the adapted model's log-probs
"""
import json
import os
import shutil

import torch
from peft import LoraConfig, get_peft_model
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import (AutoModelForCausalLM, LlamaConfig, PreTrainedTokenizerFast,
                          Qwen2Config, Qwen3Config)

OUT = os.path.join(os.path.dirname(__file__), '..', 'src', 'engine', 'io', 'fixtures', 'models')
VOCAB = 64
SEED = 1234
MODULES = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj']

COMMON = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=48, num_hidden_layers=2,
              num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
              rms_norm_eps=1e-6, bos_token_id=1, eos_token_id=2, attn_implementation='eager')


def configs():
    return {
        'llama3-gqa': LlamaConfig(**COMMON, attention_bias=True, mlp_bias=True, tie_word_embeddings=False,
                                  rope_parameters=dict(rope_type='llama3', rope_theta=10000.0, factor=8.0,
                                                       low_freq_factor=1.0, high_freq_factor=4.0,
                                                       original_max_position_embeddings=64)),
        'qwen2-tied': Qwen2Config(**COMMON, tie_word_embeddings=True,
                                  rope_parameters=dict(rope_type='default', rope_theta=1000000.0)),
        'qwen3': Qwen3Config(**COMMON, head_dim=16, tie_word_embeddings=False,
                             rope_parameters=dict(rope_type='default', rope_theta=1000000.0)),
    }


def randomise(model, generator):
    """Every parameter random: norms around 1, biases around 0, weights with fan-in scaling."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=generator)
            if name.endswith('norm.weight'):
                p.copy_(1 + 0.3 * noise)
            elif name.endswith('.bias'):
                p.copy_(0.3 * noise)
            elif 'embed_tokens' in name:
                p.copy_(noise)
            else:
                p.copy_(noise / p.shape[-1] ** 0.5)


def sequences(generator):
    lengths = [40, 17, 6]
    return [torch.randint(0, VOCAB, (n,), generator=generator).tolist() for n in lengths]


@torch.no_grad()
def logprobs(model, seqs):
    out = []
    for ids in seqs:
        logits = model(torch.tensor([ids])).logits[0].float()
        lp = torch.log_softmax(logits, dim=-1)
        out.append([lp[t - 1, ids[t]].item() for t in range(1, len(ids))])
    return out


def save_tokenizer(folder):
    vocab = {'<unk>': 0, '<s>': 1, '</s>': 2}
    for i in range(3, VOCAB):
        vocab[f'w{i}'] = i
    core = Tokenizer(models.WordLevel(vocab, unk_token='<unk>'))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    PreTrainedTokenizerFast(tokenizer_object=core, bos_token='<s>', eos_token='</s>',
                            unk_token='<unk>').save_pretrained(folder)


def write_reference(folder, description, seqs, lps):
    with open(os.path.join(folder, 'reference.json'), 'w') as f:
        f.write(json.dumps({'description': description, 'made_by': 'scripts/make-model-fixtures.py'})[:-1])
        f.write(',\n "sequences": [\n  ' + ',\n  '.join(json.dumps(s) for s in seqs) + '\n ]')
        f.write(',\n "logprobs": [\n  ' + ',\n  '.join(json.dumps(lp) for lp in lps) + '\n ]\n}\n')


def fresh(folder):
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    return folder


def main():
    torch.manual_seed(SEED)
    generator = torch.Generator().manual_seed(SEED)
    seqs = sequences(generator)
    made = {}
    for name, config in configs().items():
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32).eval()
        randomise(model, generator)
        folder = fresh(os.path.join(OUT, name))
        model.save_pretrained(folder)
        save_tokenizer(folder)
        write_reference(folder, f'{name}: transformers log-probs in float32', seqs, logprobs(model, seqs))
        made[name] = model

    # bf16, sharded: the qwen3 weights rounded to bf16; reference in f32 from the rounded weights.
    base = made['qwen3']
    bf16 = AutoModelForCausalLM.from_config(base.config, dtype=torch.float32).eval()
    bf16.load_state_dict(base.state_dict())
    bf16 = bf16.to(torch.bfloat16)
    folder = fresh(os.path.join(OUT, 'qwen3-bf16'))
    bf16.save_pretrained(folder, max_shard_size='40KB')
    save_tokenizer(folder)
    # Reloaded as float32, not bf16.float(): .to(bfloat16) also rounds the rotary inv_freq buffer.
    upcast = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32, attn_implementation='eager').eval()
    write_reference(folder, 'qwen3 rounded to bf16, log-probs computed in float32 from the bf16 weights',
                    seqs, logprobs(upcast, seqs))

    # PEFT adapter on qwen3, made by peft with random A and B.
    lora = LoraConfig(r=4, lora_alpha=24, target_modules=MODULES, init_lora_weights=False,
                      lora_dropout=0.0, task_type='CAUSAL_LM')
    peft_model = get_peft_model(base, lora).eval()
    folder = fresh(os.path.join(OUT, 'qwen3-lora'))
    peft_model.save_pretrained(folder)
    os.remove(os.path.join(folder, 'README.md'))  # peft's model-card template, nothing of ours
    write_reference(folder, 'qwen3 with this adapter (peft), log-probs in float32', seqs,
                    logprobs(peft_model, seqs))


if __name__ == '__main__':
    main()
