/** Test helper of the config tests: the config error message of `fn`, failing if it throws none. */
import assert from 'node:assert/strict';
import { TroupeError } from '../util/errors.js';

export function configError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof TroupeError, String(error));
    assert.equal(error.category, 'config');
    return error.message;
  }
  assert.fail('expected a config error');
}

/** The message of the TroupeError of `category` that `fn`'s promise rejects with, failing on anything else. */
export async function rejection(category: string, fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
  } catch (error) {
    assert.ok(error instanceof TroupeError, String(error));
    assert.equal(error.category, category);
    return error.message;
  }
  assert.fail(`expected a ${category} error`);
}
