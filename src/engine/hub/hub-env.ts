/** Reads the hub settings from the environment, with huggingface_hub's names and defaults. */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { HubEnv } from './types.js';

type Env = Readonly<Record<string, string | undefined>>;

/** huggingface_hub's truthy spellings for boolean variables. */
function isTrue(value: string | undefined): boolean {
  return value !== undefined && ['1', 'ON', 'YES', 'TRUE'].includes(value.trim().toUpperCase());
}

function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : path;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export function hfHome(env: Env = process.env): string {
  return expandHome(nonEmpty(env.HF_HOME) ?? join(nonEmpty(env.XDG_CACHE_HOME) ?? join(homedir(), '.cache'), 'huggingface'));
}

export function readHubEnv(env: Env = process.env): HubEnv {
  const home = hfHome(env);
  // HUGGINGFACE_HUB_CACHE is the older name huggingface_hub still honours.
  const cacheDir = expandHome(nonEmpty(env.HF_HUB_CACHE) ?? nonEmpty(env.HUGGINGFACE_HUB_CACHE) ?? join(home, 'hub'));
  const endpoint = (nonEmpty(env.HF_ENDPOINT) ?? 'https://huggingface.co').replace(/\/+$/, '');
  const tokenPath = expandHome(nonEmpty(env.HF_TOKEN_PATH) ?? join(home, 'token'));
  const token = nonEmpty(env.HF_TOKEN) ?? nonEmpty(env.HUGGING_FACE_HUB_TOKEN) ?? (existsSync(tokenPath) ? nonEmpty(readFileSync(tokenPath, 'utf8')) : undefined);
  // As in huggingface_hub: HF_HUB_OFFLINE when set, else TRANSFORMERS_OFFLINE.
  const offline = isTrue(nonEmpty(env.HF_HUB_OFFLINE) ?? env.TRANSFORMERS_OFFLINE);
  return { cacheDir, endpoint, ...(token !== undefined ? { token } : {}), offline };
}
