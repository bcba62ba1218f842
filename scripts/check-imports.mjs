// Checks the import graph of src/ (or of the directory given as the only argument) against three
// rules of the layout (docs/architecture.md, "Import rules"). Every import counts, `import type` and
// `export type … from` included: a type names a dependency as much as a value does.
//
//   1. No import cycle between modules.
//   2. No deep import into another folder: a file under the top-level folder X imports a file of
//      another top-level folder Y only as `Y/index.js`, its public surface. Subfolders belong to their
//      top-level folder (api/schemas is inside api). Files directly in the root are imported as they are.
//   3. Imports run down the layers (LAYERS below): a top-level folder or root file imports only what
//      stands on a lower row. Every folder and root file has a row; one that has none is reported.
//
// Imports are read with the TypeScript compiler's parser (no type checking, so it takes a second).
// Prints one line per violation naming the file, the import and the rule, and exits 1; exits 0 when clean.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The layers, top to bottom: what the code is built as, composition at the top, leaves at the bottom.
 * A name imports only names on LOWER rows (never its own row: two capabilities on one row know
 * nothing of each other). A `.ts` name is a root file, any other a top-level folder.
 */
const LAYERS = [
  ['cli.ts'], // the command line
  ['server.ts', 'commands', 'testing'], // the composition (server.ts); the CLI's commands; test-run helpers
  ['client', 'config-file', 'background.ts'], // the typed client, mocks as code, the background jobs
  ['api', 'totp'], // the management plane's routes: adapters around the commands
  ['admin', 'serve'], // the endpoint-change commands; the endpoint plane's door
  ['mock', 'echo'], // the pipelines of user endpoints and of the echo
  ['oas', 'mtls', 'tunnel', 'plans.ts', 'grpc'], // what the mock pipeline's steps call on; the gRPC wire and descriptors
  ['endpoint'], // the request lifecycle, the endpoint cache, the dispatch
  ['history'], // the request history: entry, writer, caps, retention
  ['cluster'], // coordination between instances: the Redis link, shared versions, limits, events, leases
  ['http', 'state'], // capture and answers; endpoint state
  ['store', 'schema', 'secrets', 'template', 'logger.ts', 'dashboard', 'start-report.ts'], // services
  ['config.ts', 'worker-thread.ts', 'log-pretty.ts', 'supported-node.ts', 'tick-shape.ts'], // configuration; small runtime helpers
  ['errors.ts', 'regular-file.ts', 'outbound', 'jobs', 'regex', 'events', 'metrics'], // leaves: import nothing of ours
];
const rowOf = new Map(LAYERS.flatMap((names, row) => names.map((n) => [n, row])));

const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'src'));

/** Every .ts file under `dir` (declaration files excepted). */
function sources(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The imports and re-exports of a file: `{ specifier, typeOnly }`. */
function importsOf(file) {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const out = [];
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      out.push({ specifier: st.moduleSpecifier.text, typeOnly: st.importClause?.isTypeOnly === true });
    } else if (ts.isExportDeclaration(st) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) {
      out.push({ specifier: st.moduleSpecifier.text, typeOnly: st.isTypeOnly });
    }
  }
  return out;
}

/** The file a relative specifier names (`./x.js` is `./x.ts`), or undefined for a package. */
function resolveImport(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), base + '.ts', join(base, 'index.ts')];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

const rel = (p) => relative(root, p).split(sep).join('/');
/** The top-level folder of a file, or undefined for a file directly in the root. */
const folderOf = (p) => {
  const parts = rel(p).split('/');
  return parts.length > 1 ? parts[0] : undefined;
};

/** The name of a file in LAYERS: its top-level folder, or the file itself when it is in the root. */
const unitOf = (p) => folderOf(p) ?? rel(p);

const violations = [];
const unranked = new Set();
/** Import edges, type-only ones included: file → [{ target, specifier }]. */
const graph = new Map();
const files = sources(root);
for (const file of files) {
  const edges = [];
  for (const { specifier, typeOnly } of importsOf(file)) {
    const target = resolveImport(file, specifier);
    if (!target || !target.startsWith(root + sep)) continue;
    const to = folderOf(target);
    if (to !== undefined && to !== folderOf(file) && rel(target) !== `${to}/index.ts`)
      violations.push(`${rel(file)}: deep import '${specifier}' (import ${to}/ through ${to}/index.js)`);
    const [a, b] = [unitOf(file), unitOf(target)];
    if (a !== b && rowOf.has(a) && rowOf.has(b) && rowOf.get(b) <= rowOf.get(a))
      violations.push(
        `${rel(file)}: import${typeOnly ? ' type' : ''} '${specifier}' runs against the layers: ` +
          `${a} (row ${rowOf.get(a) + 1}) imports only rows below it, and ${b} is on row ${rowOf.get(b) + 1}`,
      );
    edges.push({ target, specifier });
  }
  graph.set(file, edges);
  if (!rowOf.has(unitOf(file))) unranked.add(unitOf(file));
}
for (const u of [...unranked].sort())
  violations.push(`${u}: has no row in LAYERS (scripts/check-imports.mjs): say where it stands`);

// Cycles: the strongly connected components of the import graph (Tarjan), one line per component,
// showing one cycle through it.
let counter = 0;
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const components = [];
function connect(v) {
  index.set(v, counter);
  low.set(v, counter++);
  stack.push(v);
  onStack.add(v);
  for (const { target: w } of graph.get(v) ?? []) {
    if (!index.has(w)) {
      connect(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
  }
  if (low.get(v) === index.get(v)) {
    const comp = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      comp.push(w);
    } while (w !== v);
    const selfLoop = (graph.get(v) ?? []).some((e) => e.target === v);
    if (comp.length > 1 || selfLoop) components.push(new Set(comp));
  }
}
for (const f of files) if (!index.has(f)) connect(f);

/** A shortest path inside `comp` from `start` back to `start`, as edges. */
function cycleThrough(comp, start) {
  const prev = new Map();
  const queue = [start];
  const seen = new Set([start]);
  while (queue.length > 0) {
    const v = queue.shift();
    for (const e of graph.get(v) ?? []) {
      if (!comp.has(e.target)) continue;
      if (e.target === start) {
        const path = [{ from: v, ...e }];
        for (let x = v; x !== start;) {
          const p = prev.get(x);
          path.unshift(p);
          x = p.from;
        }
        return path;
      }
      if (seen.has(e.target)) continue;
      seen.add(e.target);
      prev.set(e.target, { from: v, ...e });
      queue.push(e.target);
    }
  }
  return [];
}

for (const comp of components) {
  const start = [...comp].sort()[0];
  const path = cycleThrough(comp, start);
  const chain = [rel(start), ...path.map((e) => rel(e.target))].join(' → ');
  const first = path[0];
  violations.push(`${rel(start)}: import '${first.specifier}' is part of an import cycle: ${chain}`);
}

if (violations.length > 0) {
  for (const v of violations) console.error(v);
  process.exit(1);
}
console.log(`check-imports: ${files.length} files, no import cycle, no deep import, none against the layers`);
