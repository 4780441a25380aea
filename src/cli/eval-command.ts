/**
 * `troupe eval`: success rate, mean turns and per-role rewards on held-out tasks (the eval
 * split, which training never sees), with a 95% interval.
 *
 *   npx troupe eval runs/plan-path-team            # a run folder: its config and newest checkpoint
 *   npx troupe eval examples/plan-path.yaml --set policy.skill=0.9 --json
 *
 * A slow (remote) model shows how many completions came back on stderr (and a Tinker service
 * each minute one request is still pending); when every completion failed (a dead server, a
 * wrong model name) the command fails instead of reporting 0%.
 */
import { Command } from 'commander';
import { runEval } from '../api/run-eval.js';
import type { BackendName } from '../engine/kernels/backend-name.js';
import type { EvalResult } from '../train/evaluate.js';
import { TroupeError } from '../util/errors.js';
import { backendOption, withBackendSet } from './backend-option.js';

export function formatEval(r: EvalResult & { source: string; name: string }): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const lines = [
    `eval ${r.name} (${r.source}): success ${pct(r.success_rate)} [95% ${pct(r.ci_low)}-${pct(r.ci_high)}] on ${r.n} held-out tasks, mean turns ${r.mean_turns.toFixed(2)}, parse failures ${r.parse_failures}`,
    ...Object.entries(r.roles).map(([role, x]) => `  ${role.padEnd(8)} reward ${x.reward.toFixed(3)} (local ${x.local.toFixed(3)}, global ${x.global.toFixed(3)})`),
    ...(r.generation_errors > 0 ? [`warning: ${r.generation_errors} completions could not be generated; the first: ${r.first_error ?? '(no reason given)'}`] : []),
  ];
  return `${lines.join('\n')}\n`;
}

export function evalCommand(): Command {
  return new Command('eval')
    .description('score a team on held-out tasks: success rate with a 95% interval, mean turns, per-role rewards')
    .argument('<config-or-run>', 'a run folder (runs/<name>) or a config file')
    .option('--set <key=value>', 'override one config key (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--tasks <n>', 'number of held-out tasks (default train.eval_tasks)', (v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new TroupeError('input', `--tasks: expected a whole number >= 1, got ${JSON.stringify(v)}`);
      return n;
    })
    .option('--json', 'print one JSON object')
    .addOption(backendOption())
    .action(async (target: string, opts: { set: string[]; tasks?: number; json?: boolean; backend?: BackendName }) => {
      const progress = { stream: process.stderr, everyMs: process.stderr.isTTY ? 1000 : 5000 };
      // On a TTY the line clears the redrawn progress line first, which the next redraw restores.
      const onWait = (message: string) => process.stderr.write(`${process.stderr.isTTY ? '\r\x1b[K' : ''}${message}\n`);
      const result = await runEval({ target, set: withBackendSet(opts.set, opts.backend), tasks: opts.tasks, progress, onWait });
      process.stdout.write(opts.json ? `${JSON.stringify(result)}\n` : formatEval(result));
    });
}
