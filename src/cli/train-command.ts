/**
 * `troupe train`: trains a team on the embedded engine and writes a run folder.
 *
 *   npx troupe train examples/smoke.yaml
 *   npx troupe train examples/plan-path-train.yaml --set train.steps=60 --run-dir runs/pp
 *   npx troupe train examples/plan-path-train.yaml --resume        # continue a stopped run
 */
import { rmSync } from 'node:fs';
import { Command } from 'commander';
import type { BackendName } from '../engine/kernels/backend-name.js';
import { runTraining } from '../train/run-training.js';
import { backendOption, withBackendSet } from './backend-option.js';
import { interruptSignal } from './interrupt-signal.js';

export function trainCommand(): Command {
  return new Command('train')
    .description('train a team (warm start + RL) on the embedded engine; writes runs/<name>/ with metrics, checkpoints and report.html')
    .argument('<config>', 'run config (YAML or JSON), e.g. examples/smoke.yaml')
    .option('--set <key=value>', 'override one config key (repeatable), e.g. --set train.steps=20', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--run-dir <dir>', 'run folder (default runs/<name>)')
    .option('--resume', 'continue the run in the run folder from its newest checkpoint')
    .option('--allow-engine-change', 'with --resume: continue on other kernels (backend, bf16 mode; the thread count never matters) than the checkpoint was computed with; the numbers then differ from an uninterrupted run')
    .addOption(backendOption())
    .action(async (config: string, opts: { set: string[]; runDir?: string; resume?: boolean; allowEngineChange?: boolean; backend?: BackendName }) => {
      // Ctrl-C: the run stops after its step with a checkpoint; a second one exits at once,
      // removing a run folder this command made that holds nothing resumable yet.
      const ctrlC = interruptSignal(process.stderr);
      try {
        const result = await runTraining({
          config,
          set: withBackendSet(opts.set, opts.backend),
          runDir: opts.runDir,
          resume: opts.resume,
          allowEngineChange: opts.allowEngineChange,
          signal: ctrlC.signal,
          onUnkeptFolder: (dir) => ctrlC.onForcedExit(dir === undefined ? undefined : () => rmSync(dir, { recursive: true, force: true })),
        });
        if (result.interrupted) process.exitCode = 130;
      } finally {
        ctrlC.dispose();
      }
    });
}
