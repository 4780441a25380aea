// The zod blocks of the Tinker request schemas: each refusal is a 400 that names the field by
// its path and says what it takes and what it got; missing and null fields take their defaults.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { finite, flag, integer, optional, parseTinker, section, text, withDefault } from './request-fields.js';
import { TinkerApiError } from './tinker-api-error.js';

const Body = z.looseObject({
  params: section({
    beta: withDefault(finite({ min: 0, below: 1 }), 0.9),
    rank: withDefault(integer({ min: 1, max: 8, maxIs: "this server's --max-rank" }), 4),
    on: withDefault(flag, true),
  }),
  name: optional(text(5)),
});

function refusal(body: unknown): string {
  try {
    parseTinker(Body, body);
  } catch (error) {
    assert.ok(error instanceof TinkerApiError);
    assert.equal(error.status, 400);
    assert.equal(error.category, 'user');
    return error.message;
  }
  assert.fail(`accepted ${JSON.stringify(body)}`);
}

test('missing, null and empty sections take every default; given values pass through', () => {
  const params = { beta: 0.9, rank: 4, on: true };
  assert.deepEqual(parseTinker(Body, {}), { params });
  assert.deepEqual(parseTinker(Body, { params: null, name: null }), { params, name: undefined });
  assert.deepEqual(parseTinker(Body, { params: { beta: 0.5, rank: 8, on: false }, name: 'ab' }), { params: { beta: 0.5, rank: 8, on: false }, name: 'ab' });
});

test('a wrong type says what the field takes; a value out of range says the range', () => {
  assert.equal(refusal({ params: { beta: 'x' } }), 'params.beta: must be a finite number >= 0 and < 1, got "x"');
  assert.equal(refusal({ params: { beta: 1 } }), 'params.beta: must be >= 0 and < 1, got 1');
  assert.equal(refusal({ params: { rank: 1.5 } }), "params.rank: must be an integer >= 1 and <= 8 (this server's --max-rank), got 1.5");
  assert.equal(refusal({ params: { rank: 9 } }), "params.rank: must be >= 1 and <= 8 (this server's --max-rank), got 9");
  assert.equal(refusal({ params: { on: 'yes' } }), 'params.on: must be true or false, got "yes"');
  assert.equal(refusal({ params: 'rank 8' }), 'params: must be a JSON object, got "rank 8"');
});

test('an integer past 2^53 is refused as not an integer, not as out of range', () => {
  const Big = z.looseObject({ seq: integer({ min: 1 }) });
  assert.throws(() => parseTinker(Big, { seq: 2 ** 60 }), (error: Error) => error.message === 'seq: must be an integer >= 1, got 1152921504606847000');
});

test('strings: empty or not a string is one sentence, too long another; long values are cut in the message', () => {
  assert.equal(refusal({ name: '' }), 'name: must be a non-empty string, got ""');
  assert.equal(refusal({ name: 7 }), 'name: must be a non-empty string, got 7');
  assert.equal(refusal({ name: 'abcdef' }), 'name: has 6 characters; at most 5 are allowed');
  assert.equal(refusal({ params: { beta: 'y'.repeat(500) } }), `params.beta: must be a finite number >= 0 and < 1, got "${'y'.repeat(76)}...`);
});
