/**
 * The archive GET training_runs/<id>/checkpoints/<checkpoint_id>/archive points to: an
 * uncompressed tar of a PEFT adapter folder, `adapter_config.json` and
 * `adapter_model.safetensors` at the top level, as Tinker's archives hold and
 * tinker-cookbook's `weights.download` extracts (its weights tools read those two files; a
 * train_unembed adapter's head pair is the PEFT target `lm_head`). The
 * files are byte for byte what `saveLoraAdapter` writes for the checkpoint's adapter; the Adam
 * moments a training checkpoint also holds are not part of it.
 *
 *   for (const chunk of ustarChunks(checkpointArchiveFiles(snapshot, base.model.config, { path, time }))) res.write(chunk);
 */
import { expectedLoraShapes, loraAdapterFiles } from '../../engine/io/peft-adapter.js';
import type { LlamaConfig } from '../../engine/model/llama-config.js';
import type { UstarFile } from '../../util/ustar.js';
import { loraConfigFromWire, type AdapterSnapshot } from './training-model.js';

export function checkpointArchiveFiles(snapshot: AdapterSnapshot, base: LlamaConfig, checkpoint: { path: string; time: Date }): UstarFile[] {
  const config = loraConfigFromWire(snapshot.lora, snapshot.alpha);
  const shapes = expectedLoraShapes(base, config);
  const tensors = new Map([...snapshot.tensors].map(([name, data]) => [name, { shape: shapes.get(name) ?? [data.length], data }]));
  const adapter = { config: { ...config, baseModelNameOrPath: snapshot.baseModel }, tensors };
  return loraAdapterFiles(adapter, base, checkpoint.path).map(({ name, bytes }) => ({ name, bytes, mtime: checkpoint.time }));
}
