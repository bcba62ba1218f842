/**
 * Comparisons and logic, usable inline (`{{#if (eq (queryParam 'a') '1')}}`): `eq`, `ne` compare as text;
 * `gt`, `gte`, `lt`, `lte` as numbers when both are numbers, else as text; `and`, `or` over any number
 * of values; `not`.
 */
import { argsOf } from '../state.js';

const num = (v: unknown): number | undefined => {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
};

function order(a: unknown, b: unknown): number {
  const x = num(a);
  const y = num(b);
  if (x !== undefined && y !== undefined) return x - y;
  return String(a).localeCompare(String(b));
}

const two = (args: unknown[]): [unknown, unknown] => {
  const { params } = argsOf(args);
  return [params[0], params[1]];
};

export const eq = (...args: unknown[]): boolean => {
  const [a, b] = two(args);
  return String(a) === String(b);
};
export const ne = (...args: unknown[]): boolean => !eq(...args);
export const gt = (...args: unknown[]): boolean => order(...two(args)) > 0;
export const gte = (...args: unknown[]): boolean => order(...two(args)) >= 0;
export const lt = (...args: unknown[]): boolean => order(...two(args)) < 0;
export const lte = (...args: unknown[]): boolean => order(...two(args)) <= 0;
export const and = (...args: unknown[]): boolean => argsOf(args).params.every(Boolean);
export const or = (...args: unknown[]): boolean => argsOf(args).params.some(Boolean);
export const not = (...args: unknown[]): boolean => !argsOf(args).params[0];
