// The summary tables of bench/thread-scaling.sh, from the files it wrote into its folder:
// engine.json (`troupe bench engine --json`), model.json (bench/thread-scaling-model.ts),
// train.jsonl (one line per training run compared with the 1-thread run) and sandbox.json
// (bench/sandbox-concurrency.ts). A part that is
// missing (not run, or the run was cut short) is said so, not skipped silently.
//
//   node dist/bench/thread-scaling-report.js FOLDER        # the tables on stdout
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EngineBenchResult } from '../src/cli/bench-command.js';
import type { ModelFigures } from '../src/cli/model-figures.js';

interface ModelScaling {
  readonly model: { readonly hidden: number; readonly layers: number; readonly vocab: number; readonly parameters: number; readonly dtype: string };
  readonly sizes: { readonly newTokens: number; readonly wideBatch: number; readonly prefill: number; readonly trainBatch: number; readonly trainContext: number };
  readonly backend: string;
  readonly complete: boolean;
  readonly points: ReadonlyArray<ModelFigures & { readonly threads: number }>;
  readonly same_numbers: Readonly<Record<string, boolean>>;
}

/** One line of train.jsonl, written by bench/thread-scaling.sh. */
interface TrainComparison {
  readonly run: string;
  readonly threads: number;
  readonly wall_s: number;
  readonly engine: string;
  readonly equal: boolean | null;
  readonly detail: string;
}

interface SandboxScaling {
  readonly programs: number;
  readonly points: ReadonlyArray<{ readonly concurrency: number; readonly wall_s: number; readonly programs_per_s: number; readonly ok: number }>;
  readonly same_outputs?: boolean;
  readonly error?: string;
}

const folder = process.argv[2];
if (folder === undefined) {
  process.stderr.write('usage: node dist/bench/thread-scaling-report.js FOLDER\n');
  process.exit(2);
}

function readJson<T>(name: string): T | undefined {
  const path = join(folder!, name);
  if (!existsSync(path)) return undefined;
  const text = readFileSync(path, 'utf8').trim();
  try {
    return JSON.parse(text.split('\n').pop()!) as T;
  } catch {
    return undefined;
  }
}

/** Right-aligned columns under a header. */
function table(header: string[], rows: string[][]): string[] {
  const width = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]): string => cells.map((cell, c) => cell.padStart(width[c]!)).join('  ');
  return [line(header), ...rows.map(line)];
}

const speedUp = (base: number, x: number): string => `${(base / x).toFixed(2)}x`;
const gain = (base: number, x: number): string => `${(x / base).toFixed(2)}x`;
const out: string[] = [];

const engine = readJson<EngineBenchResult>('engine.json');
if (engine === undefined) {
  out.push('engine benchmark: no result (engine.json missing or incomplete)');
} else {
  const m = engine.model;
  out.push(`machine: ${engine.machine.cpu}, ${engine.machine.cores} cores, Node ${engine.machine.node}, ${engine.machine.simd} (backend ${engine.backend}); load ${engine.load_start.join(' ')} at the start`);
  out.push('', `engine benchmark: full training step of Llama ${m.layers} x hidden ${m.hidden} (${(engine.parameters / 1e6).toFixed(2)}M, float32), batch ${m.batch} x context ${m.context}`);
  const base = engine.scaling[0]!.train_step_ms;
  out.push(...table(['threads', 'step ms', 'speed-up', 'GFLOP/s 256^3', 'GFLOP/s 64x512x2048'], engine.scaling.map((p) => [String(p.threads), p.train_step_ms.toFixed(1), speedUp(base, p.train_step_ms), p.matmul_256_gflops.toFixed(1), p.matmul_64x512x2048_gflops.toFixed(1)])));
  out.push(`same training losses on every thread count: ${engine.scaling_losses_equal ? 'yes' : 'NO (a bug)'}`);
  out.push(`at ${engine.threads} threads: decode ${engine.decode_b1_tok_s} tok/s (batch 1), ${engine.decode_b16_tok_s} tok/s (batch 16), prefill ${engine.prefill_tok_s} tok/s`);
}

const model = readJson<ModelScaling>('model.json');
if (model === undefined) {
  out.push('', 'model of real width: no result (model.json missing or incomplete)');
} else {
  const m = model.model;
  const s = model.sizes;
  out.push('', `model of real width: Qwen3 shape, hidden ${m.hidden}, ${m.layers} layers, vocab ${m.vocab} (${(m.parameters / 1e6).toFixed(0)}M, ${m.dtype}; backend ${model.backend})`);
  out.push(`LoRA step: ${s.trainBatch} x ${s.trainContext} tokens; decode: ${s.newTokens} new tokens at batch 1 and ${s.wideBatch}; prefill: ${s.prefill} tokens`);
  const b = model.points[0]!;
  out.push(...table(['threads', 'LoRA step ms', 'speed-up', 'decode b1 tok/s', 'x', `decode b${s.wideBatch} tok/s`, 'x', 'prefill tok/s', 'x'], model.points.map((p) => [
    String(p.threads), p.lora_step_ms.toFixed(0), speedUp(b.lora_step_ms, p.lora_step_ms),
    p.decode_b1_tok_s.toFixed(1), gain(b.decode_b1_tok_s, p.decode_b1_tok_s),
    p.decode_b16_tok_s.toFixed(1), gain(b.decode_b16_tok_s, p.decode_b16_tok_s),
    p.prefill_tok_s.toFixed(0), gain(b.prefill_tok_s, p.prefill_tok_s),
  ])));
  if (!model.complete) out.push(`cut short: only ${model.points.length} thread count(s) measured`);
  out.push(`same numbers on every thread count: ${Object.entries(model.same_numbers).map(([part, same]) => `${part} ${same ? 'yes' : 'NO (a bug)'}`).join(', ')}`);
}

const trainPath = join(folder, 'train.jsonl');
const runs: TrainComparison[] = existsSync(trainPath) ? readFileSync(trainPath, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as TrainComparison) : [];
out.push('', 'training runs against the same run on 1 thread (metrics without timing fields; weights, rollouts, optimizer byte for byte):');
if (runs.length === 0) out.push('no result (train.jsonl missing)');
else out.push(...table(['run', 'threads', 'wall s', 'result', 'engine'], runs.map((r) => [r.run, String(r.threads), r.wall_s.toFixed(1), r.equal === null ? 'reference' : r.equal ? 'EQUAL' : 'DIFFERENT', r.engine])));
for (const r of runs) if (r.equal === false) out.push(`${r.run} on ${r.threads} threads: ${r.detail}`);

const sandbox = readJson<SandboxScaling>('sandbox.json');
if (sandbox === undefined) out.push('', 'code sandbox: no result (sandbox.json missing or incomplete)');
else if (sandbox.error !== undefined) out.push('', `code sandbox: cannot run on this machine: ${sandbox.error}`);
else {
  out.push('', `code sandbox: ${sandbox.programs} small Python programs at each concurrency`);
  const base = sandbox.points[0]!;
  out.push(...table(['at once', 'wall s', 'programs/s', 'speed-up', 'ok'], sandbox.points.map((p) => [String(p.concurrency), p.wall_s.toFixed(2), p.programs_per_s.toFixed(1), gain(base.programs_per_s, p.programs_per_s), `${p.ok}/${sandbox.programs}`])));
  out.push(`same outputs at every concurrency: ${sandbox.same_outputs ? 'yes' : 'NO (a bug)'}`);
}

process.stdout.write(`${out.join('\n')}\n`);
