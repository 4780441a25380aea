// Tests that read files shipped in the repository (datasets/, docs/, examples/) find them from
// the compiled test file's own location, so they pass whatever folder the runner starts in.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest folder above this file with a package.json. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json not found above the test file');
    dir = parent;
  }
  return dir;
}

/** The HumanEval file shipped in datasets/humaneval/ (164 problems, MIT, OpenAI). */
export function shippedHumanEvalPath(): string {
  return join(repoRoot(), 'datasets', 'humaneval', 'HumanEval.jsonl.gz');
}
