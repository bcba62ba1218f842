#!/usr/bin/env node
/**
 * The `mockingbird` command: `serve` (default), `keys create|list|revoke` (commands/keys.ts), `tunnel`,
 * `export`, `import`, `--help`, `--version`.
 * A bad setting stops the start with one line on stderr and exit code 2.
 */
// First, before the rest of the service loads: tick-shape.ts (it must be the first module evaluated);
// then a Node line we do not run on stops here with one line (supported-node.ts).
import './tick-shape.js';
import './supported-node.js';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, SETTINGS, loadConfig, type Config } from './config.js';
import { buildApp } from './server.js';
import { DataDirInUse } from './store/index.js';
import { importHarCommand, keysCommand } from './commands/index.js';
import { redisProblem, safeUrl, startBanner } from './start-report.js';
import { endpointNameProblem } from './endpoint/index.js';
import { runTunnel } from './tunnel/index.js';
import { configCommand, ConfigFileError, loadConfigFile, watchConfigFile } from './config-file/index.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

const USAGE = `Usage: mockingbird [serve] [--config FILE [--watch]] [options]
       mockingbird keys create|list|revoke [ID] [--endpoint NAME] [--server URL] [--api-key KEY]
       mockingbird tunnel --endpoint NAME --port PORT [--host HOST] [--server URL] [--api-key KEY]
       mockingbird export [--endpoint NAME] [--server URL] [--api-key KEY] > mockingbird.yaml
       mockingbird import FILE [--server URL] [--api-key KEY]
       mockingbird import --har FILE --endpoint NAME [--preview] [--header NAME]… [--server URL] [--api-key KEY]

Commands:
  serve         start the service (default)
  keys          create (and print once), list or revoke API keys of a running server (mockingbird keys --help)
  tunnel        forward the endpoint's requests that no rule answers to a local service (see below)
  export        print a running server's endpoints as a configuration file (YAML)
  import        apply a configuration file to a running server through its API; with --har, turn a
                HAR capture into rules of one endpoint (mockingbird import --har --help)

Options (each also read from the environment variable shown):
${SETTINGS.map((s) => `  --${s.flag.padEnd(24)} ${s.env.padEnd(24)} ${s.help}`).join('\n')}
  --watch                    with --config: load the file again when it changes
  --help, -h                 show this help
  --version, -v              show the version

Options of tunnel:
  --endpoint NAME            the endpoint whose requests come through
  --port PORT                port of the local service
  --host HOST                host of the local service (default 127.0.0.1)
  --server URL               the Mockingbird server (MOCKINGBIRD_URL, default http://localhost:8080)
  --api-key KEY              an API key allowed on the endpoint (MOCKINGBIRD_API_KEY)

Options of export and import (--server and --api-key as for tunnel; import needs an admin key to
create endpoints or change plans):
  --endpoint NAME            export: only this endpoint
`;

function fail(message: string): never {
  process.stderr.write(`mockingbird: ${message}\n`);
  process.exit(2);
}

function parse(argv: string[]): {
  command: string[];
  flags: Record<string, string | undefined>;
  help: boolean;
  version: boolean;
  watch: boolean;
} {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean', short: 'v' },
    watch: { type: 'boolean' },
  };
  for (const s of SETTINGS) options[s.flag] = { type: 'string' };
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    fail(`${err instanceof Error ? err.message : String(err)} (see mockingbird --help)`);
  }
  const v = parsed.values as Record<string, string | boolean | undefined>;
  const flags: Record<string, string | undefined> = {};
  for (const s of SETTINGS) if (typeof v[s.flag] === 'string') flags[s.flag] = v[s.flag] as string;
  return {
    command: parsed.positionals,
    flags,
    help: v['help'] === true,
    version: v['version'] === true,
    watch: v['watch'] === true,
  };
}

function config(flags: Record<string, string | undefined>): Config {
  try {
    return loadConfig(flags);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
}

async function serve(cfg: Config, watch: boolean): Promise<void> {
  if (watch && !cfg.configFile) fail('--watch needs --config FILE (or MOCKINGBIRD_CONFIG)');
  // Signal handlers go in before anything is announced: a SIGTERM that arrives right after the
  // listening line must still flush the history, not kill the process.
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    if (!app) process.exit(0);
    app.ctx.log.info({ signal }, 'shutting down: finishing requests and flushing history');
    app
      .close()
      // Answered requests whose history could not be written (a full disk): said, and not exit 0.
      .then(({ historyLost }) => process.exit(historyLost > 0 ? 1 : 0))
      .catch((err: unknown) => {
        process.stderr.write(`mockingbird: shutdown failed: ${String(err)}\n`);
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  if (cfg.redisUrl) {
    const problem = await redisProblem(cfg.redisUrl);
    if (problem)
      fail(
        `cannot reach Redis at REDIS_URL (${safeUrl(cfg.redisUrl)}): ${problem}. ` +
          `One instance does not need Redis: unset REDIS_URL, or start Redis there.`,
      );
  }
  try {
    app = await buildApp(cfg);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message); // e.g. a bad PLANS_FILE, read while building
    if (err instanceof DataDirInUse) fail(err.message); // a second instance on one SQLite file
    const what = cfg.databaseUrl
      ? `cannot open the database at DATABASE_URL (${safeUrl(cfg.databaseUrl)})`
      : `cannot open the database in ${cfg.dataDir}`;
    fail(`${what}: ${err instanceof Error ? err.message : String(err)}`);
  }
  let loaded: { file: string; endpoints: string[] } | undefined;
  if (cfg.configFile) {
    const file = cfg.configFile;
    try {
      loaded = { file, ...(await loadConfigFile(app.ctx, file)) };
    } catch (err) {
      await app.close();
      if (err instanceof ConfigFileError) fail(`invalid configuration file:\n${err.message}`);
      fail(`cannot load ${file}: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (watch) watchConfigFile(app.ctx, file);
  }
  try {
    await app.fastify.listen({ port: cfg.port, host: cfg.host });
  } catch (err) {
    await app.close();
    fail(`cannot listen on ${cfg.host}:${cfg.port}: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    const metricsPort = await app.listenMetrics();
    if (metricsPort !== undefined)
      app.ctx.log.info({ url: `http://${cfg.metricsHost}:${metricsPort}/metrics` }, 'metrics listening');
  } catch (err) {
    await app.close();
    fail(
      `cannot listen for metrics on ${cfg.metricsHost}:${cfg.metricsPort} (METRICS_HOST, METRICS_PORT): ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const addr = app.fastify.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : cfg.port;
  // One write, so that whoever reads the listening line also has the key line.
  process.stdout.write(
    startBanner(cfg, {
      version: pkg.version,
      scheme: cfg.tlsCert ? 'https' : 'http',
      port,
      ...(loaded ? { configFile: loaded } : {}),
      generatedAdminKey: app.generatedAdminKey,
    }),
  );
}

/** `mockingbird tunnel`: runs until SIGINT/SIGTERM (exit 0) or a refusal no retry can fix (exit 1). */
async function tunnel(argv: string[]): Promise<void> {
  let v: Record<string, string | boolean | undefined>;
  try {
    v = parseArgs({
      args: argv,
      options: {
        endpoint: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        server: { type: 'string' },
        'api-key': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values;
  } catch (err) {
    fail(`${err instanceof Error ? err.message : String(err)} (see mockingbird --help)`);
  }
  if (v['help'] === true) {
    process.stdout.write(USAGE);
    return;
  }
  const endpoint = v['endpoint'];
  if (typeof endpoint !== 'string') fail('tunnel needs --endpoint NAME');
  const problem = endpointNameProblem(endpoint);
  if (problem) fail(`--endpoint: ${problem}`);
  const rawPort = v['port'];
  if (typeof rawPort !== 'string' || !/^\d+$/.test(rawPort) || Number(rawPort) < 1 || Number(rawPort) > 65535)
    fail("tunnel needs --port with the local service's port (1 to 65535)");
  const server =
    (v['server'] as string | undefined) ?? process.env['MOCKINGBIRD_URL'] ?? 'http://localhost:8080';
  try {
    if (!/^https?:$/.test(new URL(server).protocol)) throw new Error();
  } catch {
    fail(`--server must be an http:// or https:// URL, got "${server}"`);
  }
  const apiKey = (v['api-key'] as string | undefined) ?? process.env['MOCKINGBIRD_API_KEY'];
  if (!apiKey) fail('tunnel needs an API key allowed on the endpoint: --api-key KEY or MOCKINGBIRD_API_KEY');
  const handle = runTunnel({
    server,
    endpoint,
    apiKey,
    targetHost: (v['host'] as string | undefined) ?? '127.0.0.1',
    targetPort: Number(rawPort),
    out: (line) => process.stdout.write(line + '\n'),
    err: (line) => process.stderr.write(line + '\n'),
  });
  // A signal closes the WebSocket properly before exiting 0; a refusal exits 1 at once.
  const stop = (): void => void handle.stop().then((code) => process.exit(code));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const code = await handle.done;
  if (code !== 0) process.exit(code);
}

async function main(): Promise<void> {
  if (process.argv[2] === 'tunnel') return tunnel(process.argv.slice(3));
  if (process.argv[2] === 'keys') {
    const io = { out: (t: string) => process.stdout.write(t), err: (t: string) => process.stderr.write(t) };
    process.exitCode = await keysCommand(process.argv.slice(3), { ...io, env: process.env });
    return;
  }
  const first = process.argv[2];
  if (first === 'import' && process.argv.slice(3).some((a) => a === '--har' || a.startsWith('--har='))) {
    const io = { out: (t: string) => process.stdout.write(t), err: (t: string) => process.stderr.write(t) };
    process.exitCode = await importHarCommand(process.argv.slice(3), { ...io, env: process.env });
    return;
  }
  if (first === 'export' || first === 'import') {
    const io = {
      out: (t: string) => process.stdout.write(t),
      err: (t: string) => process.stderr.write(t),
      env: process.env,
    };
    if (process.argv.includes('--help') || process.argv.includes('-h'))
      return void process.stdout.write(USAGE);
    process.exitCode = await configCommand(first, process.argv.slice(3), io);
    return;
  }
  const args = parse(process.argv.slice(2));
  if (args.version) {
    process.stdout.write(`${pkg.version}\n`);
    return;
  }
  if (args.help) {
    process.stdout.write(USAGE);
    return;
  }
  const [cmd = 'serve'] = args.command;
  if (cmd === 'serve') return serve(config(args.flags), args.watch);
  fail(`unknown command "${args.command.join(' ')}" (see mockingbird --help)`);
}

await main();
