// Checks the import graph of src/ (or of the directory given as the only argument) against two rules
// of the layout (docs: STYLE.md, "Layout shows the architecture"):
//
//   1. No import cycle between modules. Only imports that exist at run time count: `import type …`
//      and `export type … from` are erased by TypeScript and are left out of cycle detection (a
//      type-only cycle cannot leave a module half-initialised). `import { type A }` is not erased
//      (verbatimModuleSyntax keeps `import {} from`), so it counts.
//   2. No deep import into another folder: a file under the top-level folder X imports a file of
//      another top-level folder Y only as `Y/index.js`, its public surface. Subfolders belong to their
//      top-level folder (api/schemas is inside api). Files directly in the root (config.ts, errors.ts,
//      context.ts, plans.ts, logger.ts, server.ts, cli.ts, …) are importable by anyone; type-only
//      imports obey this rule too.
//
// Imports are read with the TypeScript compiler's parser (no type checking, so it takes a second).
// Prints one line per violation naming the file and the import, and exits 1; exits 0 when clean.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

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

const violations = [];
/** Runtime edges: file → [{ target, specifier }]. */
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
    if (!typeOnly) edges.push({ target, specifier });
  }
  graph.set(file, edges);
}

// Cycles: the strongly connected components of the runtime graph (Tarjan), one line per component,
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
console.log(`check-imports: ${files.length} files, no import cycle, no deep import`);
