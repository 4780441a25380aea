/**
 * Imports a task module written in TypeScript where Node cannot (Node 20 has no type
 * stripping): the source is transpiled by the project's own `typescript` package (types
 * removed, nothing checked) to a uniquely named `.mjs` file beside it, so that its imports
 * (`troupe`, a sibling `./util.js`) resolve exactly as they would from the source, imported,
 * and removed again. The way vite loads `vite.config.ts`.
 *
 *   const module = await importTypeScript('/work/relay/relay.ts');   // { default: defineTask(...) }
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TroupeError } from '../util/errors.js';

interface TypeScriptCompiler {
  transpileModule(source: string, options: { fileName: string; compilerOptions: Record<string, unknown> }): { outputText: string };
  ModuleKind: { ES2022: number };
  ScriptTarget: { ES2022: number };
}

/** The `typescript` package, from the project that runs Troupe; a TroupeError saying how to get it when absent. */
async function compiler(shown: string): Promise<TypeScriptCompiler> {
  try {
    const ts = (await import('typescript')) as unknown as { default?: TypeScriptCompiler } & TypeScriptCompiler;
    return ts.default ?? ts;
  } catch (cause) {
    throw new TroupeError('config', `tasks.module ${shown}: Node cannot import TypeScript by itself and the typescript package is not installed; npm install --save-dev typescript, run troupe under tsx, or compile the task to .mjs`, { cause });
  }
}

/** The module at `path` (a .ts/.mts file), transpiled for this one import. */
export async function importTypeScript(path: string, shown: string): Promise<{ default?: unknown }> {
  const ts = await compiler(shown);
  const { outputText } = ts.transpileModule(readFileSync(path, 'utf8'), {
    fileName: path,
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, sourceMap: false, inlineSourceMap: true },
  });
  // Unique per import: two runs (or a run and its sampling thread) may load the file at once.
  const compiled = join(dirname(path), `.${basename(path)}.${process.pid}-${randomBytes(4).toString('hex')}.mjs`);
  writeFileSync(compiled, outputText);
  try {
    return (await import(pathToFileURL(compiled).href)) as { default?: unknown };
  } finally {
    rmSync(compiled, { force: true });
  }
}
