/** Bodies as the history keeps them (src/history/entry.ts `cut`): the first bytes up to the capture limit. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cut } from '../../src/history/entry.js';

test('a body within the limit is kept whole; a longer one is cut at the limit in UTF-8 bytes', () => {
  const cases: [string | Buffer, number, string, boolean][] = [
    ['', 0, '', false],
    ['abc', 3, 'abc', false],
    ['abcd', 3, 'abc', true],
    ['€€€', 9, '€€€', false], // three bytes each: exactly the limit
    ['€€€', 8, '€€\ufffd', true], // cut inside the third
    ['ééééé', 10, 'ééééé', false], // two bytes each: measured, fits
    ['éééééé', 10, 'ééééé', true],
    ['😀😀', 8, '😀😀', false], // four bytes a pair
    ['😀😀', 7, '😀\ufffd', true],
    [Buffer.from('héllo'), 6, 'héllo', false],
    [Buffer.from('héllo'), 5, 'héll', true],
  ];
  for (const [body, limit, text, truncated] of cases)
    assert.deepEqual(cut(body, limit), { text, truncated }, `${String(body)} at ${limit}`);
});
