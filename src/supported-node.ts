/**
 * The Node.js lines Mockingbird runs on, checked before anything else of the service loads (the CLI
 * imports this module first): on another line the start stops with one line saying which Node this
 * is and what to do, instead of a native driver's abort or a stack trace. The lines are the ones CI
 * runs the whole suite on, and package.json's `engines` says the same (test/cli/node-lines.test.ts).
 */

/** package.json's `engines.node`. */
export const SUPPORTED_NODE = '^20.19.0 || ^22.12.0 || >=24';

/** Why `version` (as in `process.versions.node`) cannot run Mockingbird, or undefined when it can. */
export function unsupportedNode(version: string): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map((n) => Number.parseInt(n, 10));
  const ok = (major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major >= 24;
  if (ok) return undefined;
  return (
    `Mockingbird runs on Node.js 24 LTS, 22.12 or later in the 22 line, or 20.19 or later in the 20 line; ` +
    `this is Node.js ${version}. Install Node.js 24 LTS, then run \`npm install\` again.`
  );
}

const problem = unsupportedNode(process.versions.node);
if (problem !== undefined) {
  process.stderr.write(`mockingbird: ${problem}\n`);
  process.exit(1);
}
