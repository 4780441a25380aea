// The tokenizer fixtures (made by scripts/make-tokenizer-fixtures.py with the Rust tokenizers
// library) are data files that tsc does not copy to dist/, so tests read them from the source
// tree whether they run as src/**/*.ts or dist/src/**/*.js.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../util/repo-root.test-helper.js';

export const FIXTURE_NAMES = ['bytelevel-bpe', 'metaspace-bpe', 'metaspace-unigram'] as const;

export interface FixtureCase {
  readonly text: string;
  /** The Rust library's encode(text, add_special_tokens=False).ids. */
  readonly ids: number[];
  /** decode(ids, skip_special_tokens=False). */
  readonly decoded: string;
  /** decode([bos, ...ids, eos]) without and with skip_special_tokens. */
  readonly framedDecoded: string;
  readonly framedDecodedSkip: string;
}

export interface FixtureExpected {
  readonly vocabSize: number;
  readonly special: { bos: number | null; eos: number | null; pad: number | null; unk: number | null };
  /** encode(text, add_special_tokens=True): what the post-processor adds (Troupe must not). */
  readonly withSpecialTokens: { text: string; ids: number[] };
  readonly cases: FixtureCase[];
}

export function fixtureDir(name: string): string {
  return join(repoRoot(), 'src', 'engine', 'tokenizer', 'fixtures', name);
}

export function readFixtureJson(name: string, file: 'tokenizer.json' | 'tokenizer_config.json' | 'expected.json'): Record<string, unknown> {
  return JSON.parse(readFileSync(join(fixtureDir(name), file), 'utf8')) as Record<string, unknown>;
}

export function fixtureExpected(name: string): FixtureExpected {
  return readFixtureJson(name, 'expected.json') as unknown as FixtureExpected;
}
