/**
 * Strings for a schema's `pattern`: made by a small generator that walks the pattern (literals,
 * escapes, classes, groups, alternation, quantifiers) and then checked against the pattern in RE2's
 * linear-time engine (src/regex/), since the pattern comes from an uploaded document and is untrusted.
 * A string that does not match (or breaks the length bounds) is made again, at most
 * OAS_PATTERN_ATTEMPTS times; `undefined` means no matching string was found and the caller falls back.
 *
 * Bounded whatever the pattern: one attempt visits at most OAS_PATTERN_STEPS parts of the pattern and
 * makes at most OAS_GENERATE_STRING characters; an unbounded quantifier repeats at most
 * OAS_PATTERN_EXTRA times more than its minimum. Patterns RE2 cannot run (lookaround, backreferences)
 * or that are longer than REGEX_PATTERN_MAX cannot be checked, so nothing is generated for them.
 */
import type { Faker } from '@faker-js/faker';
import { compileUserRegex, regexTest, userRegexProblem, type UserRegex } from '../regex/index.js';

/** Strings made for one pattern before giving up. */
export const OAS_PATTERN_ATTEMPTS = 10;
/** Parts of the pattern one attempt may visit (a nested quantifier multiplies them). */
export const OAS_PATTERN_STEPS = 10_000;
/** Repetitions beyond its minimum an unbounded (or widely bounded) quantifier makes at most. */
export const OAS_PATTERN_EXTRA = 3;
/** Compiled patterns kept for the next string (the oldest is dropped past it). */
const CACHE_MAX = 256;

type Node =
  | { k: 'lit'; c: string }
  | { k: 'set'; ranges: [number, number][] }
  | { k: 'any' }
  | { k: 'empty' }
  | { k: 'alt'; opts: Node[][] }
  | { k: 'rep'; node: Node; min: number; max: number };

/** A pattern the generator does not understand; the caller falls back. */
class Unsupported extends Error {}

const DIGIT: [number, number][] = [[48, 57]];
const WORD: [number, number][] = [
  [48, 57],
  [65, 90],
  [95, 95],
  [97, 122],
];
const SPACE: [number, number][] = [
  [32, 32],
  [9, 13],
];
/** What a negated class or `.` draws from: printable ASCII. */
const PRINTABLE: [number, number] = [32, 126];

function complement(ranges: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  for (let c = PRINTABLE[0]; c <= PRINTABLE[1]; c++)
    if (!ranges.some(([lo, hi]) => c >= lo && c <= hi)) out.push([c, c]);
  return out;
}

/** A recursive-descent reader of the pattern into Nodes. */
class Reader {
  i = 0;
  constructor(readonly p: string) {}

  alt(): Node {
    const opts: Node[][] = [this.seq()];
    while (this.p[this.i] === '|') {
      this.i++;
      opts.push(this.seq());
    }
    return { k: 'alt', opts };
  }

  private seq(): Node[] {
    const out: Node[] = [];
    while (this.i < this.p.length && this.p[this.i] !== '|' && this.p[this.i] !== ')') {
      const atom = this.atom();
      out.push(this.quantified(atom));
    }
    return out;
  }

  private quantified(node: Node): Node {
    const c = this.p[this.i];
    let min: number;
    let max: number;
    if (c === '*' || c === '+' || c === '?') {
      this.i++;
      [min, max] = c === '*' ? [0, Infinity] : c === '+' ? [1, Infinity] : [0, 1];
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.p.slice(this.i));
      if (!m) return node;
      this.i += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      if (max < min) throw new Unsupported('quantifier range out of order');
    } else return node;
    if (this.p[this.i] === '?' || this.p[this.i] === '+') this.i++;
    return { k: 'rep', node, min, max };
  }

  private atom(): Node {
    const c = this.p[this.i++]!;
    switch (c) {
      case '^':
      case '$':
        return { k: 'empty' };
      case '.':
        return { k: 'any' };
      case '[':
        return this.set();
      case '\\':
        return this.escape(false);
      case '(': {
        if (this.p[this.i] === '?') {
          const m = /^\?(:|<[A-Za-z_]\w*>|P<[A-Za-z_]\w*>)/.exec(this.p.slice(this.i));
          if (!m) throw new Unsupported('lookaround or flags');
          this.i += m[0].length;
        }
        const inner = this.alt();
        if (this.p[this.i] !== ')') throw new Unsupported('unclosed group');
        this.i++;
        return inner;
      }
      case '*':
      case '+':
      case '?':
        throw new Unsupported('nothing to repeat');
      default:
        return { k: 'lit', c };
    }
  }

  /** An escape after `\`: a class (`\d`), a character, or an assertion (`\b`, empty). */
  private escape(inSet: boolean): Node {
    const c = this.p[this.i++];
    if (c === undefined) throw new Unsupported('trailing backslash');
    const classes: Record<string, [number, number][]> = { d: DIGIT, w: WORD, s: SPACE };
    const lower = c.toLowerCase();
    if (lower in classes && 'dwsDWS'.includes(c)) {
      const ranges = classes[lower]!;
      return { k: 'set', ranges: c === lower ? ranges : complement(ranges) };
    }
    if (!inSet && (c === 'b' || c === 'B')) return { k: 'empty' };
    const controls: Record<string, string> = { t: '\t', n: '\n', r: '\r', f: '\f', v: '\v', '0': '\0' };
    if (controls[c] !== undefined) return { k: 'lit', c: controls[c] };
    const hex = c === 'x' ? /^[0-9a-fA-F]{2}/ : c === 'u' ? /^[0-9a-fA-F]{4}/ : undefined;
    if (hex) {
      const m = hex.exec(this.p.slice(this.i));
      if (!m) throw new Unsupported(`\\${c} without its digits`);
      this.i += m[0].length;
      return { k: 'lit', c: String.fromCharCode(parseInt(m[0], 16)) };
    }
    if (/[1-9kpPc]/.test(c)) throw new Unsupported(`\\${c}`);
    return { k: 'lit', c };
  }

  private set(): Node {
    const neg = this.p[this.i] === '^';
    if (neg) this.i++;
    const ranges: [number, number][] = [];
    this.pendingRanges = [];
    let first = true;
    while (this.i < this.p.length && (this.p[this.i] !== ']' || first)) {
      first = false;
      const lo = this.setChar();
      if (lo === undefined) continue;
      if (this.p[this.i] === '-' && this.p[this.i + 1] !== ']' && this.i + 1 < this.p.length) {
        this.i++;
        const hi = this.setChar();
        if (hi === undefined || hi < lo) throw new Unsupported('class range');
        ranges.push([lo, hi]);
      } else ranges.push([lo, lo]);
    }
    if (this.p[this.i] !== ']') throw new Unsupported('unclosed class');
    this.i++;
    ranges.push(...this.pendingRanges);
    return { k: 'set', ranges: neg ? complement(ranges) : ranges };
  }

  /** One character of a class as its code; a class escape (`\d`) adds its ranges and answers undefined. */
  private setChar(): number | undefined {
    const c = this.p[this.i++]!;
    if (c !== '\\') return c.codePointAt(0)!;
    const e = this.escape(true);
    if (e.k === 'lit') return e.c.codePointAt(0)!;
    if (e.k === 'set') {
      this.pendingRanges.push(...e.ranges);
      return undefined;
    }
    throw new Unsupported('escape in class');
  }

  /** Ranges of class escapes met inside the class being read. */
  pendingRanges: [number, number][] = [];
}

interface Walk {
  f: Faker;
  steps: number;
  out: string[];
  length: number;
}

function pick(f: Faker, ranges: [number, number][]): string {
  if (ranges.length === 0) throw new Unsupported('empty class');
  const [lo, hi] = ranges[f.number.int({ min: 0, max: ranges.length - 1 })]!;
  return String.fromCodePoint(f.number.int({ min: lo, max: hi }));
}

/** Appends a string for `node` to the walk; false once a bound is passed. */
function emit(w: Walk, node: Node, max: number): boolean {
  if (++w.steps > OAS_PATTERN_STEPS || w.length > max) return false;
  switch (node.k) {
    case 'empty':
      return true;
    case 'lit':
      w.out.push(node.c);
      w.length++;
      return true;
    case 'any':
      w.out.push(w.f.string.alphanumeric(1));
      w.length++;
      return true;
    case 'set':
      w.out.push(pick(w.f, node.ranges));
      w.length++;
      return true;
    case 'alt': {
      const seq = node.opts[w.f.number.int({ min: 0, max: node.opts.length - 1 })]!;
      return seq.every((n) => emit(w, n, max));
    }
    case 'rep': {
      const top = Math.min(node.max, node.min + OAS_PATTERN_EXTRA);
      const n = w.f.number.int({ min: node.min, max: top });
      for (let i = 0; i < n; i++) if (!emit(w, node.node, max)) return false;
      return true;
    }
  }
}

interface Compiled {
  re: UserRegex;
  tree: Node | undefined;
}

const cache = new Map<string, Compiled | null>();

/**
 * `pattern` in RE2's syntax where ECMAScript's differs: `\uHHHH` is `\x{HHHH}` (an escaped backslash
 * before the `u` is left alone).
 */
export function re2Source(pattern: string): string {
  return pattern.replace(/(?<!\\)((?:\\\\)*)\\u([0-9a-fA-F]{4})/g, '$1\\x{$2}');
}

/** The pattern compiled for RE2 and read for the generator (tree undefined: not understood); null when RE2 refuses it. */
function compiled(pattern: string): Compiled | null {
  let c = cache.get(pattern);
  if (c !== undefined) return c;
  const source = re2Source(pattern);
  if (userRegexProblem(source) !== undefined) c = null;
  else {
    let tree: Node | undefined;
    try {
      const r = new Reader(pattern);
      tree = r.alt();
      if (r.i !== pattern.length) tree = undefined;
    } catch (err) {
      if (!(err instanceof Unsupported)) throw err;
    }
    c = { re: compileUserRegex(source), tree };
  }
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(pattern, c);
  return c;
}

/** Whether `pattern` can be checked in linear time (RE2 runs it). */
export function patternCheckable(pattern: string): boolean {
  return compiled(pattern) !== null;
}

/** Whether `value` matches `pattern` (false when the pattern cannot be checked). */
export function matchesPattern(pattern: string, value: string): boolean {
  const c = compiled(pattern);
  return c !== null && regexTest(c.re, value);
}

/**
 * A string that matches `pattern` and is within [minLength, maxLength], or undefined when none was
 * made within OAS_PATTERN_ATTEMPTS (or the pattern cannot be checked or is not understood).
 */
export function fromPattern(
  f: Faker,
  pattern: string,
  minLength: number,
  maxLength: number,
): string | undefined {
  const c = compiled(pattern);
  if (!c?.tree) return undefined;
  for (let attempt = 0; attempt < OAS_PATTERN_ATTEMPTS; attempt++) {
    const w: Walk = { f, steps: 0, out: [], length: 0 };
    let ok: boolean;
    try {
      ok = emit(w, c.tree, maxLength);
    } catch (err) {
      if (!(err instanceof Unsupported)) throw err;
      return undefined;
    }
    if (!ok) continue;
    const v = w.out.join('');
    if (v.length >= minLength && v.length <= maxLength && regexTest(c.re, v)) return v;
  }
  return undefined;
}
