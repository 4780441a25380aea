"""Drives `troupe serve --tinker` with the official Tinker Python SDK and prints what passed.
Run through scripts/tinker-sdk-check.sh, which makes the venv and starts the server:

    TINKER_BASE_URL=http://127.0.0.1:PORT TINKER_API_KEY=tml-local \
      python scripts/tinker-sdk-check.py MODEL_NAME

The acceptance sequence: a LoRA training client (get_training_run answers it); 25 Adam steps of cross_entropy
whose loss falls; a sampling client from the trained weights whose greedy continuation
reproduces the trained text; compute_logprobs within 1e-3 of the trainer's forward
logprobs; num_samples=4 with logprobs; an importance_sampling step; errors (not hangs) for
an unknown model and an out-of-vocabulary token. Then what real clients rely on: EOS ends a
sample also when `stop` is given; a prompt plus max_tokens past the context is an error naming
both; get_training_run / list_checkpoints / weights_info after saving (train_unembed, the SDK's
default, trained and reported); create_training_client_from_state resumes the same weights;
ttl_seconds removes a checkpoint; publish / unpublish, set_checkpoint_ttl and the checkpoint
archive (downloaded and extracted as tinker-cookbook's weights.download does); bad Adam parameters, NaN loss inputs and a num_samples over
the cap are refused. Token ids are used directly (no tokenizer
download): any vocabulary of >= 64 ids works. With TOKENIZER_IDS=N set (a model whose rows
past N have no token), the base model's sampler must return such padded ids as sampled.
"""
import datetime
import json
import os
import struct
import sys
import tarfile
import tempfile
import time
import urllib.request

import tinker
from tinker import types

MODEL = sys.argv[1]
# The model's EOS id (the shell script reads it from the model folder; absent: the EOS check is skipped).
EOS = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2] else None
TEXT = [3, 17, 42, 8, 25, 33, 12, 50, 9, 4, 27, 61]
TIMEOUT = 120  # seconds for any one result: a hang is a failure, not a wait
results: list[tuple[str, bool, str]] = []


def check(name: str, ok: bool, detail: str = "") -> None:
    results.append((name, ok, detail))
    print(f"{'PASS' if ok else 'FAIL'}  {name}{'  (' + detail + ')' if detail else ''}", flush=True)


def sft_datum(tokens: list[int]) -> types.Datum:
    return types.Datum(
        model_input=types.ModelInput.from_ints(tokens[:-1]),
        loss_fn_inputs={"target_tokens": tokens[1:], "weights": [1.0] * (len(tokens) - 1)},
    )


def expect_error(name: str, fn) -> None:
    start = time.time()
    try:
        fn()
    except Exception as e:  # the SDK raises its own error types; any error (not a hang) passes
        check(name, True, f"{type(e).__name__} after {time.time() - start:.1f}s: {str(e)[:220]}")
        return
    check(name, False, "no error was raised")


service = tinker.ServiceClient()
models = [m.model_name for m in service.get_server_capabilities().supported_models]
check("server capabilities list the model", MODEL in models, f"models: {models}")

# A padded vocabulary (more embedding rows than tokenizer ids, as in every Qwen3): with
# TOKENIZER_IDS=N (the ids with a token), the untrained base must be able to sample ids >= N
# and get them back as sampled, with their logprobs, instead of a failed future.
padded_from = int(os.environ.get("TOKENIZER_IDS", "0"))
if padded_from > 0:
    base = service.create_sampling_client(base_model=MODEL)
    drawn = base.sample(types.ModelInput.from_ints(TEXT[:3]), 8, types.SamplingParams(max_tokens=16, temperature=1.0, seed=3)).result(timeout=TIMEOUT)
    tokens = [t for s in drawn.sequences for t in s.tokens]
    padded = [t for t in tokens if t >= padded_from]
    whole = all(s.logprobs is not None and len(s.logprobs) == len(s.tokens) for s in drawn.sequences)
    check(f"padded ids (>= {padded_from}) come back as sampled, with logprobs", len(padded) > 0 and whole, f"{len(padded)} of {len(tokens)} sampled ids are padded rows")

tc = service.create_lora_training_client(base_model=MODEL, rank=8, seed=1)
info = tc.get_info()
check("LoRA training client + get_info", info.is_lora and info.lora_rank == 8, f"model_id {info.model_id}")
rest = service.create_rest_client()
run = rest.get_training_run(info.model_id).result(timeout=TIMEOUT)
check("get_training_run answers the run", run.training_run_id == info.model_id and run.base_model == MODEL and run.lora_rank == 8 and run.last_checkpoint is None, f"base_model {run.base_model}, lora_rank {run.lora_rank}")

# The text ends with EOS, so a trained sample can show that EOS ends it even when `stop` is given.
datum = sft_datum(TEXT + ([EOS] if EOS is not None else []))
losses = []
for step in range(25):
    fb = tc.forward_backward([datum], "cross_entropy")
    opt = tc.optim_step(types.AdamParams(learning_rate=1e-2))
    losses.append(fb.result(timeout=TIMEOUT).metrics["loss:sum"])
    opt.result(timeout=TIMEOUT)
# A randomly initialised model's frozen final norm and head can bound its logits (a
# `troupe model init` folder floors near 3 nats/token), so demand a clear fall; the greedy
# check below shows the text was learned.
check("25 Adam steps of cross_entropy lower the loss", losses[-1] < 0.8 * losses[0] and losses[-1] == min(losses[::4] + losses[-1:]), "loss:sum " + " ".join(f"{x:.2f}" for x in losses[::4] + losses[-1:]))

sc = tc.save_weights_and_get_sampling_client()
greedy = sc.sample(types.ModelInput.from_ints(TEXT[:2]), 1, types.SamplingParams(max_tokens=len(TEXT) - 2, temperature=0.0)).result(timeout=TIMEOUT)
check("greedy sample from the trained weights reproduces the text", list(greedy.sequences[0].tokens) == TEXT[2:], f"got {list(greedy.sequences[0].tokens)}")

if EOS is not None:
    ended = sc.sample(types.ModelInput.from_ints(TEXT[:2]), 1, types.SamplingParams(max_tokens=len(TEXT) + 4, temperature=0.0, stop=[60])).result(timeout=TIMEOUT)
    seq0 = ended.sequences[0]
    check("EOS ends a sample also when stop is given", list(seq0.tokens) == TEXT[2:] + [EOS] and seq0.stop_reason == "stop", f"got {list(seq0.tokens)}, stop_reason {seq0.stop_reason}")
context = next(m.max_context_length for m in service.get_server_capabilities().supported_models if m.model_name == MODEL)
expect_error("prompt + max_tokens past the context is an error naming both", lambda: sc.sample(types.ModelInput.from_ints(TEXT), 1, types.SamplingParams(max_tokens=context)).result(timeout=TIMEOUT))
check("  ... and the message names the prompt length and max_tokens", f"the prompt has {len(TEXT)} tokens and max_tokens is {context}" in results[-1][2], results[-1][2][:160])

fwd = tc.forward([datum], "cross_entropy").result(timeout=TIMEOUT)
train_lp = list(fwd.loss_fn_outputs[0]["logprobs"].tolist())
sample_lp = sc.compute_logprobs(types.ModelInput.from_ints(TEXT)).result(timeout=TIMEOUT)
diff = max(abs(a - b) for a, b in zip(sample_lp[1:], train_lp))
check("compute_logprobs agree with forward logprobs within 1e-3", sample_lp[0] is None and diff < 1e-3, f"max |diff| {diff:.2e}")

four = sc.sample(types.ModelInput.from_ints(TEXT[:3]), 4, types.SamplingParams(max_tokens=6, temperature=1.0, seed=7)).result(timeout=TIMEOUT)
ok = len(four.sequences) == 4 and all(s.logprobs is not None and len(s.logprobs) == len(s.tokens) > 0 for s in four.sequences)
check("num_samples=4 with per-token logprobs", ok, f"lengths {[len(s.tokens) for s in four.sequences]}")

seq = four.sequences[0]
prompt = TEXT[:3]
full = prompt + list(seq.tokens)
n = len(full) - 1
is_datum = types.Datum(
    model_input=types.ModelInput.from_ints(full[:-1]),
    loss_fn_inputs={
        "target_tokens": full[1:],
        "logprobs": [0.0] * (len(prompt) - 1) + list(seq.logprobs),
        "advantages": [0.0] * (len(prompt) - 1) + [1.0] * len(seq.tokens),
    },
)
is_out = tc.forward_backward([is_datum], "importance_sampling").result(timeout=TIMEOUT)
tc.optim_step(types.AdamParams(learning_rate=1e-3)).result(timeout=TIMEOUT)
# The sampler's weights are the trainer's, so every ratio is 1 and the loss is -sum(advantages).
check("importance_sampling step", abs(is_out.metrics["loss:sum"] + len(seq.tokens)) < 1e-2, f"loss:sum {is_out.metrics['loss:sum']:.4f}, expected {-len(seq.tokens)}")

ppo_out = tc.forward_backward([is_datum], "ppo", loss_fn_config={"clip_low_threshold": 0.8, "clip_high_threshold": 1.2}).result(timeout=TIMEOUT)
check("ppo step with loss_fn_config", "loss:sum" in ppo_out.metrics, f"loss:sum {ppo_out.metrics['loss:sum']:.4f}")

saved = tc.save_state("sdk-check").result(timeout=TIMEOUT)
tc.load_state_with_optimizer(saved.path).result(timeout=TIMEOUT)
named = tc.save_weights_for_sampler("sdk-check-sampler").result(timeout=TIMEOUT)
sc2 = service.create_sampling_client(model_path=named.path)
again = sc2.sample(types.ModelInput.from_ints(TEXT[:2]), 1, types.SamplingParams(max_tokens=3, temperature=0.0)).result(timeout=TIMEOUT)
check("save_state / load_state_with_optimizer / named sampler weights", saved.path.startswith("tinker://") and len(again.sequences[0].tokens) == 3, saved.path)

run = rest.get_training_run_by_tinker_path(saved.path).result(timeout=TIMEOUT)
listed = [c.tinker_path for c in rest.list_checkpoints(info.model_id).result(timeout=TIMEOUT).checkpoints]
check("get_training_run / list_checkpoints show the saved checkpoints", run.last_checkpoint is not None and run.last_checkpoint.tinker_path == saved.path and saved.path in listed and named.path in listed, f"{len(listed)} checkpoints, last {run.last_checkpoint.tinker_path if run.last_checkpoint else None}")
winfo = rest.get_weights_info_by_tinker_path(saved.path).result(timeout=TIMEOUT)
check("train_unembed (the SDK default) is trained and reported", winfo.train_unembed is True and winfo.lora_rank == 8, f"weights_info {winfo}")
resumed = service.create_training_client_from_state(saved.path)
a = resumed.forward([datum], "cross_entropy").result(timeout=TIMEOUT).loss_fn_outputs[0]["logprobs"].tolist()
b = tc.forward([datum], "cross_entropy").result(timeout=TIMEOUT).loss_fn_outputs[0]["logprobs"].tolist()
check("create_training_client_from_state resumes the same weights (head included)", max(abs(x - y) for x, y in zip(a, b)) < 1e-5, f"max |diff| {max(abs(x - y) for x, y in zip(a, b)):.1e}")
no_head = service.create_lora_training_client(base_model=MODEL, rank=4, train_unembed=False)
nh_path = no_head.save_state("no-head").result(timeout=TIMEOUT).path
check("train_unembed=False is reported as such", rest.get_weights_info_by_tinker_path(nh_path).result(timeout=TIMEOUT).train_unembed is False)



def listed_checkpoint(path: str):
    return next((c for c in rest.list_checkpoints(info.model_id).result(timeout=TIMEOUT).checkpoints if c.tinker_path == path), None)


# The rest client's checkpoint admin: publish / unpublish, set_checkpoint_ttl, the archive URL.
rest.publish_checkpoint_from_tinker_path(saved.path).result(timeout=TIMEOUT)
published = listed_checkpoint(saved.path).public
rest.unpublish_checkpoint_from_tinker_path(saved.path).result(timeout=TIMEOUT)
check("publish / unpublish_checkpoint_from_tinker_path flip the listing's public flag", published is True and listed_checkpoint(saved.path).public is False)
expect_error("  ... publishing an unknown checkpoint is an error", lambda: rest.publish_checkpoint_from_tinker_path(saved.path + "-missing").result(timeout=TIMEOUT))
ttl_path = tc.save_state("ttl-set").result(timeout=TIMEOUT).path
rest.set_checkpoint_ttl_from_tinker_path(ttl_path, 3600).result(timeout=TIMEOUT)
expires = listed_checkpoint(ttl_path).expires_at
in_an_hour = expires is not None and abs((expires - datetime.datetime.now(datetime.timezone.utc)).total_seconds() - 3600) < 60
rest.set_checkpoint_ttl_from_tinker_path(ttl_path, None).result(timeout=TIMEOUT)
check("set_checkpoint_ttl_from_tinker_path sets expires_at, None removes it", in_an_hour and listed_checkpoint(ttl_path).expires_at is None, f"expires_at {expires}")
rest.set_checkpoint_ttl_from_tinker_path(ttl_path, 1).result(timeout=TIMEOUT)
time.sleep(1.5)
check("  ... a checkpoint whose new ttl ran out is gone", listed_checkpoint(ttl_path) is None)
expect_error("  ... and loading it is an error", lambda: tc.load_state(ttl_path).result(timeout=TIMEOUT))
expect_error("  ... a negative ttl_seconds is refused", lambda: rest.set_checkpoint_ttl_from_tinker_path(saved.path, -5).result(timeout=TIMEOUT))
archive = rest.get_checkpoint_archive_url_from_tinker_path(saved.path).result(timeout=TIMEOUT)
with tempfile.TemporaryDirectory() as tmp:
    urllib.request.urlretrieve(archive.url, f"{tmp}/a.tar")
    with tarfile.open(f"{tmp}/a.tar", "r") as tar:
        names = sorted(tar.getnames())
        safe = all(m.isfile() for m in tar.getmembers())
        tar.extractall(f"{tmp}/out")
    config = json.load(open(f"{tmp}/out/adapter_config.json"))
    raw = open(f"{tmp}/out/adapter_model.safetensors", "rb").read()
    header = json.loads(raw[8 : 8 + struct.unpack("<Q", raw[:8])[0]])
tensors = [k for k in header if k != "__metadata__"]
check(
    "get_checkpoint_archive_url: a tar of the PEFT adapter (lm_head for train_unembed)",
    names == ["adapter_config.json", "adapter_model.safetensors"] and safe and config["r"] == 8 and "lm_head" in config["target_modules"] and "base_model.model.lm_head.lora_A.weight" in tensors,
    f"{names}, {len(tensors)} tensors, url expires {archive.expires}",
)

short = tc.save_state("short-lived", ttl_seconds=1).result(timeout=TIMEOUT)
time.sleep(1.5)
gone = short.path not in [c.tinker_path for c in rest.list_checkpoints(info.model_id).result(timeout=TIMEOUT).checkpoints]
check("ttl_seconds: an expired checkpoint is removed", gone, short.path)
expect_error("  ... and loading it is an error", lambda: tc.load_state(short.path).result(timeout=TIMEOUT))

# The rest client's delete_checkpoint (DELETE training_runs/<id>/checkpoints/weights/<name>): loading is then an error.
rest.delete_checkpoint_from_tinker_path(saved.path).result(timeout=TIMEOUT)
expect_error("delete_checkpoint forgets the saved weights", lambda: tc.load_state(saved.path).result(timeout=TIMEOUT))

expect_error("unknown base model is an error", lambda: service.create_lora_training_client(base_model="no-such/model", rank=4))
expect_error("Adam beta1 = 2 is refused (not applied)", lambda: tc.optim_step(types.AdamParams(learning_rate=1e-3, beta1=2.0)).result(timeout=TIMEOUT))
nan_datum = types.Datum(model_input=types.ModelInput.from_ints(TEXT[:4]), loss_fn_inputs={"target_tokens": TEXT[1:5], "weights": [1.0, float("nan"), 1.0, 1.0]})
expect_error("NaN in weights is refused", lambda: tc.forward_backward([nan_datum], "cross_entropy").result(timeout=TIMEOUT))
expect_error("num_samples above the server cap is refused", lambda: sc.sample(types.ModelInput.from_ints(TEXT[:2]), 100_000, types.SamplingParams(max_tokens=2)).result(timeout=TIMEOUT))
bad = types.Datum(model_input=types.ModelInput.from_ints([1, 2, 10_000_000]), loss_fn_inputs={"target_tokens": [2, 3, 4], "weights": [1.0, 1.0, 1.0]})
expect_error("out-of-vocabulary token is an error", lambda: tc.forward_backward([bad], "cross_entropy").result(timeout=TIMEOUT))
after_error = tc.forward([datum], "cross_entropy").result(timeout=TIMEOUT)
check("the training client keeps working after an error", "loss:sum" in after_error.metrics)

passed = sum(ok for _, ok, _ in results)
print(f"\n{passed}/{len(results)} checks passed")
sys.exit(0 if passed == len(results) else 1)
