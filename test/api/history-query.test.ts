/** Pure parts of the history query: ISO dates that exist, relative ranges, the filter built from a query. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseIsoUtc, rangeMs, toFilter } from '../../src/api/history-query.js';
import { AppError } from '../../src/errors.js';

void test('parseIsoUtc reads UTC timestamps with or without seconds and fraction', () => {
  assert.equal(parseIsoUtc('2026-05-15T02:46:30Z'), Date.UTC(2026, 4, 15, 2, 46, 30));
  assert.equal(parseIsoUtc('2026-05-15T02:46Z'), Date.UTC(2026, 4, 15, 2, 46));
  assert.equal(parseIsoUtc('2026-05-15T02:46:30.5Z'), Date.UTC(2026, 4, 15, 2, 46, 30, 500));
  assert.equal(parseIsoUtc('2026-05-15T02:46:30.123456Z'), Date.UTC(2026, 4, 15, 2, 46, 30, 123));
  assert.equal(parseIsoUtc('2026-05-15T02:46:30+00:00'), Date.UTC(2026, 4, 15, 2, 46, 30));
});

void test('parseIsoUtc refuses dates and times that do not exist', () => {
  assert.equal(parseIsoUtc('2026-02-30T00:00:00Z'), undefined);
  assert.equal(parseIsoUtc('2026-13-01T00:00:00Z'), undefined);
  assert.equal(parseIsoUtc('2026-05-15T24:00:00Z'), undefined);
  assert.equal(parseIsoUtc('2026-05-15T10:60:00Z'), undefined);
  assert.equal(parseIsoUtc('yesterday'), undefined);
  assert.equal(parseIsoUtc('2028-02-29T00:00:00Z'), Date.UTC(2028, 1, 29));
});

void test('rangeMs reads s, m, h and d', () => {
  assert.equal(rangeMs('30s'), 30_000);
  assert.equal(rangeMs('15m'), 900_000);
  assert.equal(rangeMs('1h'), 3_600_000);
  assert.equal(rangeMs('7d'), 604_800_000);
});

void test('toFilter: dateRange runs from that long ago until now, AND-ed with dateFrom/dateTo', () => {
  const now = Date.UTC(2026, 4, 15, 12);
  assert.deepEqual(toFilter({ dateRange: '1h' }, now), { dateFrom: now - 3_600_000, dateTo: now });
  const from = Date.UTC(2026, 4, 15, 11, 30);
  assert.deepEqual(toFilter({ dateRange: '1h', dateFrom: '2026-05-15T11:30:00Z' }, now), {
    dateFrom: from,
    dateTo: now,
  });
});

void test('toFilter: path is a substring unless written /…/; method is upper-cased', () => {
  assert.deepEqual(toFilter({ path: '/users' }, 0), { path: { substring: '/users' } });
  assert.deepEqual(toFilter({ path: '/' }, 0), { path: { substring: '/' } });
  assert.deepEqual(toFilter({ path: '/^\\/u/' }, 0), { path: { regex: '^\\/u' } });
  assert.deepEqual(toFilter({ method: 'patch' }, 0), { method: 'PATCH' });
  assert.deepEqual(toFilter({}, 0), {});
});

void test('toFilter: a broken regular expression is a validation_error naming path', () => {
  assert.throws(
    () => toFilter({ path: '/a(/' }, 0),
    (err: unknown) =>
      err instanceof AppError && err.code === 'validation_error' && err.details?.[0]?.path === '/path',
  );
});
