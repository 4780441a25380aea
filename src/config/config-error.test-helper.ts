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
