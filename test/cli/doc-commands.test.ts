/**
 * The doc check: every shell block of README.md and docs/*.md is marked as run by a test (`<!-- run: PATH
 * -->`, PATH existing and naming the doc) or as illustrative (`<!-- illustrative -->`), and no block, of
 * either kind, says something false that can be checked: subcommands, flags and npm scripts exist,
 * variables set are settings, `npx mockingbird` only in a clone, registry installs only "once published".
 * The convention is described in test/helpers/doc-blocks.ts; the checker is tested first on a bad and a
 * good block.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { SETTINGS } from '../../src/config.js';
import { runCli } from '../helpers/cli.js';
import {
  WELL_KNOWN_ENV,
  checkBlock,
  cliFlags,
  commands,
  shellBlocks,
  type DocFacts,
  type ShellBlock,
} from '../helpers/doc-blocks.js';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  version: string;
  scripts: Record<string, string>;
};
const DOCS = [
  'README.md',
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

let facts: DocFacts;

before(async () => {
  const [help, keysHelp] = await Promise.all([runCli(['--help']), runCli(['keys', '--help'])]);
  assert.equal(help.code, 0, help.stderr);
  assert.equal(keysHelp.code, 0, keysHelp.stderr);
  const { flags, keysActions } = cliFlags(help.stdout, keysHelp.stdout);
  // Variables the help names besides the settings (MOCKINGBIRD_URL, the client commands' server).
  const named = [...help.stdout.matchAll(/\(([A-Z][A-Z0-9_]+)[,)]/g)].map((m) => m[1]!);
  facts = {
    flags,
    keysActions,
    scripts: pkg.scripts,
    env: new Set([...SETTINGS.map((s) => s.env), ...named, ...WELL_KNOWN_ENV]),
    version: pkg.version,
  };
});

/** A block of `body` in a doc, as shellBlocks finds it. */
function block(body: string, info = 'sh', marker = '<!-- illustrative -->'): ShellBlock {
  const found = shellBlocks('docs/x.md', `${marker}\n\`\`\`${info}\n${body}\n\`\`\`\n`);
  assert.equal(found.length, 1);
  return found[0]!;
}

test("the CLI's help gives each subcommand its own flags", () => {
  assert.deepEqual([...facts.flags.keys()].sort(), ['export', 'import', 'keys', 'serve', 'tunnel']);
  assert.ok(facts.flags.get('serve')!.has('--config'));
  assert.ok(facts.flags.get('serve')!.has('--watch'));
  assert.ok(facts.flags.get('serve')!.has('--proxy-allow'));
  assert.ok(facts.flags.get('tunnel')!.has('--endpoint'));
  assert.ok(!facts.flags.get('tunnel')!.has('--watch'));
  assert.ok(facts.flags.get('keys')!.has('--data-dir'));
  assert.ok(!facts.flags.get('import')!.has('--port'));
  assert.deepEqual([...facts.keysActions].sort(), ['create', 'list', 'revoke']);
  assert.ok(facts.env.has('MOCKINGBIRD_URL'));
});

test('the shell lexer keeps quoted words whole, drops comments and splits at separators', () => {
  assert.deepEqual(commands(`A=1 curl -d '{"a": 1}' "x y" # note\nKEY=$(mockingbird keys list); npm test`), [
    ['A=1', 'curl', '-d', '{"a": 1}', 'x y'],
    ['KEY='],
    ['mockingbird', 'keys', 'list'],
    ['npm', 'test'],
  ]);
  assert.deepEqual(commands('rule \'{\n  "a": 1}\'\ncurl x \\\n  -s'), [
    ['rule', '{\n  "a": 1}'],
    ['curl', 'x', '-s'],
  ]);
});

test('the checker finds every false statement of a bad block, with its reason', () => {
  const bad = block(
    [
      'FOO_LIMIT=3 mockingbird serve --config m.yaml --wtach',
      'mockingbird keys make --endpoint shop',
      'mockingbird tunnel --endpoint shop --watch',
      'mockingbird deploy',
      'export SECRET_THING=1',
      'npm run bench:everything',
      'npm start -- --confg m.yaml',
      'npx mockingbird serve',
      'npx mockingbird-server',
      'npm install -g mockingbird-server',
      'npm install --save-dev mockingbird-server@latest',
      'npm install -g ./mockingbird-server-9.9.9.tgz',
      '$ npm test',
    ].join('\n'),
  );
  assert.deepEqual(checkBlock(bad, facts), [
    'a `$ ` prompt in a shell block (use ```console for a session with output)',
    `the tarball is mockingbird-server-${pkg.version}.tgz, not mockingbird-server-9.9.9.tgz`,
    'FOO_LIMIT is no documented setting',
    'mockingbird serve has no flag --wtach',
    'mockingbird keys has no action "make"',
    'mockingbird tunnel has no flag --watch',
    'mockingbird has no subcommand "deploy"',
    'SECRET_THING is no documented setting',
    'package.json has no script "bench:everything"',
    'mockingbird serve has no flag --confg',
    '`npx mockingbird` works only inside the clone: say so with a comment line `# in a clone`',
    '`npx mockingbird-server` reads the npm registry: only in a block with a comment line `# once published`',
    '`npm install mockingbird-server` reads the npm registry: only in a block with a comment line `# once published`',
    '`npm install mockingbird-server@latest` reads the npm registry: only in a block with a comment line `# once published`',
  ]);
});

test('the checker passes a good block, and one that says where it runs', () => {
  const good = block(
    [
      'KEY=mb_…            # a shell variable, not an environment',
      'PROXY_ALLOW=127.0.0.0/8 mockingbird serve --config examples/mockingbird.yaml --watch',
      'export MOCKINGBIRD_API_KEY=mb_…',
      'KEY=$(mockingbird keys create --endpoint shop --server http://localhost:8080)',
      'mockingbird export [--endpoint NAME] [--server URL] > mockingbird.yaml',
      'NODE_OPTIONS=--max-old-space-size=512 npm run bench:history',
      'npm start -- --config examples/mockingbird.yaml --port 9000',
      `npm install -g ./mockingbird-server-${pkg.version}.tgz`,
      'curl -s http://localhost:8080/e/shop/ -d "npx mockingbird-server"',
    ].join('\n'),
  );
  assert.deepEqual(checkBlock(good, facts), []);
  const marked = block(
    '# in a clone\nnpx mockingbird serve --port 9000\n# once published\nnpx mockingbird-server',
  );
  assert.deepEqual(checkBlock(marked, facts), []);
  const session = block('$ mockingbird serve --port 9000\nmockingbird --nonsense is output here', 'console');
  assert.deepEqual(checkBlock(session, facts), []);
});

test('a block is found with its marker, and unlabelled text is no shell block', () => {
  const md = [
    '<!-- run: test/cli/x.test.ts -->',
    '```sh',
    'curl x',
    '```',
    '',
    '```',
    'curl y',
    '```',
    '```',
    'some output: curl',
    '```',
    '```json',
    '{}',
    '```',
    '<!-- illustrative: a blank line between, as Prettier writes it -->',
    '',
    '```console',
    '$ npm test',
    '```',
  ].join('\n');
  const found = shellBlocks('docs/x.md', md);
  assert.deepEqual(
    found.map((b) => [b.line, b.marker.kind]),
    [
      [2, 'run'],
      [6, 'none'],
      [17, 'illustrative'],
    ],
  );
});

/** Every shell block of the docs that has no marker, a bad `run:` path, or a false command. */
function problems(): string[] {
  const out: string[] = [];
  for (const file of DOCS) {
    for (const b of shellBlocks(file, readFileSync(file, 'utf8'))) {
      const at = `${file}:${b.line}`;
      if (b.marker.kind === 'none')
        out.push(
          `${at}: no marker (<!-- run: PATH --> or <!-- illustrative -->) on the line before the fence`,
        );
      if (b.marker.kind === 'run') {
        const { path } = b.marker;
        if (!existsSync(path)) out.push(`${at}: run: ${path} does not exist`);
        else if (!readFileSync(path, 'utf8').includes(file))
          out.push(`${at}: run: ${path} does not mention ${file}`);
      }
      for (const p of checkBlock(b, facts)) out.push(`${at}: ${p}`);
    }
  }
  return out;
}

test('every shell block of README.md and docs/*.md is marked, and none says something false', () => {
  const total = DOCS.reduce((n, f) => n + shellBlocks(f, readFileSync(f, 'utf8')).length, 0);
  assert.ok(total > 50, `found ${total} shell blocks`);
  assert.equal(problems().join('\n'), '');
});
