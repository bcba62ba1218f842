/**
 * SECURITY.md states bounds by setting name and default, as "`SSE_MAX_STREAMS` (1000)" or
 * "`HEADERS_TIMEOUT`, 10 s": a variable in backticks, then " (" or ", ", then a number (thousands
 * separated by commas) with an optional unit, ended by ")", ";", ":" or ",". Each such statement must
 * name a setting of src/config.ts and give its default, so the threat model cannot drift from the
 * code. A figure followed by more words ("(512 MiB with the defaults)") is prose, not a default.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { SETTINGS } from '../../src/config.js';

const UNITS: Record<string, number> = {
  '': 1,
  bytes: 1,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
  // The project's MB is the binary one (SPEC: "1 MB (1,048,576 bytes)").
  KB: 1024,
  MB: 1024 ** 2,
  GB: 1024 ** 3,
  ms: 1,
  s: 1000,
  min: 60_000,
  h: 3_600_000,
  // Settings counted in days are named *_DAYS and hold days.
  day: 1,
  days: 1,
};

const STATEMENT = /`([A-Z][A-Z0-9_]*)`(?: \(|, )(\d[\d,]*(?:\.\d+)?)(?: ?([A-Za-z]+))?(?=[);:,])/g;

/** Every "`NAME` (value)" statement of a Markdown text, with its value in the setting's own unit. */
function documentedBounds(md: string): { name: string; text: string; value: number }[] {
  const flat = md.replace(/\s*\n\s*/g, ' ');
  const out: { name: string; text: string; value: number }[] = [];
  for (const m of flat.matchAll(STATEMENT)) {
    const [text, name = '', number = '', unit = ''] = m;
    const factor = UNITS[unit];
    assert.ok(factor !== undefined, `SECURITY.md: unknown unit "${unit}" in ${text}`);
    out.push({ name, text, value: Number(number.replaceAll(',', '')) * factor });
  }
  return out;
}

test('the statement pattern reads values with units and leaves prose figures alone', () => {
  const found = documentedBounds(
    'at most `A_MAX` (1,000) and `B_BYTES` (256 KiB); `C_TIMEOUT`, 10 s, then\n`D_TIMEOUT` (1 s, in' +
      ' slices); `E` × 2 × `F_BUFFERED` (512 MiB with the defaults); `G_DEPTH` (3: a callout); `H`.',
  );
  assert.deepEqual(
    found.map((b) => [b.name, b.value]),
    [
      ['A_MAX', 1000],
      ['B_BYTES', 262_144],
      ['C_TIMEOUT', 10_000],
      ['D_TIMEOUT', 1000],
      ['G_DEPTH', 3],
    ],
  );
});

test("every bound SECURITY.md states with a setting's name gives that setting's default", () => {
  const defaults = new Map(SETTINGS.map((s) => [s.env, s.default]));
  const bounds = documentedBounds(readFileSync('SECURITY.md', 'utf8'));
  // The threat model states a couple of dozen bounds; finding few means the pattern stopped matching.
  assert.ok(bounds.length >= 20, `only ${bounds.length} bounds found in SECURITY.md`);
  for (const b of bounds) {
    assert.ok(defaults.has(b.name), `SECURITY.md gives a default for ${b.name}, which is no setting`);
    assert.equal(b.value, defaults.get(b.name), `SECURITY.md: ${b.text} is not ${b.name}'s default`);
  }
});
