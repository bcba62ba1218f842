/**
 * The endpoint-state model (SPEC §4, §6): the three types, how a type is named (any letter case in,
 * lower case out), the bounds every change is held to, and the checks of a value against them, shared
 * by the state API and the template helpers.
 */
import type { Config } from '../config.js';
import type { Json, StateType } from '../store/index.js';

export const STATE_TYPES = ['counter', 'string', 'list'] as const satisfies readonly StateType[];

/** Longest state key, in characters (the rule model's `state` condition takes keys this long). */
export const STATE_MAX_KEY = 256;

/** Bounds of one endpoint's state (STATE_MAX_ITEMS, STATE_MAX_VALUE, STATE_MAX_LIST; STATE_MAX_KEY). */
export interface StateLimits {
  maxItems: number;
  maxKey: number;
  /** Bytes of one value as JSON. */
  maxValue: number;
  maxList: number;
}

export function stateLimits(
  config: Pick<Config, 'stateMaxItems' | 'stateMaxValue' | 'stateMaxList'>,
): StateLimits {
  return {
    maxItems: config.stateMaxItems,
    maxKey: STATE_MAX_KEY,
    maxValue: config.stateMaxValue,
    maxList: config.stateMaxList,
  };
}

/** `Counter`, `LIST` … as the type they name; undefined for anything else. */
export function parseStateType(raw: string): StateType | undefined {
  const t = raw.toLowerCase();
  return (STATE_TYPES as readonly string[]).includes(t) ? (t as StateType) : undefined;
}

/** The map key of an item. */
export function stateId(type: StateType, key: string): string {
  return `${type}\0${key}`;
}

export function keyProblem(key: string, limits: StateLimits): string | undefined {
  if (key === '') return 'a state key is not empty';
  if (key.length > limits.maxKey) return `a state key has at most ${limits.maxKey} characters`;
  return undefined;
}

export function jsonBytes(v: Json): number {
  return Buffer.byteLength(JSON.stringify(v));
}

/** What is wrong with `value` as the whole value of an item of `type`, or undefined. */
export function valueProblem(type: StateType, value: Json, limits: StateLimits): string | undefined {
  if (type === 'counter' && !Number.isSafeInteger(value)) return 'a counter holds a whole number';
  if (type === 'list') {
    if (!Array.isArray(value)) return 'a list holds an array';
    if (value.length > limits.maxList) return `a list holds at most ${limits.maxList} values`;
  }
  if (jsonBytes(value) > limits.maxValue) return `a state value is at most ${limits.maxValue} bytes as JSON`;
  return undefined;
}
