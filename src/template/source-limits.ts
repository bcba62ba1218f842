/**
 * How big a template's source is, measured in one linear pass without Handlebars. Handlebars' parser
 * and compiler run on the event loop and are not linear: 1,000 nested `{{#if}}` take about 0.5 s to
 * parse and 20,000 took minutes; each mustache costs about 0.1 ms to parse and compile. A template is
 * checked against these bounds when it is saved (400) and again before it is compiled (a template
 * stored before the bounds existed answers 561), so Handlebars only ever sees a template whose cost
 * is bounded.
 *
 * Counted: bytes (UTF-8); mustaches, every `{{` outside a comment (an escaped `\{{` and the inside of
 * a raw block count too: the count errs on the high side); nesting, the blocks open at a point
 * (`{{#…}}`, `{{^…}}`, each `{{else if …}}` of a chain, which Handlebars nests) plus the
 * subexpressions `(…)` open inside the mustache there.
 */
import type { Config } from '../config.js';

export interface SourceLimits {
  /** Bytes of one template's source (UTF-8). */
  maxBytes: number;
  /** `{{` in one template. */
  maxMustaches: number;
  /** Blocks and subexpressions open at once. */
  maxNesting: number;
}

/** The defaults of TEMPLATE_MAX_BYTES, TEMPLATE_MAX_MUSTACHES and TEMPLATE_MAX_NESTING. */
export const SOURCE_LIMITS: SourceLimits = { maxBytes: 1024 * 1024, maxMustaches: 500, maxNesting: 32 };

/** The source limits the configuration sets. */
export function sourceLimits(
  config: Pick<Config, 'templateMaxBytes' | 'templateMaxMustaches' | 'templateMaxNesting'>,
): SourceLimits {
  return {
    maxBytes: config.templateMaxBytes,
    maxMustaches: config.templateMaxMustaches,
    maxNesting: config.templateMaxNesting,
  };
}

const COMMENT_END = /--~?\}\}/g;
const ELSE_CHAIN = /^else\s+[^\s}~]/;

/** Where the mustache that starts at `from` (just past `{{` and any `~`) ends, and its deepest `(`. */
function scanMustache(s: string, from: number): { end: number; parens: number } {
  let depth = 0;
  let deepest = 0;
  for (let k = from; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c === 0x22 || c === 0x27) {
      // A string literal: its `(` and `}}` are text.
      const close = s.indexOf(s[k]!, k + 1);
      if (close === -1) return { end: s.length, parens: deepest };
      k = close;
    } else if (c === 0x28) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x29) {
      if (depth > 0) depth--;
    } else if (c === 0x7d && s.charCodeAt(k + 1) === 0x7d) {
      return { end: k + 2, parens: deepest };
    }
  }
  return { end: s.length, parens: deepest };
}

/**
 * Why `source` is over `limits` (a sentence naming the setting), or undefined when it is within
 * them. Linear in the source's length: a megabyte takes a few milliseconds.
 */
export function templateSourceProblem(source: string, limits: SourceLimits): string | undefined {
  const m = measureTemplate(source, limits);
  return typeof m === 'string' ? m : undefined;
}

/** `source`'s mustaches when it is within `limits`; otherwise why not (templateSourceProblem). */
export function measureTemplate(source: string, limits: SourceLimits): { mustaches: number } | string {
  const bytes = Buffer.byteLength(source, 'utf8');
  if (bytes > limits.maxBytes)
    return `The template is ${bytes} bytes; at most ${limits.maxBytes} are allowed (TEMPLATE_MAX_BYTES)`;
  let mustaches = 0;
  let depth = 0;
  /** Levels each open block added: 1, plus one for each `{{else if …}}` of its chain. */
  const open: number[] = [];
  for (let i = source.indexOf('{{'); i !== -1;) {
    let j = i + 2;
    while (source.charCodeAt(j) === 0x7b) j++; // `{{{` and raw blocks
    if (source.charCodeAt(j) === 0x7e) j++; // `~`
    if (source.charCodeAt(j) === 0x21) {
      // A comment: `{{!-- … --}}` (may hold `}}`) or `{{! … }}`; nothing inside counts.
      let end: number;
      if (source.startsWith('--', j + 1)) {
        COMMENT_END.lastIndex = j + 3;
        const m = COMMENT_END.exec(source);
        end = m ? m.index + m[0].length : source.length;
      } else {
        const close = source.indexOf('}}', j);
        end = close === -1 ? source.length : close + 2;
      }
      i = source.indexOf('{{', end);
      continue;
    }
    if (++mustaches > limits.maxMustaches)
      return `The template has more than ${limits.maxMustaches} mustaches ({{…}}) (TEMPLATE_MAX_MUSTACHES)`;
    const c = source.charCodeAt(j);
    const { end, parens } = scanMustache(source, j);
    if (c === 0x23 || (c === 0x5e && !/^\^\s*~?\}\}/.test(source.slice(j, j + 8)))) {
      open.push(1);
      depth++;
    } else if (c === 0x2f) {
      depth -= open.pop() ?? 0;
    } else if (c === 0x65 && open.length > 0 && ELSE_CHAIN.test(source.slice(j, j + 6))) {
      open[open.length - 1]!++;
      depth++;
    }
    if (depth + parens > limits.maxNesting)
      return `The template nests blocks and subexpressions more than ${limits.maxNesting} deep (TEMPLATE_MAX_NESTING)`;
    i = source.indexOf('{{', end);
  }
  return { mustaches };
}
