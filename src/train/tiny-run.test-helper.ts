// A training config small enough for tests (a 4x4 Plan-Path team, a 1-layer model of width
// 16, a few warm-start episodes), written to a fresh temp folder that is removed when the
// test process ends. Tests vary only the policy map and the train section.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testDir } from '../util/test-dir.test-helper.js';

/** The compiled CLI entry (tests run from dist/). */
export const cliPath = join(dirname(fileURLToPath(import.meta.url)), '..', 'cli', 'main.js');

export function tinyRun(options: { map: string; train: string; prefix: string }): { dir: string; config: string } {
  const dir = testDir(options.prefix);
  const config = join(dir, 'tiny.yaml');
  writeFileSync(
    config,
    `name: tiny
tasks: { name: plan-path, size: 4, min_distance: 1 }
team: { max_turns: 2 }
rollout: { k: 2, tasks: 2, max_tokens: 8 }
policy: { kind: embedded, map: ${options.map} }
model: { hidden: 16, layers: 1, heads: 2, intermediate: 32, context: 80 }
warm_start: { episodes: 10, epochs: 1, batch_tokens: 2048, warmup_steps: 1 }
train: ${options.train}
`,
  );
  return { dir, config };
}

/** Runs the CLI with `args` and sends one SIGINT (Ctrl-C) when stderr first matches `when`. */
export async function interruptWhen(args: readonly string[], when: RegExp, env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    const before = stderr;
    stderr += text;
    if (!when.test(before) && when.test(stderr)) child.kill('SIGINT');
  });
  return { code: await exited, stderr };
}

/** Fields of metrics.jsonl that measure time, not what was computed. */
const TIMING = new Set(['elapsed_s', 'samples_per_s', 'tokens_per_s', 'rollout_s', 'update_s']);

/** The records of a run's metrics.jsonl without their timing fields: equal for runs that computed the same. */
export function metricsWithoutTiming(runDir: string): any[] {
  return readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line, (key, value: unknown) => (TIMING.has(key) ? undefined : value)));
}
