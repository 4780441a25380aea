/**
 * The `troupe` subcommands, in the order `--help` lists them: each with its one-line summary and
 * a loader that imports its module only when that command runs. `troupe --help` then starts in
 * well under a second, without loading the engine, the tokenizers or the server.
 * cli-commands.test.ts checks each summary against the command's own description.
 */
import type { Command } from 'commander';

export interface CommandEntry {
  readonly name: string;
  readonly summary: string;
  /** Adds the real command (options, action) to `program`. */
  readonly load: (program: Command) => Promise<void>;
}

export const commandTable: readonly CommandEntry[] = [
  {
    name: 'train',
    summary: 'train a team (warm start + RL) on the embedded engine; writes runs/<name>/ with metrics, checkpoints and report.html',
    load: async (program) => void program.addCommand((await import('./train-command.js')).trainCommand()),
  },
  {
    name: 'eval',
    summary: 'score a team on held-out tasks: success rate with a 95% interval, mean turns, per-role rewards',
    load: async (program) => void program.addCommand((await import('./eval-command.js')).evalCommand()),
  },
  {
    name: 'report',
    summary: "write runs/<name>/report.html (plots of the run's metrics) from its metrics.jsonl",
    load: async (program) => void program.addCommand((await import('./report-command.js')).reportCommand()),
  },
  {
    name: 'compare',
    summary: 'runs side by side: a markdown table of final held-out success (95% interval, n) on stdout, runs named <base>-seedN grouped; --out writes their curves as one HTML page',
    load: async (program) => void program.addCommand((await import('./compare-command.js')).compareCommand()),
  },
  {
    name: 'rollout',
    summary: 'play a team on a batch of tasks without training; write the samples as JSONL',
    load: async (program) => void program.addCommand((await import('./rollout-command.js')).rolloutCommand()),
  },
  {
    name: 'model',
    summary: 'create and inspect model folders (Hugging Face layout)',
    load: async (program) => (await import('./model-command.js')).registerModelCommand(program),
  },
  {
    name: 'bench',
    summary: "measure the speed of Troupe's parts",
    load: async (program) => void program.addCommand((await import('./bench-command.js')).benchCommand()),
  },
  {
    name: 'serve',
    summary:
      'serve a model folder or a run over the OpenAI HTTP API (/v1/models, /v1/completions, /v1/chat/completions), or base models over the Tinker API (--tinker)',
    load: async (program) => void program.addCommand((await import('./serve-command.js')).serveCommand()),
  },
];
