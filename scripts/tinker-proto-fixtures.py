"""Writes src/tinker/fixtures/proto-messages.json: Tinker protobuf messages serialized by the
official SDK's generated code (tinker_public_pb2), for the TypeScript codec test.

    python scripts/tinker-proto-fixtures.py /path/to/tinker-sdk-checkout
"""
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np

sdk = Path(sys.argv[1])
spec = importlib.util.spec_from_file_location("pb", sdk / "src/tinker/proto/tinker_public_pb2.py")
pb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pb)

req = pb.ForwardBackwardRequest(model_id="sess-1:train:0", seq_id=3, loss_fn="ppo", forward_only=True)
req.loss_fn_config["clip_low_threshold"] = 0.75
d = req.data.add()
d.model_input.add().encoded_text.tokens = np.array([5, 6, 7], dtype=np.int32).tobytes()
d.model_input.add().encoded_text.tokens = np.array([8], dtype=np.int32).tobytes()
t = d.loss_fn_inputs["target_tokens"]
t.dtype = pb.DTYPE_INT64
t.shape.extend([4])
t.dense = np.array([6, 7, 8, 9], dtype=np.int64).tobytes()
a = d.loss_fn_inputs["advantages"]
a.dtype = pb.DTYPE_FLOAT32
a.shape.extend([4])
a.dense = np.array([0.5, -1.25, 0, 2], dtype=np.float32).tobytes()

out = pb.ForwardBackwardOutput(loss_fn_output_type="ArrayRecord")
out.metrics["loss:sum"] = 1.5
rec = out.loss_fn_outputs.add(type_tag="ArrayRecord", num_datums=2)
bt = rec.fields["logprobs"]
bt.dtype = pb.DTYPE_FLOAT32
bt.data = np.array([-0.5, -1.0, -2.0], dtype=np.float32).tobytes()
bt.offsets = np.array([0, 8, 12], dtype=np.int64).tobytes()

samp = pb.SampleResponse(prompt_logprobs=np.array([np.nan, -1.5], dtype=np.float32).tobytes())
samp.sequences.add(stop_reason=pb.STOP_REASON_LENGTH, tokens=np.array([3, 4], dtype=np.int32).tobytes(),
                   logprobs=np.array([-0.25, -3.0], dtype=np.float32).tobytes())
samp.sequences.add(stop_reason=pb.STOP_REASON_STOP, tokens=np.array([1], dtype=np.int32).tobytes())

fixtures = {name: msg.SerializeToString(deterministic=True).hex() for name, msg in
            [("forward_backward_request", req), ("forward_backward_output", out), ("sample_response", samp)]}
Path(__file__).resolve().parent.parent.joinpath("src/tinker/fixtures/proto-messages.json").write_text(json.dumps(fixtures, indent=2) + "\n")
print("wrote", len(fixtures), "messages")
