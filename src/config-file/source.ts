/**
 * Reading a mocks-as-code file: YAML (JSON is YAML too) parsed with node positions, `${VAR}` and
 * `${VAR:-default}` taken from the environment in string values, and every problem reported as
 * `file:line:column: /json/pointer: message`, the pointer being the field of the file it is about.
 */
import { isCollection, LineCounter, parseDocument, type Document } from 'yaml';
import { CONFIG_FILE_LIMIT_DEFAULT } from '../config.js';
import { readRegularFile } from '../regular-file.js';

export interface Problem {
  /** JSON pointer into the file (`/endpoints/users/rules/0/action/status`). */
  path: string;
  message: string;
  line?: number;
  column?: number;
}

/** A file that cannot be loaded: each problem with its line and field. */
export class ConfigFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: Problem[],
  ) {
    super(
      problems
        .map((p) => `${file}${p.line ? `:${p.line}:${p.column ?? 1}` : ''}: ${p.path || '/'}: ${p.message}`)
        .join('\n'),
    );
    this.name = 'ConfigFileError';
  }
}

export interface Source {
  file: string;
  doc: Document;
  lines: LineCounter;
  data: unknown;
}

function segments(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Line and column of the deepest node of the file the pointer reaches. */
export function locate(src: Source, pointer: string): { line: number; column: number } | undefined {
  const path: (string | number)[] = [];
  let best: { line: number; column: number } | undefined;
  let node: unknown = src.doc.contents;
  const at = (n: unknown) => {
    const range = (n as { range?: [number, number, number] } | null)?.range;
    if (range) {
      const pos = src.lines.linePos(range[0]);
      best = { line: pos.line, column: pos.col };
    }
  };
  at(node);
  for (const seg of segments(pointer)) {
    if (!isCollection(node)) break;
    const key = /^\d+$/.test(seg) && Array.isArray((node as { items: unknown[] }).items) ? Number(seg) : seg;
    path.push(key);
    const next = src.doc.getIn(path, true);
    if (next === undefined) break;
    node = next;
    at(node);
  }
  return best;
}

/** Problems with the lines of their fields filled in. */
export function located(src: Source, problems: Problem[]): ConfigFileError {
  return new ConfigFileError(
    src.file,
    problems.map((p) => ({ ...p, ...locate(src, p.path) })),
  );
}

const VAR = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** `${NAME}` and `${NAME:-default}` in every string value; `$${` is a literal `${`. */
function substitute(value: unknown, env: NodeJS.ProcessEnv, path: string, problems: Problem[]): unknown {
  if (typeof value === 'string')
    return value.replace(VAR, (whole, name: string | undefined, fallback: string | undefined) => {
      if (name === undefined) return '${';
      const v = env[name];
      if (v !== undefined && v !== '') return v;
      if (fallback !== undefined) return fallback;
      problems.push({
        path,
        message: `The environment variable ${name} is not set (write \${${name}:-default})`,
      });
      return whole;
    });
  if (Array.isArray(value)) return value.map((v, i) => substitute(v, env, `${path}/${i}`, problems));
  if (typeof value === 'object' && value !== null) {
    // fromEntries defines each key: a `__proto__` key stays a key (refused as unknown), never a prototype.
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        substitute(v, env, `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, problems),
      ]),
    );
  }
  return value;
}

/**
 * Reads and parses the file (a regular file of at most `limit` bytes: CONFIG_FILE_LIMIT); throws
 * ConfigFileError for an unreadable, special or oversized file or a syntax error.
 */
export function readSource(
  file: string,
  env: NodeJS.ProcessEnv = process.env,
  limit = CONFIG_FILE_LIMIT_DEFAULT,
): Source {
  let text: string;
  try {
    text = readRegularFile(file, limit).toString('utf8');
  } catch (err) {
    throw new ConfigFileError(file, [
      { path: '', message: `cannot be read: ${err instanceof Error ? err.message : String(err)}` },
    ]);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new ConfigFileError(
      file,
      doc.errors.map((e) => {
        const pos = lines.linePos(e.pos[0]);
        return { path: '', message: e.message.split('\n')[0]!, line: pos.line, column: pos.col };
      }),
    );
  }
  const problems: Problem[] = [];
  const src: Source = { file, doc, lines, data: undefined };
  src.data = substitute(doc.toJS({ maxAliasCount: 100 }), env, '', problems);
  if (problems.length > 0) throw located(src, problems);
  return src;
}
