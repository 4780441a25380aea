/**
 * Reads a YAML (or JSON) config file, applies `--set` overrides and resolves it:
 *
 * ```ts
 * const config = loadConfig('examples/plan-path.yaml', ['rollout.k=8']);
 * ```
 *
 * Bad YAML names the file, line and column; bad values name the key path (resolve-config.ts).
 */
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import { TroupeError } from '../util/errors.js';
import { applyOverrides, parseOverride } from './apply-overrides.js';
import { resolveConfig, type ResolvedConfig } from './resolve-config.js';

/** Parses config text; YAML is a superset of JSON, so one reader serves both. */
export function parseConfigText(text: string, source: string): unknown {
  const doc = YAML.parseDocument(text);
  const error = doc.errors[0];
  if (error) {
    const pos = error.linePos?.[0];
    const at = pos ? `:${pos.line}:${pos.col}` : '';
    throw new TroupeError('config', `${source}${at}: bad YAML: ${error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`);
  }
  return doc.toJS();
}

export function loadConfig(path: string, overrides: readonly string[] = []): ResolvedConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new TroupeError('config', `cannot read config file ${path}: ${(error as Error).message}`, { cause: error });
  }
  const parsedOverrides = overrides.map(parseOverride);
  const raw = parseConfigText(text, path) ?? {};
  const object =
    raw !== null && typeof raw === 'object' && !Array.isArray(raw)
      ? applyOverrides(raw as Record<string, unknown>, parsedOverrides)
      : raw;
  return resolveConfig(object, { source: path, overrides: parsedOverrides });
}
