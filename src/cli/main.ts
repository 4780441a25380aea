#!/usr/bin/env node
/**
 * The `troupe` command. Subcommands are listed explicitly in command-table.ts (no discovery);
 * only the one being run is imported, so `troupe --help` lists them all without loading any.
 *
 *   npx troupe --help
 */
import { Command } from 'commander';
import { TroupeError } from '../util/errors.js';
import { commandTable } from './command-table.js';

const program = new Command();
program
  .name('troupe')
  .description('Train teams of LLM agents with on-policy multi-agent RL, on a plain CPU.')
  .version('0.1.0')
  .showHelpAfterError();

// The first argument that is not an option names the subcommand; `troupe help train` names it second.
const args = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const wanted = args[0] === 'help' ? args[1] : args[0];

try {
  for (const entry of commandTable) {
    if (entry.name === wanted) await entry.load(program);
    else program.command(entry.name).description(entry.summary);
  }
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof TroupeError) {
    process.stderr.write(`troupe: ${error.category} error: ${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
