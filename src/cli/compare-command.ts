/**
 * `troupe compare`: runs side by side. Prints the final held-out table (markdown, ready for a
 * results page) on stdout and, with --out, writes one self-contained HTML page of the curves.
 *
 *   npx troupe compare runs/plan-path-seed1 runs/plan-path-seed2 runs/plan-path-lora-seed1 --out compare.html
 */
import { Command } from 'commander';
import { compare } from '../api/compare.js';

export function compareCommand(): Command {
  return new Command('compare')
    .description('runs side by side: a markdown table of final held-out success (95% interval, n) on stdout, runs named <base>-seedN grouped; --out writes their curves as one HTML page')
    .argument('<run-dirs...>', 'run folders, e.g. runs/plan-path-seed1 runs/plan-path-seed2')
    .option('--out <file>', 'also write the curves (held-out success, reward, entropy, turns) to this HTML file')
    .option('--title <text>', 'heading of the HTML page', 'Runs compared')
    .action(async (runs: string[], options: { out?: string; title: string }) => {
      const result = await compare({ runs, title: options.title, ...(options.out === undefined ? {} : { out: options.out }) });
      for (const warning of result.warnings) process.stderr.write(`${warning}\n`);
      process.stdout.write(result.markdown);
      if (options.out !== undefined) process.stderr.write(`wrote ${options.out}\n`);
    });
}
