#!/usr/bin/env node
/**
 * The `troupe` command. Each subcommand lives in its own file and registers itself here
 * explicitly (no discovery), so `troupe --help` lists exactly what this file names.
 *
 *   npx troupe --help
 */
import { Command } from 'commander';
import { TroupeError } from '../util/errors.js';
import { rolloutCommand } from './rollout-command.js';
import { trainCommand } from './train-command.js';
import { evalCommand } from './eval-command.js';
import { reportCommand } from './report-command.js';
import { registerModelCommand } from './model-command.js';
import { benchCommand } from './bench-command.js';
import { serveCommand } from './serve-command.js';

const program = new Command();
program
  .name('troupe')
  .description('Train teams of LLM agents with on-policy multi-agent RL, on a plain CPU.')
  .version('0.1.0')
  .showHelpAfterError();

// Subcommands (one line each, in the order `--help` shows them):
program.addCommand(trainCommand());
program.addCommand(evalCommand());
program.addCommand(reportCommand());
program.addCommand(rolloutCommand());
registerModelCommand(program);
program.addCommand(benchCommand());
program.addCommand(serveCommand());

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof TroupeError) {
    process.stderr.write(`troupe: ${error.category} error: ${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
