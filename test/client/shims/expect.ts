/**
 * A small `expect` shared by the framework shims: the matchers the documented examples use, each
 * an assertion of node:assert, and `.not`. Not a reimplementation of any framework's.
 */
import assert from 'node:assert/strict';

type Matchers = {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toBeTruthy(): void;
  toMatch(expected: RegExp | string): void;
  toHaveLength(n: number): void;
  toBeGreaterThan(n: number): void;
  toContain(item: unknown): void;
  toBeOK(): void;
};

function check(actual: unknown, negate: boolean): Matchers {
  const run = (ok: boolean, message: string) =>
    assert.ok(negate ? !ok : ok, negate ? `not: ${message}` : message);
  const equal = (a: unknown, b: unknown) => {
    try {
      assert.deepEqual(a, b);
      return true;
    } catch {
      return false;
    }
  };
  return {
    toBe: (e) => run(Object.is(actual, e), `expected ${String(actual)} to be ${String(e)}`),
    toEqual: (e) => run(equal(actual, e), `expected ${JSON.stringify(actual)} to equal ${JSON.stringify(e)}`),
    toBeTruthy: () => run(Boolean(actual), `expected ${String(actual)} to be truthy`),
    toMatch: (e) =>
      run(
        typeof e === 'string' ? String(actual).includes(e) : e.test(String(actual)),
        `expected ${String(actual)} to match ${String(e)}`,
      ),
    toHaveLength: (n) => run((actual as { length: number }).length === n, `expected length ${n}`),
    toBeGreaterThan: (n) => run((actual as number) > n, `expected ${String(actual)} > ${n}`),
    toContain: (i) => run((actual as unknown[]).includes(i), `expected to contain ${String(i)}`),
    toBeOK: () => run((actual as { ok(): boolean }).ok(), 'expected a 2xx response'),
  };
}

export function expect(actual: unknown): Matchers & { not: Matchers } {
  return Object.assign(check(actual, false), { not: check(actual, true) });
}
