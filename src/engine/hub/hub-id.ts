/**
 * Which strings are hub ids. A hub id is `Org/Name` or `Org/Name@revision`, each part made
 * of letters, digits, `-`, `_`, `.` (not starting or ending with `-` or `.`, no `--` or `..`),
 * at most 96 characters: the rules the hub itself enforces. Anything else (`./x`, `/abs`,
 * `a/b/c`, a single name) is only ever a folder.
 */
import type { HubId } from './types.js';

const PART = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?$/;

function validPart(part: string): boolean {
  return PART.test(part) && !part.includes('--') && !part.includes('..');
}

/** The hub id `text` spells, or undefined when it cannot be one. */
export function parseHubId(text: string): HubId | undefined {
  const at = text.indexOf('@');
  const repo = at < 0 ? text : text.slice(0, at);
  const revision = at < 0 ? 'main' : text.slice(at + 1);
  const parts = repo.split('/');
  if (parts.length !== 2 || !parts.every(validPart) || repo.length > 96) return undefined;
  // Revisions may hold '/' (refs/pr/1) but never climb out of the refs folder.
  if (revision.length === 0 || revision.split('/').some((p) => p === '' || p === '.' || p === '..') || /\s/.test(revision)) return undefined;
  return { repo, revision };
}

export function formatHubId(id: HubId): string {
  return id.revision === 'main' ? id.repo : `${id.repo}@${id.revision}`;
}

/** A full commit hash names a snapshot directly, with no ref to look up. */
export function isCommitHash(revision: string): boolean {
  return /^[0-9a-f]{40}$/.test(revision);
}

/** The cache folder name of a model repo: `models--Org--Name`. */
export function repoFolderName(repo: string): string {
  return `models--${repo.split('/').join('--')}`;
}
