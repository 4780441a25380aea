/**
 * `troupe rollout`: plays a team on a batch of tasks without training and writes every sample
 * as one JSON line, then prints a short summary.
 *
 *   npx troupe rollout examples/plan-path.yaml --out runs/plan-path-rollout.jsonl
 *   npx troupe rollout examples/toy.yaml --set rollout.k=8 --set policy.skill=0.9 --tasks 4 --out runs/toy.jsonl
 *
 *   npx troupe rollout examples/toy.yaml --out - | jq .role                      # samples on stdout
 *
 * Same config and seed -> byte-identical file. The file is written atomically (temp file +
 * rename) so a crash never leaves a half-written rollout behind. With `--out -` the samples go
 * to stdout and the summary to stderr, so the output pipes. On a Tinker service, each minute
 * one request is still pending prints `still waiting for ...` on stderr.
 */
import { Command } from 'commander';
import { runRollout } from '../api/run-rollout.js';
import type { BackendName } from '../engine/kernels/backend-name.js';
import { TroupeError } from '../util/errors.js';
import { backendOption, withBackendSet } from './backend-option.js';

export function rolloutCommand(): Command {
  return new Command('rollout')
    .description('play a team on a batch of tasks without training; write the samples as JSONL')
    .argument('<config>', 'run config (YAML or JSON), e.g. examples/plan-path.yaml')
    .requiredOption('--out <file>', 'where to write the samples (.jsonl), or - for stdout (the summary then goes to stderr)')
    .option('--set <key=value>', 'override one config key (repeatable), e.g. --set rollout.k=8', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--tasks <n>', 'number of tasks (overrides rollout.tasks)', (v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new TroupeError('input', `--tasks: expected a whole number >= 1, got ${JSON.stringify(v)}`);
      return n;
    })
    .addOption(backendOption())
    .action(async (config: string, opts: { out: string; set: string[]; tasks?: number; backend?: BackendName }) => {
      const onWait = (message: string) => process.stderr.write(`${message}\n`);
      await runRollout({ config, out: opts.out, set: withBackendSet(opts.set, opts.backend), onWait, ...(opts.tasks === undefined ? {} : { tasks: opts.tasks }) });
    });
}
