/**
 * Strings for a schema's `pattern` (src/oas/pattern.ts, generate.ts): they match (checked here with
 * V8's own RegExp as an independent oracle), patterns that cannot be checked in linear time make
 * nothing, the bounds (steps, length) hold, and generation falls back to the schema's example or
 * leaves the value out, never answering a string that does not match. Also the schema checks of
 * json-schema.ts: every pattern of a schema is its own, and a pattern that backtracks in V8 runs in
 * linear time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { faker } from '@faker-js/faker';
import { fromPattern, OAS_PATTERN_ATTEMPTS, OAS_PATTERN_STEPS, re2Source } from '../../src/oas/pattern.js';
import { generate, OAS_GENERATE_STRING } from '../../src/oas/generate.js';
import { DocumentSchemas } from '../../src/oas/json-schema.js';

const PATTERNS = [
  '^([01]\\d|2[0-3]):?([0-5]\\d)$',
  '^[A-Z]{2}[0-9]{2}[A-Z0-9]{1,30}$',
  '^\\+?[1-9]\\d{1,14}$',
  '[^@\\s]+@[^@\\s]+\\.[a-z]{2,}',
  '^#(?:[0-9a-fA-F]{3}){1,2}$',
  '^v?(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(-[0-9A-Za-z.-]+)?$',
  '^[a-z0-9]+(?:-[a-z0-9]+)*$',
  '^(?<year>\\d{4})-(?<month>0[1-9]|1[0-2])$',
  '^[\\w.-]+\\x41\\u00e9\\u0042\\t?$',
  '^[^a-z\\d]{3}\\W\\S\\D$',
  'a.b',
  '^(a+)+$',
];

test('strings made for a pattern match it (1000 draws each, checked with V8 RegExp)', () => {
  faker.seed(35);
  for (const p of PATTERNS) {
    const re = new RegExp(p, 'u');
    for (let i = 0; i < 1000; i++) {
      const v = fromPattern(faker, p, 0, OAS_GENERATE_STRING);
      assert.ok(v !== undefined && re.test(v), `${p}: ${JSON.stringify(v)}`);
    }
  }
});

test('alternation and optional parts are all drawn (the issue’s time pattern, with and without the colon)', () => {
  faker.seed(1);
  const seen = new Set<string>();
  for (let i = 0; i < 500; i++) {
    const v = fromPattern(faker, '^([01]\\d|2[0-3]):?([0-5]\\d)$', 0, 100)!;
    seen.add(`${v.includes(':') ? 'colon' : 'bare'}-${v.startsWith('2') ? '2x' : '01x'}`);
  }
  assert.deepEqual([...seen].sort(), ['bare-01x', 'bare-2x', 'colon-01x', 'colon-2x']);
});

test('a pattern that cannot be checked in linear time, or is not understood, makes nothing', () => {
  for (const p of ['^(?=\\d)\\w+$', '^(a)\\1$', '(?i)abc', '^\\p{L}+$', '[a-', 'a{2,1}', '(ab']) {
    assert.equal(fromPattern(faker, p, 0, 100), undefined, p);
  }
});

test('length bounds: a string outside minLength/maxLength is made again, or nothing is answered', () => {
  faker.seed(7);
  for (let i = 0; i < 200; i++) {
    const v = fromPattern(faker, '^[a-z]{5,10}$', 7, 8);
    assert.ok(v === undefined || (v.length >= 7 && v.length <= 8), String(v));
  }
  // `a+` repeats at most OAS_PATTERN_EXTRA times past its minimum: six letters are never made.
  assert.equal(fromPattern(faker, '^a+$', 6, 10), undefined);
  assert.equal(fromPattern(faker, '^a{1000}$', 0, OAS_GENERATE_STRING)?.length, OAS_GENERATE_STRING);
  assert.equal(fromPattern(faker, '^a{1000}b$', 0, OAS_GENERATE_STRING), undefined);
});

test(`a pattern that never matches what is made is given up after OAS_PATTERN_ATTEMPTS (${OAS_PATTERN_ATTEMPTS}) strings`, () => {
  let draws = 0;
  const counting = new Proxy(faker, {
    get(target, key, receiver) {
      if (key === 'number') {
        draws++;
        return target.number;
      }
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  // `a$b` is read as "a then b": what is made never matches, since nothing can follow the end.
  assert.equal(fromPattern(counting, 'a$b', 0, 100), undefined);
  // One alternative drawn per attempt.
  assert.equal(draws, OAS_PATTERN_ATTEMPTS);
});

test(`one attempt visits at most OAS_PATTERN_STEPS (${OAS_PATTERN_STEPS}) parts of the pattern`, () => {
  // Each `(?:a{0}){1000}` is 2001 steps and makes nothing; the whole pattern one step more.
  const groups = (n: number): string => '(?:a{0}){1000}'.repeat(n);
  assert.ok(1 + 4 * 2001 <= OAS_PATTERN_STEPS && 1 + 5 * 2001 > OAS_PATTERN_STEPS);
  assert.equal(fromPattern(faker, groups(4), 0, 10), '');
  assert.equal(fromPattern(faker, groups(5), 0, 10), undefined);
});

test('generate: a matching format or example is used; else the value is left out (an item too)', () => {
  faker.seed(3);
  const opts = { faker, root: {}, useExamples: false };
  // The format's value matches: kept.
  const email = generate({ type: 'string', format: 'email', pattern: '@' }, opts);
  assert.match(email as string, /@/);
  // A pattern the generator does not understand (RE2 runs it): the example when it matches…
  assert.equal(generate({ type: 'string', pattern: '^\\p{L}+$', example: 'été' }, opts), 'été');
  assert.equal(generate({ type: 'string', pattern: '^\\p{L}+$', default: 'ab' }, opts), 'ab');
  // …else nothing.
  assert.equal(generate({ type: 'string', pattern: '^\\p{L}+$', example: '12' }, opts), undefined);
  // A lookahead cannot be checked at all: the document's example is taken as it is.
  assert.equal(generate({ type: 'string', pattern: '^(?=x)x+$', example: 'y' }, opts), 'y');
  assert.equal(generate({ type: 'string', pattern: '^(?=x)x+$' }, opts), undefined);
  const obj = generate(
    {
      type: 'object',
      required: ['a'],
      properties: { a: { type: 'string', pattern: '^a$' }, b: { type: 'string', pattern: '^(?=b)b$' } },
    },
    opts,
  );
  assert.deepEqual(obj, { a: 'a' });
  const list = generate(
    { type: 'array', minItems: 3, maxItems: 3, items: { type: 'string', pattern: '(?!x)' } },
    opts,
  );
  assert.deepEqual(list, []);
});

test('schema checks: each pattern of a schema is its own, and a backtracking pattern runs in linear time', () => {
  const doc = {
    openapi: '3.0.3',
    components: {
      schemas: {
        S: {
          type: 'object',
          properties: {
            time: { type: 'string', pattern: '^\\d\\d:\\d\\d$' },
            code: { type: 'string', pattern: '^[A-Z]{2}$' },
            evil: { type: 'string', pattern: '^(a+)+$' },
          },
        },
      },
    },
  };
  const v = new DocumentSchemas(doc).at('/components/schemas/S');
  assert.equal(v({ time: '10:30', code: 'AB' }), true);
  assert.equal(v({ time: '10:30', code: '10:30' }), false);
  assert.equal(v({ time: 'AB', code: 'AB' }), false);
  // In V8 this input takes longer than the test's life; in RE2, a moment.
  assert.equal(v({ evil: 'a'.repeat(30_000) + '!' }), false);
});

test('ECMAScript \\uHHHH escapes are read by RE2 as \\x{HHHH}; an escaped backslash before u is not one', () => {
  assert.equal(re2Source('^\\u00e9\\u0042$'), '^\\x{00e9}\\x{0042}$');
  assert.equal(re2Source('^\\\\u0041$'), '^\\\\u0041$');
  assert.equal(re2Source('^\\\\\\u0041$'), '^\\\\\\x{0041}$');
  assert.equal(fromPattern(faker, '^\\u00e9$', 0, 10), 'é');
});
