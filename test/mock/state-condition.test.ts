/**
 * The `state` condition (SPEC §4) against values read for a request: every operator under its
 * hosted name and its short alias, for counters, strings and lists, present and absent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRules, type Condition } from '../../src/mock/index.js';
import { stateId } from '../../src/state/index.js';
import type { Json, StateType } from '../../src/store/index.js';
import { req, rule } from './rule-helpers.js';

async function holds(
  stateType: StateType,
  operator: string,
  value: string | undefined,
  stored: Json | undefined,
): Promise<boolean> {
  const c = {
    type: 'state',
    key: 'k',
    stateType,
    operator,
    ...(value !== undefined ? { value } : {}),
  } as Condition;
  const rules = compileRules([rule([c])]);
  assert.deepEqual(rules.stateRefs, [{ type: stateType, key: 'k' }]);
  const state = new Map<string, Json>();
  if (stored !== undefined) state.set(stateId(stateType, 'k'), stored);
  return rules.match(await req('GET', '/'), state) !== undefined;
}

const ALIASES: [string, string][] = [
  ['greater_than', 'gt'],
  ['less_than', 'lt'],
  ['greater_than_equal', 'gte'],
  ['less_than_equal', 'lte'],
];

test('counter: numeric comparisons under both names; an absent counter is 0', async () => {
  const cases: [string, string, Json | undefined, boolean][] = [
    ['equals', '3', 3, true],
    ['equals', '3', 4, false],
    ['equals', '0', undefined, true],
    ['not_equals', '3', 4, true],
    ['not_equals', '3', 3, false],
    ['greater_than', '3', 4, true],
    ['greater_than', '3', 3, false],
    ['less_than', '3', 2, true],
    ['less_than', '3', 3, false],
    ['less_than', '1', undefined, true],
    ['greater_than_equal', '3', 3, true],
    ['greater_than_equal', '3', 2, false],
    ['less_than_equal', '3', 3, true],
    ['less_than_equal', '3', 4, false],
    ['contains', '2', 123, true],
    ['not_contains', '2', 123, false],
  ];
  for (const [op, value, stored, expected] of cases) {
    assert.equal(
      await holds('counter', op, value, stored),
      expected,
      `${op} ${value} on ${JSON.stringify(stored)}`,
    );
    const alias = ALIASES.find(([long]) => long === op)?.[1];
    if (alias) assert.equal(await holds('counter', alias, value, stored), expected, `${alias} ${value}`);
  }
});

test('string: text equals/contains (objects as JSON), numbers compared when both are numbers, absent', async () => {
  const cases: [string, string, Json | undefined, boolean][] = [
    ['equals', 'on', 'on', true],
    ['equals', 'on', 'off', false],
    ['equals', 'on', undefined, false],
    ['not_equals', 'on', undefined, true],
    ['not_equals', 'on', 'on', false],
    ['contains', 'Ada', { name: 'Ada' }, true],
    ['contains', 'x', undefined, false],
    ['not_contains', 'x', undefined, true],
    ['not_contains', 'd', 'Ada', false],
    ['greater_than', '10', '11', true],
    ['gt', '10', 9, false],
    ['lt', '10', 9, true],
    ['gte', '10', '10', true],
    ['lte', '10', 'ten', false],
  ];
  for (const [op, value, stored, expected] of cases)
    assert.equal(
      await holds('string', op, value, stored),
      expected,
      `${op} ${value} on ${JSON.stringify(stored)}`,
    );
});

test('list: contains looks for an element; comparisons compare the length; absent is empty', async () => {
  const cases: [string, string, Json | undefined, boolean][] = [
    ['contains', 'apple', ['apple', 'pear'], true],
    ['contains', '2', [1, 2], true],
    ['contains', 'app', ['apple'], false],
    ['not_contains', 'kiwi', ['apple'], true],
    ['not_contains', 'kiwi', undefined, true],
    ['equals', '2', ['a', 'b'], true],
    ['not_equals', '2', ['a'], true],
    ['greater_than', '1', ['a', 'b'], true],
    ['gt', '2', ['a', 'b'], false],
    ['lt', '1', undefined, true],
    ['gte', '2', ['a', 'b'], true],
    ['lte', '0', [], true],
  ];
  for (const [op, value, stored, expected] of cases)
    assert.equal(
      await holds('list', op, value, stored),
      expected,
      `${op} ${value} on ${JSON.stringify(stored)}`,
    );
});

test('exists and not_exists, for every type', async () => {
  for (const t of ['counter', 'string', 'list'] as const) {
    const v: Json = t === 'list' ? [] : t === 'counter' ? 0 : '';
    assert.equal(await holds(t, 'exists', undefined, v), true);
    assert.equal(await holds(t, 'exists', undefined, undefined), false);
    assert.equal(await holds(t, 'not_exists', undefined, undefined), true);
    assert.equal(await holds(t, 'not_exists', undefined, v), false);
  }
});

test('rules without state conditions name no state to read', () => {
  assert.deepEqual(compileRules([rule([{ type: 'path', operator: 'equals', value: '/' }])]).stateRefs, []);
});
