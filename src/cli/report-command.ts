/**
 * `troupe report`: (re)writes a run folder's report.html from its metrics.jsonl and
 * config.yaml, e.g. while a run is still going or after copying a run from another machine.
 *
 *   npx troupe report runs/plan-path-team
 */
import { Command } from 'commander';
import { writeReport } from '../train/report/write-report.js';

export function reportCommand(): Command {
  return new Command('report')
    .description('write runs/<name>/report.html (plots of the run\'s metrics) from its metrics.jsonl')
    .argument('<run-dir>', 'a run folder, e.g. runs/plan-path-team')
    .action((runDir: string) => {
      process.stdout.write(`${writeReport(runDir)}\n`);
    });
}
