/**
 * One request's view of its endpoint's state while its templates render (SPEC §6 state helpers).
 * A render is synchronous (Handlebars), so the items it may touch are read before it starts (the
 * names its templates spell out, or the whole state when a name is computed); helpers read and change
 * this snapshot, and each change is noted as a store operation, applied after the render in one
 * transaction (store.applyState). Bounds are checked here, as the change is made, so that a refused
 * change renders empty with the reason noted; the store checks a list's bounds again where it lies.
 */
import type { StateAccess } from '../template/index.js';
import type { Json, StateItem, StateOp, StateType } from '../store/index.js';
import { jsonBytes, keyProblem, stateId, type StateLimits } from './model.js';

/** A helper's value as JSON: strings, numbers, booleans, null, and plain copies of objects and arrays. */
function toJson(v: unknown): Json {
  if (v === undefined) throw new Error('a value is needed');
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error('the value is not a finite number');
    return v;
  }
  if (typeof v === 'object') {
    // Handlebars' SafeString (a helper's HTML) is text.
    if (typeof (v as { toHTML?: unknown }).toHTML === 'function' && !Array.isArray(v) && !isPlain(v))
      return (v as { toString(): string }).toString();
    return JSON.parse(JSON.stringify(v)) as Json;
  }
  throw new Error(`a ${typeof v} cannot be stored`);
}

function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

export class StateSession implements StateAccess {
  private readonly values = new Map<string, Json>();
  private count: number;
  /** The changes to store, in the order the render made them. */
  readonly ops: StateOp[] = [];
  /** Set when a render using this session failed: its changes are not stored. */
  failed = false;

  constructor(
    snapshot: { items: readonly StateItem[]; count: number },
    private readonly limits: StateLimits,
  ) {
    for (const i of snapshot.items) this.values.set(stateId(i.type, i.key), i.value);
    this.count = snapshot.count;
  }

  read(type: StateType, key: string): Json | undefined {
    return this.values.get(stateId(type, key));
  }

  add(key: string, by: number): number {
    this.checkKey(key);
    if (!Number.isSafeInteger(by)) throw new Error('a counter changes by a whole number');
    const before = this.read('counter', key);
    const after = (typeof before === 'number' ? before : 0) + by;
    if (!Number.isSafeInteger(after)) throw new Error('the counter would leave the range of whole numbers');
    this.write('counter', key, after);
    this.ops.push({ op: 'add', key, by });
    return after;
  }

  resetCounter(key: string, value: number): number {
    this.checkKey(key);
    if (!Number.isSafeInteger(value)) throw new Error('a counter holds a whole number');
    this.write('counter', key, value);
    this.ops.push({ op: 'set', type: 'counter', key, value });
    return value;
  }

  setData(key: string, raw: unknown): void {
    this.checkKey(key);
    const value = toJson(raw);
    this.checkSize(value);
    this.write('string', key, value);
    this.ops.push({ op: 'set', type: 'string', key, value });
  }

  deleteData(key: string): void {
    this.remove('string', key);
  }

  push(key: string, raw: unknown): void {
    this.checkKey(key);
    const value = toJson(raw);
    const list = (this.read('list', key) as Json[] | undefined) ?? [];
    if (list.length >= this.limits.maxList)
      throw new Error(`a list holds at most ${this.limits.maxList} values`);
    const next = [...list, value];
    this.checkSize(next);
    this.write('list', key, next);
    this.ops.push({ op: 'push', key, value, maxLength: this.limits.maxList, maxChars: this.limits.maxValue });
  }

  pop(key: string): Json | undefined {
    const list = this.read('list', key) as Json[] | undefined;
    if (!list || list.length === 0) return undefined;
    this.values.set(stateId('list', key), list.slice(0, -1));
    this.ops.push({ op: 'pop', key });
    return list[list.length - 1];
  }

  clearList(key: string): void {
    this.remove('list', key);
  }

  private remove(type: StateType, key: string): void {
    if (this.values.delete(stateId(type, key))) {
      this.count--;
      this.ops.push({ op: 'delete', type, key });
    }
  }

  private write(type: StateType, key: string, value: Json): void {
    const id = stateId(type, key);
    if (!this.values.has(id)) {
      if (this.count >= this.limits.maxItems)
        throw new Error(`the endpoint holds ${this.limits.maxItems} state items, the most it may`);
      this.count++;
    }
    this.values.set(id, value);
  }

  private checkKey(key: string): void {
    const problem = keyProblem(key, this.limits);
    if (problem !== undefined) throw new Error(problem);
  }

  private checkSize(value: Json): void {
    if (jsonBytes(value) > this.limits.maxValue)
      throw new Error(`a state value is at most ${this.limits.maxValue} bytes as JSON`);
  }
}
