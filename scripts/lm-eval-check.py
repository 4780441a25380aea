"""Helper of scripts/lm-eval-check.sh: writes the local lm-eval tasks, then compares two runs.

    python scripts/lm-eval-check.py tasks MODEL_DIR OUT_DIR TOKENIZER_DIR   # OUT_DIR/troupe_mc.yaml, troupe_ll.yaml + JSONL data
    python scripts/lm-eval-check.py compare API_OUT HF_OUT    # per-item log-likelihoods and accuracies

The tasks use the model folder's own words (its tokenizer's vocabulary), so they work on the
tiny fixtures whose vocabulary is w3..w63 as on a real model:

  troupe_mc  multiple choice: a context of 3-8 words, four one-word choices (acc, acc_norm)
  troupe_ll  log-likelihood of a 1-3 word continuation (perplexity, and acc = "the
             continuation is the greedy one", which reads top_logprobs); half of the
             continuations are transformers' greedy ones, so both answers occur

`compare` reads lm-eval's --log_samples files of the two runs (local-completions through
`troupe serve`, and lm-eval's own hf backend) and exits 1 unless every item's log-likelihood
agrees within 1e-4 and every item's correctness (hence every accuracy) is the same.
"""
import glob
import json
import os
import random
import sys

TOLERANCE = 1e-4
ITEMS = 40


def words_of(model_dir):
    """Plain words of the tokenizer (no special tokens, no byte pieces), in id order."""
    with open(os.path.join(model_dir, 'tokenizer.json')) as f:
        tok = json.load(f)
    special = {t['content'] for t in tok.get('added_tokens', [])}
    vocab = tok['model']['vocab']
    items = vocab.items() if isinstance(vocab, dict) else ((w, i) for i, (w, _) in enumerate(vocab))
    return [w for w, _ in sorted(items, key=lambda x: x[1]) if w not in special and w.isalnum()]


def greedy_words(model_dir, tokenizer_dir, contexts, count):
    """transformers' greedy continuation (`count` tokens) of each context, decoded."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).eval()
    out = []
    with torch.no_grad():
        for context, n in zip(contexts, count):
            ids = tokenizer(context, add_special_tokens=False, return_tensors='pt').input_ids
            new = model.generate(ids, max_new_tokens=n, do_sample=False)[0, ids.shape[1]:]
            out.append(tokenizer.decode(new, skip_special_tokens=True).strip())
    return out


def write_task(out_dir, name, output_type, rows, fields):
    data = os.path.join(out_dir, f'{name}.jsonl')
    with open(data, 'w') as f:
        for row in rows:
            f.write(json.dumps(row) + '\n')
    with open(os.path.join(out_dir, f'{name}.yaml'), 'w') as f:
        f.write(f'task: {name}\ndataset_path: json\ndataset_kwargs:\n  data_files:\n    test: {data}\n'
                f'test_split: test\noutput_type: {output_type}\n{fields}metadata:\n  version: 1.0\n')


def tasks(model_dir, out_dir, tokenizer_dir):
    os.makedirs(out_dir, exist_ok=True)
    words = words_of(model_dir)
    rng = random.Random(2026)
    context = lambda: ' '.join(rng.choice(words) for _ in range(rng.randint(3, 8)))
    mc = [{'context': context(), 'choices': rng.sample(words, 4), 'gold': rng.randrange(4)} for _ in range(ITEMS)]
    write_task(out_dir, 'troupe_mc', 'multiple_choice', mc,
               'doc_to_text: "{{context}}"\ndoc_to_choice: "{{choices}}"\ndoc_to_target: "{{gold}}"\n'
               'metric_list:\n  - metric: acc\n  - metric: acc_norm\n')
    contexts = [context() for _ in range(ITEMS)]
    lengths = [rng.randint(1, 3) for _ in range(ITEMS)]
    greedy = greedy_words(model_dir, tokenizer_dir, contexts, lengths)
    # A greedy continuation that is only special tokens (EOS) decodes to nothing: a random one then.
    # The leading space is the continuation's own (loglikelihood tasks insert no delimiter).
    ll = [{'context': c, 'continuation': ' ' + (g if i % 2 == 0 and g else ' '.join(rng.choice(words) for _ in range(n)))}
          for i, (c, n, g) in enumerate(zip(contexts, lengths, greedy))]
    write_task(out_dir, 'troupe_ll', 'loglikelihood', ll,
               'doc_to_text: "{{context}}"\ndoc_to_target: "{{continuation}}"\n'
               'metric_list:\n  - metric: perplexity\n  - metric: acc\n')


def samples(out_dir, task):
    files = glob.glob(os.path.join(out_dir, '**', f'samples_{task}_*.jsonl'), recursive=True)
    if len(files) != 1:
        sys.exit(f'expected one samples_{task}_*.jsonl under {out_dir}, found {files}')
    with open(files[0]) as f:
        return {s['doc_id']: s for s in map(json.loads, f)}


def compare(api_dir, hf_dir):
    ok = True
    for task in ('troupe_mc', 'troupe_ll'):
        api, hf = samples(api_dir, task), samples(hf_dir, task)
        if sorted(api) != sorted(hf):
            sys.exit(f'{task}: the runs scored different items')
        worst, differ = 0.0, 0
        for doc_id in api:
            # resps: one [log-likelihood, is_greedy] per request (one per choice for multiple choice).
            a = [(float(r[0][0]), str(r[0][1])) for r in api[doc_id]['resps']]
            h = [(float(r[0][0]), str(r[0][1])) for r in hf[doc_id]['resps']]
            worst = max([worst] + [abs(x[0] - y[0]) for x, y in zip(a, h)])
            metric = 'acc' if 'acc' in api[doc_id] else None
            if [x[1] for x in a] != [y[1] for y in h] or (metric and api[doc_id][metric] != hf[doc_id][metric]):
                differ += 1
        accuracy = lambda s: sum(x['acc'] for x in s.values()) / len(s)
        print(f'{task}: {len(api)} items, max |log-likelihood difference| {worst:.2e}, items whose correctness '
              f'differs: {differ}, acc local-completions {accuracy(api):.4f} vs hf {accuracy(hf):.4f}')
        ok = ok and worst <= TOLERANCE and differ == 0
    print('PASS' if ok else 'FAIL')
    return 0 if ok else 1


if __name__ == '__main__':
    if len(sys.argv) == 5 and sys.argv[1] == 'tasks':
        tasks(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 4 and sys.argv[1] == 'compare':
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
