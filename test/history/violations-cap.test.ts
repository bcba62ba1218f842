/**
 * The bound on contract violations a history entry keeps (history/violations.ts): MAX_VIOLATIONS a
 * list and MAX_VIOLATION_MESSAGE a message, each at the limit − 1, the limit and the limit + 1; and
 * the entry built from a request carries the lists cut, set only when present.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  capViolations,
  historyEntry,
  MAX_VIOLATION_MESSAGE,
  MAX_VIOLATION_PATH,
  MAX_VIOLATIONS,
  VIOLATIONS_TRUNCATED,
} from '../../src/history/index.js';
import type { CapturedRequest } from '../../src/http/index.js';
import type { ContractViolation } from '../../src/store/index.js';

const violations = (n: number): ContractViolation[] =>
  Array.from({ length: n }, (_, i) => ({ in: 'query', path: `p${i}`, message: `bad ${i}` }));

test('the bounds are 20 violations a list and 300 characters a message', () => {
  assert.equal(MAX_VIOLATIONS, 20);
  assert.equal(MAX_VIOLATION_MESSAGE, 300);
});

test('a list of MAX_VIOLATIONS − 1 or MAX_VIOLATIONS is kept whole; an empty one stays empty', () => {
  assert.deepEqual(capViolations(violations(MAX_VIOLATIONS - 1)), violations(MAX_VIOLATIONS - 1));
  assert.deepEqual(capViolations(violations(MAX_VIOLATIONS)), violations(MAX_VIOLATIONS));
  assert.deepEqual(capViolations([]), []);
});

test('a list of MAX_VIOLATIONS + 1 keeps MAX_VIOLATIONS − 1 and ends with a note of how many were left out', () => {
  const out = capViolations(violations(MAX_VIOLATIONS + 1));
  assert.equal(out.length, MAX_VIOLATIONS);
  assert.deepEqual(out.slice(0, -1), violations(MAX_VIOLATIONS - 1));
  assert.deepEqual(out.at(-1), { in: VIOLATIONS_TRUNCATED, path: '', message: '2 more violations not kept' });
  // A huge list (an unauthenticated client's body breaking every property) costs the same.
  const huge = capViolations(violations(100_000));
  assert.equal(huge.length, MAX_VIOLATIONS);
  assert.equal(huge.at(-1)?.message, `${100_000 - MAX_VIOLATIONS + 1} more violations not kept`);
});

test('a message of MAX_VIOLATION_MESSAGE − 1 or MAX_VIOLATION_MESSAGE is kept; one longer is clipped to it, ending in …', () => {
  const of = (len: number) => capViolations([{ in: 'body', path: '', message: 'm'.repeat(len) }])[0]!.message;
  assert.equal(of(MAX_VIOLATION_MESSAGE - 1), 'm'.repeat(MAX_VIOLATION_MESSAGE - 1));
  assert.equal(of(MAX_VIOLATION_MESSAGE), 'm'.repeat(MAX_VIOLATION_MESSAGE));
  const cut = of(MAX_VIOLATION_MESSAGE + 1);
  assert.equal(cut.length, MAX_VIOLATION_MESSAGE);
  assert.equal(cut, 'm'.repeat(MAX_VIOLATION_MESSAGE - 1) + '…');
});

test('a path (a JSON pointer) longer than MAX_VIOLATION_PATH is clipped as well', () => {
  const [v] = capViolations([{ in: 'body', path: '/a'.repeat(MAX_VIOLATION_PATH), message: 'x' }]);
  assert.equal(v!.path.length, MAX_VIOLATION_PATH);
  assert.ok(v!.path.endsWith('…'));
});

const captured = {
  id: 'id-1',
  method: 'POST',
  path: '/pets',
  ip: '127.0.0.1',
  receivedAt: 1000,
  headers: {},
  rawBody: Buffer.alloc(0),
  files: [],
  httpVersion: '1.1',
} as unknown as CapturedRequest;
const answer = { status: 201, headers: {}, body: '' };
const info = { behavior: 'oas' as const, captureLimit: 1024, now: 1001 };

test('the history entry carries both lists, cut, only when the outcome has them', () => {
  const plain = historyEntry('shop', captured, answer, info).entry;
  assert.equal('validation' in plain, false);
  assert.equal('responseValidation' in plain, false);
  const checked = historyEntry('shop', captured, answer, {
    ...info,
    validation: violations(MAX_VIOLATIONS + 5),
    responseValidation: [],
  }).entry;
  assert.equal(checked.validation?.length, MAX_VIOLATIONS);
  assert.equal(checked.validation?.at(-1)?.in, VIOLATIONS_TRUNCATED);
  assert.deepEqual(checked.responseValidation, []);
});
