/**
 * The schemas themselves: the contract's own examples match, and the mistakes they exist to catch
 * (a `null` where a string is promised, a missing field, a cursor on the last page) do not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { problems } from './conformance.js';

const entry = {
  id: 'e1',
  date: '2026-05-15T02:46:30.123Z',
  method: 'POST',
  path: '/users?debug=1',
  status: 201,
  timeTaken: 3,
  rule: { matched: true, ruleId: 'r1' },
  behavior: 'mock-rule',
  ip: '203.0.113.7',
  isMultipart: false,
  files: [],
};
const verbose = {
  ...entry,
  request: { headers: { 'content-type': 'application/json' }, body: null, httpVersion: '1.1' },
  response: { headers: { 'content-type': 'text/plain' }, body: 'ok', httpVersion: '1.1' },
};

test('examples in the contract match their schemas', () => {
  assert.deepEqual(problems('HistoryEntry', entry), []);
  assert.deepEqual(problems('HistoryEntryVerbose', verbose), []);
  assert.deepEqual(problems('HistoryList', { data: [entry], pagination: { hasMore: false, limit: 20 } }), []);
  assert.deepEqual(
    problems('TotpCode', {
      id: '3f1c2b8e-4a5d-4e6f-8a7b-9c0d1e2f3a4b',
      otp: '012345',
      expiresAt: '2026-05-15T02:46:30.000Z',
    }),
    [],
  );
  assert.deepEqual(problems('RulesReordered', { data: { reordered: 2 } }), []);
  assert.deepEqual(problems('KeyCreated', { id: 'k1', key: 'mb_' + 'a'.repeat(43), endpoint: 'shop' }), []);
});

test('extra fields are allowed', () => {
  assert.deepEqual(problems('HistoryEntry', { ...entry, durationMs: 3.2, problems: [] }), []);
});

test('a null where a string is promised is refused', () => {
  assert.notDeepEqual(problems('HistoryEntry', { ...entry, rule: { matched: true, ruleId: null } }), []);
  assert.notDeepEqual(
    problems('HistoryEntryVerbose', { ...verbose, response: { ...verbose.response, body: null } }),
    [],
  );
  assert.notDeepEqual(
    problems('TotpCode', { id: null, otp: '012345', expiresAt: '2026-05-15T02:46:30.000Z' }),
    [],
  );
});

test('the "present exactly when" rules hold', () => {
  assert.notDeepEqual(
    problems('HistoryEntry', { ...entry, rule: { matched: true } }),
    [],
    'ruleId when matched',
  );
  assert.notDeepEqual(
    problems('HistoryEntry', { ...entry, rule: { matched: false, ruleId: 'r1' } }),
    [],
    'no ruleId when not',
  );
  assert.notDeepEqual(
    problems('HistoryList', { data: [], pagination: { hasMore: false, limit: 20, cursor: 'x' } }),
    [],
    'no cursor on the last page',
  );
  assert.notDeepEqual(
    problems('HistoryList', { data: [], pagination: { hasMore: true, limit: 20 } }),
    [],
    'cursor when more',
  );
});

test('missing fields, wrong types and wrong formats are refused, each reported', () => {
  const p = problems('HistoryEntry', {
    ...entry,
    date: '2026-05-15 02:46',
    timeTaken: 3.2,
    isMultipart: undefined,
  });
  assert.ok(p.some((x) => x.includes('/date')));
  assert.ok(p.some((x) => x.includes('/timeTaken')));
  assert.ok(p.some((x) => x.includes("'isMultipart'")));
});
