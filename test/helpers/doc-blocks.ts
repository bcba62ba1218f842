/**
 * The shell blocks of README.md and docs/*.md, and a pure check of what their commands say.
 *
 * The convention (checked by test/cli/doc-commands.test.ts):
 *
 * - A shell block is a fenced block whose info string is `sh`, `bash`, `shell` or `console`, or that has
 *   none and is plainly shell (a line starts with `$ `, or its first command is curl, mockingbird, npm,
 *   npx, node, export or openssl).
 * - The line right before its opening fence is a marker (Prettier puts one blank line between them, which
 *   is allowed): `<!-- run: PATH -->`, where PATH is a test file
 *   or a CI script that runs the block and names the doc's file (e.g. `README.md`), or
 *   `<!-- illustrative -->` (optionally `<!-- illustrative: why -->`) for a block no test can run here.
 * - In `sh`, `bash` and `shell` blocks every line is shell. A `console` block (or an unlabelled one with
 *   `$ ` lines) shows a session: its commands are the `$ ` lines and their `\` continuations, everything
 *   else is output and is not checked. A `$ ` prompt in an `sh` block is a mistake (a reader would copy it).
 * - Every block, illustrative or not, is checked: `mockingbird …`, `npx mockingbird …` and `npm start --
 *   …` name subcommands and flags the CLI's help lists, `npm run X` names a script of package.json, a
 *   variable set for a command (`NAME=value cmd`, `export NAME=`) is a setting or a well-known variable,
 *   `npx mockingbird` (which works only inside the clone) appears only in a block with a comment line
 *   `# in a clone`, a registry install of `mockingbird-server` only in a block with a comment line
 *   `# once published`, and a tarball name `mockingbird-server-X.Y.Z.tgz` has package.json's version.
 */

export type Marker =
  { kind: 'run'; path: string } | { kind: 'illustrative' } | { kind: 'none' } | { kind: 'bad'; text: string };

export interface ShellBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  info: string;
  marker: Marker;
  /** The lines between the fences. */
  body: string;
}

/** What the commands may name: read from the CLI's help, package.json and the settings. */
export interface DocFacts {
  /** Subcommand → the flags it takes (`serve` is also the bare command). */
  flags: Map<string, Set<string>>;
  /** `keys create|list|revoke`. */
  keysActions: Set<string>;
  /** package.json's scripts: name → command. */
  scripts: Record<string, string>;
  /** Variables a command may be given. */
  env: Set<string>;
  /** package.json's version. */
  version: string;
}

/** Variables of the shell, Node.js and curl, not Mockingbird's to document. */
export const WELL_KNOWN_ENV = [
  'PATH',
  'HOME',
  'CI',
  'NO_COLOR',
  'FORCE_COLOR',
  'NODE_OPTIONS',
  'NODE_ENV',
  'CURL_CA_BUNDLE',
];

const SHELL_INFO = new Set(['sh', 'bash', 'shell', 'console']);
const PLAIN_SHELL_START = /^(curl|mockingbird|npm|npx|node|export|openssl)$/;
const FENCE = /^\s*(```+|~~~+)\s*([^\s`]*)\s*$/;

function parseMarker(line: string | undefined): Marker {
  const t = (line ?? '').trim();
  if (!t.startsWith('<!--')) return { kind: 'none' };
  const run = /^<!--\s*run:\s*(\S+)\s*-->$/.exec(t);
  if (run) return { kind: 'run', path: run[1]! };
  if (/^<!--\s*illustrative(:[^>]*)?\s*-->$/.test(t)) return { kind: 'illustrative' };
  return { kind: 'none' };
}

/** The line before the fence at `i`, or the one before that when Prettier's blank line comes between. */
function markerLine(lines: string[], i: number): string | undefined {
  const prev = lines[i - 1];
  return prev !== undefined && prev.trim() === '' ? lines[i - 2] : prev;
}

/** Whether an unlabelled block is plainly shell. */
function plainShell(body: string): boolean {
  const lines = body.split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));
  if (lines.some((l) => l.startsWith('$ '))) return true;
  const first = commands(lines[0] ?? '')[0];
  const words = first ? stripAssignments(first).rest : [];
  return PLAIN_SHELL_START.test(words[0] ?? '');
}

/** Every shell block of a Markdown text, with the marker on the line before its fence. */
export function shellBlocks(file: string, text: string): ShellBlock[] {
  const lines = text.split('\n');
  const out: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    let j = i + 1;
    while (j < lines.length && lines[j]!.trim() !== fence) j++;
    const info = open[2]!;
    const body = lines.slice(i + 1, j).join('\n');
    if (SHELL_INFO.has(info) || (info === '' && plainShell(body)))
      out.push({ file, line: i + 1, info, marker: parseMarker(markerLine(lines, i)), body });
    i = j;
  }
  return out;
}

/** The shell text of a block: all of it, or for a session only the `$ ` lines and their continuations. */
export function blockScript(block: ShellBlock): string {
  const lines = block.body.split('\n');
  const session = block.info === 'console' || (block.info === '' && lines.some((l) => l.startsWith('$ ')));
  if (!session) return block.body;
  const kept: string[] = [];
  let continued = false;
  for (const l of lines) {
    if (l.startsWith('$ ') || continued) {
      kept.push(l.startsWith('$ ') && !continued ? l.slice(2) : l);
      continued = l.endsWith('\\');
    }
  }
  return kept.join('\n');
}

/**
 * Simple commands of a shell text, as words with their quotes removed: split at newlines, `;`, `&`, `|`,
 * parentheses and `$(`; comments dropped; a quoted string may span lines. Enough for documentation, not
 * a shell.
 */
export function commands(src: string): string[][] {
  const out: string[][] = [];
  let cmd: string[] = [];
  let word = '';
  let inWord = false;
  const endWord = (): void => {
    if (inWord) cmd.push(word);
    word = '';
    inWord = false;
  };
  const endCmd = (): void => {
    endWord();
    if (cmd.length > 0) out.push(cmd);
    cmd = [];
  };
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '\\') {
      if (src[i + 1] !== '\n') {
        word += src[i + 1] ?? '';
        inWord = true;
      }
      i += 2;
    } else if (c === "'") {
      const j = src.indexOf("'", i + 1);
      const end = j < 0 ? src.length : j;
      word += src.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== '"') j += src[j] === '\\' ? 2 : 1;
      word += src.slice(i + 1, j);
      inWord = true;
      i = j + 1;
    } else if (c === '#' && !inWord) {
      const j = src.indexOf('\n', i);
      i = j < 0 ? src.length : j;
    } else if (c === '$' && src[i + 1] === '(') {
      endCmd();
      i += 2;
    } else if ('\n;&|()'.includes(c)) {
      endCmd();
      i++;
    } else if (c === ' ' || c === '\t') {
      endWord();
      i++;
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  endCmd();
  return out;
}

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=/;
const KEYWORDS = new Set(['{', '}', 'then', 'do', 'else', 'if', 'while', '!', 'time']);

function stripAssignments(words: string[]): { assigned: string[]; rest: string[] } {
  let k = 0;
  while (k < words.length && KEYWORDS.has(words[k]!)) k++;
  const assigned: string[] = [];
  for (; k < words.length; k++) {
    const m = ASSIGNMENT.exec(words[k]!);
    if (!m) break;
    assigned.push(m[1]!);
  }
  return { assigned, rest: words.slice(k) };
}

const REGISTRY_PACKAGE = /^mockingbird-server(@[^/]*)?$/;

/** The flags of a word list, up to a redirection; `[--x` and `--x=v` give `--x`. */
function flagsOf(words: string[]): string[] {
  const out: string[] = [];
  for (const raw of words) {
    if (/^\d?[<>]/.test(raw)) break;
    const w = raw.replace(/^\[+/, '').replace(/\]+$/, '');
    if (/^--?[A-Za-z]/.test(w)) out.push(w.split('=')[0]!);
  }
  return out;
}

function checkCli(args: string[], facts: DocFacts, say: (m: string) => void): void {
  const first = args[0];
  const sub = first === undefined || first.startsWith('-') || /^\d?[<>]/.test(first) ? 'serve' : first;
  if (sub === '…') return;
  const flags = facts.flags.get(sub);
  if (!flags) {
    say(`mockingbird has no subcommand "${sub}"`);
    return;
  }
  if (sub === 'keys' && args[1] !== undefined && !args[1].startsWith('-') && !facts.keysActions.has(args[1]))
    say(`mockingbird keys has no action "${args[1]}"`);
  for (const f of flagsOf(sub === first ? args.slice(1) : args))
    if (!flags.has(f)) say(`mockingbird ${sub} has no flag ${f}`);
}

/**
 * What is false in one block: each problem as text (the caller adds file:line). Pure: the facts are
 * passed in, nothing is read.
 */
export function checkBlock(block: ShellBlock, facts: DocFacts): string[] {
  const problems: string[] = [];
  const say = (m: string): void => void problems.push(m);
  const commentLines = block.body.split('\n').map((l) => l.trim());
  const inClone = commentLines.some((l) => /^#\s*(in|inside) (a|the) clone\b/i.test(l));
  const oncePublished = commentLines.some((l) => /^#\s*once published\b/i.test(l));
  if (block.info !== 'console' && block.info !== '' && block.body.split('\n').some((l) => l.startsWith('$ ')))
    say('a `$ ` prompt in a shell block (use ```console for a session with output)');

  for (const m of block.body.matchAll(/mockingbird-server-(\d[^\s/]*?)\.tgz/g))
    if (m[1] !== facts.version)
      say(`the tarball is mockingbird-server-${facts.version}.tgz, not mockingbird-server-${m[1]}.tgz`);

  // `<hosted service>` is a placeholder for the reader, not a redirection.
  const script = blockScript(block).replace(/<[A-Za-z][^<>\n]*>/g, 'PLACEHOLDER');
  for (const words of commands(script)) {
    let { assigned, rest } = stripAssignments(words);
    if (rest[0] === 'export') {
      assigned = rest.slice(1).flatMap((w) => ASSIGNMENT.exec(w)?.[1] ?? []);
      rest = [];
      for (const name of assigned) if (!facts.env.has(name)) say(`${name} is no documented setting`);
      continue;
    }
    // Only shell variables (`KEY=mb_…`), or a placeholder (`API=https://<host>/v2`): no command's environment.
    if (rest.length === 0 || /^\d?[<>]/.test(rest[0]!)) continue;
    for (const name of assigned) if (!facts.env.has(name)) say(`${name} is no documented setting`);
    const [program, ...args] = rest;
    if (program === 'mockingbird') checkCli(args, facts, say);
    else if (program === 'npx' || (program === 'npm' && args[0] === 'exec')) {
      const pkgArgs = (program === 'npx' ? args : args.slice(1)).filter((a) => !a.startsWith('-'));
      const pkg = pkgArgs[0];
      if (pkg === 'mockingbird') {
        if (!inClone)
          say('`npx mockingbird` works only inside the clone: say so with a comment line `# in a clone`');
        checkCli(args.slice(args.indexOf('mockingbird') + 1), facts, say);
      } else if (pkg !== undefined && REGISTRY_PACKAGE.test(pkg)) {
        if (!oncePublished)
          say(
            `\`${program} ${pkg}\` reads the npm registry: only in a block with a comment line \`# once published\``,
          );
      }
    } else if (program === 'npm') {
      const [verb, ...more] = args;
      if (verb === 'install' || verb === 'i' || verb === 'add') {
        for (const a of more)
          if (REGISTRY_PACKAGE.test(a) && !oncePublished)
            say(
              `\`npm ${verb} ${a}\` reads the npm registry: only in a block with a comment line \`# once published\``,
            );
      } else if (verb === 'run' || verb === 'run-script') {
        const script = more.find((a) => !a.startsWith('-'));
        if (script === undefined || !(script in facts.scripts)) say(`package.json has no script "${script}"`);
      } else if (verb === 'start' || verb === 'test' || verb === 'stop' || verb === 'restart') {
        const command = facts.scripts[verb];
        if (command === undefined) say(`package.json has no script "${verb}"`);
        const dash = more.indexOf('--');
        const sub = /\bcli\.js\s+(\w+)/.exec(command ?? '')?.[1];
        if (dash >= 0 && sub !== undefined) checkCli([sub, ...more.slice(dash + 1)], facts, say);
      }
    }
  }
  return problems;
}

/**
 * Subcommands and their flags, read from `mockingbird --help` and `mockingbird keys --help`: a usage
 * line gives its subcommand the flags it shows; an options section gives its flags to the subcommands its
 * heading names (the first, `Options (…)`, belongs to serve); `--help` and `-h` go to every subcommand.
 */
export function cliFlags(
  help: string,
  keysHelp: string,
): { flags: Map<string, Set<string>>; keysActions: Set<string> } {
  const flags = new Map<string, Set<string>>();
  const add = (sub: string, fs: Iterable<string>): void => {
    const set = flags.get(sub) ?? new Set<string>();
    for (const f of fs) set.add(f);
    flags.set(sub, set);
  };
  const keysActions = new Set<string>();
  let section: string[] = [];
  let inCommands = false;
  for (const line of help.split('\n')) {
    const usage = /^(?:Usage:)?\s+mockingbird\s+\[?(\w+)\]?(?:\s+([\w|]+))?/.exec(line);
    const found = [...line.matchAll(/(?<![\w-])(--[a-z][a-z-]*|-[a-z])\b/g)].map((m) => m[1]!);
    if (usage) {
      add(usage[1]!, found);
      if (usage[1] === 'keys') for (const a of (usage[2] ?? '').split('|')) if (a) keysActions.add(a);
    } else if (/^Commands:/.test(line)) {
      inCommands = true;
    } else if (/^Options/.test(line)) {
      inCommands = false;
      // `Options (each also read …)` are serve's; `Options of tunnel:` and `Options of export and import (…`
      // name theirs before any parenthesis.
      const heading = line.split('(')[0]!;
      section = /^Options\s*$/.test(heading)
        ? ['serve']
        : [...heading.matchAll(/\b(\w+)\b/g)].map((m) => m[1]!).filter((w) => flags.has(w));
    } else if (inCommands) {
      const name = /^\s+(\w+)\s{2,}/.exec(line)?.[1];
      if (name) add(name, []);
    } else if (/^\s+-/.test(line)) {
      // A row lists its flag and perhaps a short form (`--help, -h`); its description may name others.
      for (const sub of section) add(sub, found.slice(0, /^\s+--?[a-z-]+,/.test(line) ? 2 : 1));
    }
  }
  add(
    'keys',
    [...keysHelp.matchAll(/(?<![\w-])(--[a-z][a-z-]*)\b/g)].map((m) => m[1]!),
  );
  for (const set of flags.values()) set.add('--help').add('-h');
  return { flags, keysActions };
}
