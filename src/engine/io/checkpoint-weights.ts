/**
 * The weights of a model folder, single-file or sharded, opened for streamed reads:
 *
 *   model.safetensors                    one file, or
 *   model.safetensors.index.json         {"metadata": {...}, "weight_map": {name: shard file}}
 *   model-00001-of-0000N.safetensors     plus the shards it names (transformers' layout)
 *
 * Opening reads every shard's header only and cross-checks the index against the shards:
 * a missing shard file, a tensor the index lists but its shard lacks, or a tensor stored in a
 * shard the index does not point to are `checkpoint` errors naming the file and the key.
 *
 *   const weights = openCheckpointWeights('models/qwen3');
 *   weights.read('model.norm.weight', tensor.data);
 *   weights.close();
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { TroupeError } from '../../util/errors.js';
import type { HeaderEntry } from './safetensors.js';
import { SafetensorsFile } from './safetensors-file.js';

export const WEIGHTS_FILE = 'model.safetensors';
export const WEIGHTS_INDEX_FILE = 'model.safetensors.index.json';

/** A tensor of the checkpoint: its header entry and the file that holds it. */
export interface CheckpointTensor extends HeaderEntry {
  readonly file: string;
}

export interface CheckpointWeights {
  /** The file errors about the set of tensors name: model.safetensors or the index. */
  readonly source: string;
  /** Every tensor, by name. */
  readonly tensors: ReadonlyMap<string, CheckpointTensor>;
  /** Reads (part of) a tensor into float32 values or bf16 bits; see SafetensorsFile.read. */
  read(name: string, dest: Float32Array | Uint16Array, start?: number): void;
  close(): void;
}

/** Opens the weights of the model folder `dir` (index + shards when the index exists). */
export function openCheckpointWeights(dir: string): CheckpointWeights {
  const indexPath = join(dir, WEIGHTS_INDEX_FILE);
  const single = join(dir, WEIGHTS_FILE);
  if (!existsSync(indexPath)) {
    if (!existsSync(single)) {
      throw new TroupeError('checkpoint', `${dir} has neither ${WEIGHTS_FILE} nor ${WEIGHTS_INDEX_FILE}; a model folder needs its weights (save it with transformers' save_pretrained or troupe model init)`);
    }
    return fromFiles(new Map([[WEIGHTS_FILE, SafetensorsFile.open(single)]]), null, single);
  }
  const weightMap = readWeightMap(indexPath);
  const files = new Map<string, SafetensorsFile>();
  try {
    for (const shard of new Set(weightMap.values())) {
      const path = join(dir, shard);
      if (!existsSync(path)) {
        const example = [...weightMap].find(([, s]) => s === shard)![0];
        throw new TroupeError('checkpoint', `${indexPath}: weight_map puts ${example} in shard ${shard} but ${path} does not exist; download the missing shard or fix the index`);
      }
      files.set(shard, SafetensorsFile.open(path));
    }
    return fromFiles(files, { path: indexPath, weightMap }, indexPath);
  } catch (error) {
    for (const f of files.values()) f.close();
    throw error;
  }
}

/** The index's weight_map, validated: tensor name -> shard file name (a plain file name). */
function readWeightMap(indexPath: string): Map<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(indexPath, 'utf8'));
  } catch (error) {
    throw new TroupeError('checkpoint', `${indexPath} is not valid JSON (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
  const weightMap = (parsed as { weight_map?: unknown } | null)?.weight_map;
  if (typeof weightMap !== 'object' || weightMap === null || Array.isArray(weightMap)) {
    throw new TroupeError('checkpoint', `${indexPath} has no "weight_map" object (tensor name -> shard file); regenerate it with save_pretrained`);
  }
  const map = new Map<string, string>();
  for (const [name, shard] of Object.entries(weightMap)) {
    if (typeof shard !== 'string' || shard === '' || basename(shard) !== shard) {
      throw new TroupeError('checkpoint', `${indexPath}: weight_map["${name}"] is ${JSON.stringify(shard)}; it must be a shard file name in the same folder`);
    }
    map.set(name, shard);
  }
  return map;
}

function fromFiles(files: Map<string, SafetensorsFile>, index: { path: string; weightMap: Map<string, string> } | null, source: string): CheckpointWeights {
  const tensors = new Map<string, CheckpointTensor>();
  for (const [shard, file] of files) {
    for (const [name, entry] of file.entries) {
      const listed = index?.weightMap.get(name);
      if (index && listed !== shard) {
        const where = listed === undefined ? 'does not list it' : `puts it in ${listed}`;
        throw new TroupeError('checkpoint', `${file.path}: holds tensor ${name} but ${index.path} ${where}; fix the index (or remove the stray tensor)`);
      }
      tensors.set(name, { ...entry, file: file.path });
    }
  }
  if (index) {
    for (const [name, shard] of index.weightMap) {
      if (!tensors.has(name)) {
        throw new TroupeError('checkpoint', `${files.get(shard)!.path}: tensor ${name} is listed in ${index.path} but absent from this shard; the shard is incomplete or the index is stale`);
      }
    }
  }
  const fileOf = (name: string): SafetensorsFile => {
    const t = tensors.get(name);
    if (t === undefined) throw new TroupeError('checkpoint', `the checkpoint has no tensor ${name}`);
    return files.get(index ? index.weightMap.get(name)! : WEIGHTS_FILE)!;
  };
  return {
    source,
    tensors,
    read: (name, dest, start) => fileOf(name).read(name, dest, start),
    close: () => {
      for (const f of files.values()) f.close();
    },
  };
}
