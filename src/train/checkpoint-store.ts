/**
 * Training checkpoints in a run folder, each a complete, resumable snapshot:
 *
 *   checkpoints/step-000010/
 *     state.json                     { step, policies: { id: { kind, path } } }
 *     policies/<id>/                 Hugging Face model folder (shared / per-role policies)
 *     adapters/<id>/                 PEFT adapter folder (lora policies; the base is base/)
 *     optimizer/<id>.safetensors     AdamW moments (PyTorch state names) + step in metadata
 *     pipeline.json                  asynchronous runs: policy versions and the finished rollouts
 *                                    of the next steps (train/async/pipeline-file.ts)
 *
 * A `policy.kind: tinker` policy's weights and optimizer state live on the service: its entry
 * in state.json holds the tinker:// path that save_weights returned, and resume loads it back.
 * Pruning a checkpoint deletes its weights on the service too (delete_checkpoint).
 *
 * A checkpoint is written into a temporary folder and renamed into place, so a crash or a
 * full disk never leaves a half checkpoint under a real name; only the newest `keep` survive.
 * `step` is the last RL step whose update the weights include.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { saveModel, saveModelAdapter } from '../engine/io/model-checkpoint.js';
import { loadLoraAdapter } from '../engine/io/peft-adapter.js';
import { loadCheckpoint, readJsonFile } from '../engine/io/checkpoint.js';
import { findModelFolder } from '../engine/hub/resolve-model.js';
import { readSafetensors, writeSafetensors } from '../engine/io/safetensors.js';
import { writeFileAtomic } from '../engine/io/atomic-write.js';
import type { Tokenizer } from '../engine/tokenizer/types.js';
import { TroupeError } from '../util/errors.js';
import type { EmbeddedMember, PolicySet } from './policy-set.js';

const PREFIX = 'step-';

export interface CheckpointState {
  readonly step: number;
  readonly policies: Record<string, { kind: 'model' | 'adapter' } | { kind: 'tinker'; path: string }>;
  /**
   * The kernels that computed the weights (`native-avx512, bf16 fast`): another backend or
   * bf16 mode changes the numbers from the resumed step on (the thread count does not). Absent in embedded
   * checkpoints written before it was recorded, and in Tinker ones (the service computes).
   */
  readonly engine?: string;
}

export function checkpointName(step: number): string {
  return `${PREFIX}${String(step).padStart(6, '0')}`;
}

/** Checkpoint folders of a run, oldest first (temporary folders are ignored). */
export function listCheckpoints(runDir: string): { step: number; dir: string }[] {
  const root = join(runDir, 'checkpoints');
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((name) => /^step-\d{6}$/.test(name) && existsSync(join(root, name, 'state.json')))
    .map((name) => ({ step: Number(name.slice(PREFIX.length)), dir: join(root, name) }))
    .sort((a, b) => a.step - b.step);
}

/**
 * An adapter's base_model_name_or_path: a hub id as it is (peft and vLLM fetch it by that
 * name), a model.path folder relative to the adapter, else the run's own base/.
 */
function adapterBaseName(adapterDir: string, modelPath: string | undefined): string {
  if (modelPath === undefined) return '../../../../base'; // runs/<name>/checkpoints/step-N/adapters/<id> -> runs/<name>/base
  return existsSync(modelPath) ? relative(adapterDir, resolve(modelPath)) : modelPath;
}

/**
 * `modelPath`: the run's model.path (adapters name it as their base); `engine`: see CheckpointState;
 * `files`: name -> text written beside state.json (an async run's pipeline.json).
 */
export async function saveTrainingCheckpoint(runDir: string, step: number, policies: PolicySet, tokenizer: Tokenizer, keep: number, extra: { modelPath?: string; engine?: string; files?: Readonly<Record<string, string>> } = {}): Promise<string> {
  const { modelPath, engine, files = {} } = extra;
  const root = join(runDir, 'checkpoints');
  const final = join(root, checkpointName(step));
  const temp = join(root, `.tmp-${checkpointName(step)}-${process.pid}`);
  rmSync(temp, { recursive: true, force: true });
  try {
    mkdirSync(join(temp, 'optimizer'), { recursive: true });
    const state: CheckpointState = { step, policies: {}, ...(engine === undefined ? {} : { engine }) };
    const trainedFrom = modelPath === undefined ? undefined : findModelFolder(modelPath);
    for (const [id, member] of policies.members) {
      if (member.backend === 'tinker') {
        state.policies[id] = { kind: 'tinker', path: await member.learner.model.saveWeights(`${checkpointName(step)}-${id}`) };
      } else {
        state.policies[id] = saveEmbeddedMember(temp, id, member, tokenizer, { baseName: adapterBaseName(resolve(final, 'adapters', id), modelPath), trainedFrom });
      }
    }
    for (const [name, text] of Object.entries(files)) writeFileAtomic(join(temp, name), text);
    writeFileAtomic(join(temp, 'state.json'), `${JSON.stringify(state, null, 2)}\n`);
    rmSync(final, { recursive: true, force: true });
    renameSync(temp, final);
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    const reason = error instanceof Error ? error.message : String(error);
    throw new TroupeError('io', `could not save the checkpoint of step ${step} in ${root}: ${reason}; the previous checkpoints are intact`, { cause: error });
  }
  for (const old of listCheckpoints(runDir).slice(0, -keep)) {
    await deleteServiceCheckpoints(old.dir, policies);
    rmSync(old.dir, { recursive: true, force: true });
  }
  return final;
}

/** A pruned checkpoint's weights on a Tinker service (its --state-dir would otherwise keep them all). */
async function deleteServiceCheckpoints(dir: string, policies: PolicySet): Promise<void> {
  const state = readJsonFile(join(dir, 'state.json')) as CheckpointState;
  for (const [id, saved] of Object.entries(state.policies ?? {})) {
    const member = policies.members.get(id);
    if (saved.kind === 'tinker' && member?.backend === 'tinker') await member.learner.model.client.deleteCheckpoint(saved.path);
  }
}

/** `base.trainedFrom`: the model.path folder, whose generation_config.json a full fine-tune keeps. */
function saveEmbeddedMember(temp: string, id: string, member: EmbeddedMember, tokenizer: Tokenizer, base: { baseName: string; trainedFrom?: string }): { kind: 'model' | 'adapter' } {
  let kind: 'model' | 'adapter';
  if (member.adapter !== undefined) {
    saveModelAdapter(join(temp, 'adapters', id), member.model, member.adapter, { baseModelNameOrPath: base.baseName });
    kind = 'adapter';
  } else {
    saveModel(join(temp, 'policies', id), member.model, tokenizer, { trainedFrom: base.trainedFrom });
    kind = 'model';
  }
  const optimizer = member.learner.exportOptimizerState();
  const tensors = new Map([...optimizer.tensors].map(([name, data]) => [name, { shape: [data.length], data }]));
  writeSafetensors(join(temp, 'optimizer', `${id}.safetensors`), tensors, { step: String(optimizer.step) });
  return { kind };
}

/** Restores every policy's weights (or adapter) and optimizer state from a checkpoint folder. */
export async function loadTrainingCheckpoint(dir: string, policies: PolicySet): Promise<CheckpointState> {
  const state = readJsonFile(join(dir, 'state.json')) as CheckpointState;
  for (const [id, member] of policies.members) {
    const saved = state.policies?.[id];
    if (!saved) {
      throw new TroupeError('checkpoint', `${dir} has no policy '${id}' (it has ${Object.keys(state.policies ?? {}).join(', ') || 'none'}); the run's policy.map changed since it was saved`);
    }
    if (member.backend === 'tinker') {
      if (saved.kind !== 'tinker') throw new TroupeError('checkpoint', `${dir}: policy '${id}' was saved by an embedded run (${saved.kind}), and this run trains on a Tinker service; resume with the policy.kind it started with`);
      await member.restore(saved.path);
      continue;
    }
    if (saved.kind === 'tinker') throw new TroupeError('checkpoint', `${dir}: policy '${id}' lives on a Tinker service (${saved.path}), and this run is embedded; resume with policy.kind: tinker`);
    restoreEmbeddedMember(dir, id, member);
  }
  return state;
}

function restoreEmbeddedMember(dir: string, id: string, member: EmbeddedMember): void {
  // Copy into the existing tensors: the learner's optimizer holds references to them.
  const restore = member.adapter !== undefined
    ? { tensors: loadLoraAdapter(join(dir, 'adapters', id), member.model.config).tensors, into: member.model.trainableParameters(member.adapter) }
    : { tensors: loadCheckpoint(join(dir, 'policies', id)).tensors, into: member.model.parameters };
  for (const [name, t] of restore.into) {
    const source = restore.tensors.get(name);
    if (!source || source.data.length !== t.size) throw new TroupeError('checkpoint', `${dir}: policy '${id}' tensor '${name}' is missing or of the wrong size`);
    t.data.set(source.data);
  }
  const optimizer = readSafetensors(join(dir, 'optimizer', `${id}.safetensors`));
  member.learner.importOptimizerState({
    step: Number(optimizer.metadata?.step ?? 0),
    tensors: new Map([...optimizer.tensors].map(([name, t]) => [name, t.data])),
  });
}
