/**
 * The bodies of `mockingbird export` and `mockingbird import`: options as `tunnel` takes them
 * (`--server`, default MOCKINGBIRD_URL or http://localhost:8080; `--api-key`, default
 * MOCKINGBIRD_API_KEY). Answers the exit code: 0 done, 1 refused by the server or the file, 2 a usage error.
 */
import { parseArgs } from 'node:util';
import { exportConfig, importConfig } from './remote.js';
import { ConfigFileError } from './source.js';

export interface CommandIo {
  out: (text: string) => void;
  err: (text: string) => void;
  env: NodeJS.ProcessEnv;
}

export async function configCommand(
  command: 'export' | 'import',
  argv: string[],
  io: CommandIo,
): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: {
        endpoint: { type: 'string' },
        server: { type: 'string' },
        'api-key': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: command === 'import',
      strict: true,
    }));
  } catch (err) {
    io.err(`mockingbird: ${err instanceof Error ? err.message : String(err)} (see mockingbird --help)\n`);
    return 2;
  }
  const server =
    (values['server'] as string | undefined) ?? io.env['MOCKINGBIRD_URL'] ?? 'http://localhost:8080';
  try {
    if (!/^https?:$/.test(new URL(server).protocol)) throw new Error();
  } catch {
    io.err(`mockingbird: --server must be an http:// or https:// URL, got "${server}"\n`);
    return 2;
  }
  const apiKey = (values['api-key'] as string | undefined) ?? io.env['MOCKINGBIRD_API_KEY'];
  if (!apiKey) {
    io.err(`mockingbird: ${command} needs an API key: --api-key KEY or MOCKINGBIRD_API_KEY\n`);
    return 2;
  }
  const warn = (line: string) => io.err(`mockingbird: note: ${line}\n`);
  try {
    if (command === 'export') {
      const endpoint = values['endpoint'] as string | undefined;
      io.out(await exportConfig({ server, apiKey, warn, ...(endpoint !== undefined ? { endpoint } : {}) }));
      return 0;
    }
    if (positionals.length !== 1) {
      io.err('mockingbird: import needs one FILE (see mockingbird --help)\n');
      return 2;
    }
    const names = await importConfig(positionals[0]!, { server, apiKey, warn });
    io.err(`Imported ${names.length} endpoint(s) into ${server}: ${names.join(', ')}\n`);
    return 0;
  } catch (err) {
    const message =
      err instanceof ConfigFileError
        ? err.message
        : `${command} ${command === 'import' ? 'into' : 'from'} ${server} failed: ${reason(err)}`;
    io.err(`mockingbird: ${message}\n`);
    return 1;
  }
}

/** What went wrong, said so that a person can act: a connection failure names its cause and the fix. */
function reason(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  // fetch() says only "fetch failed"; the cause (ECONNREFUSED, ENOTFOUND, …) is what tells.
  if (err instanceof TypeError && err.cause instanceof Error)
    return (
      `no Mockingbird server answers there (${err.cause.message}): start one with \`mockingbird serve\`, ` +
      `or name it with --server URL`
    );
  return err.message;
}
