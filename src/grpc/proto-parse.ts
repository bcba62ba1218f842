/**
 * One `.proto` file parsed by protobufjs, after the bounds that protect the parser: the nesting of
 * braces is counted first (protobufjs recurses once per level), and `edition` files are refused
 * (their feature resolution is not rebuilt here; a descriptor set built by protoc or buf carries it).
 * A syntax error becomes a refusal naming the file and the line protobufjs reports.
 */
import protobuf from 'protobufjs';
import type { Namespace } from 'protobufjs';
import { specError, type SpecLimits } from './compile-limits.js';

/** One `.proto` file of an upload. */
export interface ProtoSource {
  /** The name other files import it by: `user/v1/user.proto`. */
  name: string;
  text: string;
}

/** A parsed file: its package, imports, syntax and the namespace its declarations are in. */
export interface Parsed {
  source: ProtoSource;
  pkg: string;
  imports: string[];
  weak: string[];
  syntax: 'proto2' | 'proto3';
  ns: Namespace;
}

/** The line (1-based) of the first match of `re` in `text`, if any. */
export function lineOf(text: string, re: RegExp): number | undefined {
  const m = re.exec(text);
  return m ? text.slice(0, m.index).split('\n').length : undefined;
}

/** `s` as a literal inside a RegExp. */
export const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The deepest nesting of braces, outside comments and strings: bounds the parser's recursion
 * before it runs (protobufjs recurses once per level).
 */
function braceDepth(text: string, limit: number): { depth: number; line: number } {
  let depth = 0;
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') line++;
    else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      line++;
    } else if (c === '/' && text[i + 1] === '*') {
      i += 2;
      while (i < text.length && !(text[i] === '*' && text[i + 1] === '/')) if (text[i++] === '\n') line++;
      i++;
    } else if (c === '"' || c === "'") {
      for (i++; i < text.length && text[i] !== c && text[i] !== '\n'; i++) if (text[i] === '\\') i++;
    } else if (c === '{') {
      if (++depth > limit) return { depth, line };
    } else if (c === '}') depth = Math.max(0, depth - 1);
  }
  return { depth, line };
}

/** Parses one file within `limits.maxDepth`. */
export function parseOne(source: ProtoSource, limits: SpecLimits): Parsed {
  const { name, text } = source;
  const nesting = braceDepth(text, limits.maxDepth);
  if (nesting.depth > limits.maxDepth)
    throw specError(name, nesting.line, `nesting deeper than ${limits.maxDepth} levels`);
  const header = text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '');
  if (/^\s*edition\s*=/m.test(header))
    throw specError(
      name,
      lineOf(text, /^\s*edition\s*=/m),
      'editions are not supported in .proto text; upload a descriptor set built by protoc or buf instead',
    );
  const syntax = /^\s*syntax\s*=\s*["']proto3["']/m.test(header) ? 'proto3' : 'proto2';
  let result: protobuf.IParserResult;
  try {
    result = protobuf.parse(text, new protobuf.Root(), { keepCase: true });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const at = /\((?:[^,()]*, )?line (\d+)\)\s*$/.exec(message);
    const line = at?.[1] === undefined ? undefined : Number(at[1]);
    throw specError(name, line, at ? message.slice(0, at.index).trim() : message);
  }
  const pkg = result.package ?? '';
  const ns = pkg === '' ? result.root : (result.root.lookup(pkg) as Namespace | null);
  if (!ns) throw specError(name, undefined, `package ${pkg} was not parsed`);
  return { source, pkg, imports: result.imports ?? [], weak: result.weakImports ?? [], syntax, ns };
}
