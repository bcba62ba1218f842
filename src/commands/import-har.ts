/**
 * `mockingbird import --har FILE --endpoint NAME [--preview] [--header NAME]…`: a HAR file (a
 * browser's or a proxy's capture) turned into mock rules of a running server's endpoint, through its
 * API (`POST …/import/har`, by the typed client), so the server applies its own limits and checks.
 * Prints what was created and each entry skipped with its reason. Exit codes as `import` has them:
 * 0 done, 1 refused by the server or an unreadable file, 2 a usage error.
 */
import { readFile, stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { Mockingbird, MockingbirdError } from '../client/index.js';
import { endpointNameProblem } from '../endpoint/index.js';

export const IMPORT_HAR_USAGE = `Usage: mockingbird import --har FILE --endpoint NAME [--preview] [--header NAME]… [--server URL] [--api-key KEY]

  --har FILE        the HAR document (HAR 1.2, as a browser's network panel saves it)
  --endpoint NAME   the endpoint whose rules are appended
  --preview         print what would be created and skipped; change nothing
  --header NAME     a request header to match on (repeat for several)
  --server URL      the running server (MOCKINGBIRD_URL, default http://localhost:8080)
  --api-key KEY     a key allowed on the endpoint (MOCKINGBIRD_API_KEY)
`;

/** Largest file read: the most HAR_IMPORT_LIMIT may be set to (the server refuses past its own setting). */
const READ_LIMIT = 256 * 1024 * 1024;

export interface ImportHarIo {
  out: (text: string) => void;
  err: (text: string) => void;
  env: NodeJS.ProcessEnv;
}

/** Runs the command; answers its exit code. */
export async function importHarCommand(argv: string[], io: ImportHarIo): Promise<number> {
  const usage = (message: string): number => {
    io.err(`mockingbird: ${message} (see mockingbird import --har --help)\n`);
    return 2;
  };
  let v: Record<string, string | boolean | string[] | undefined>;
  try {
    v = parseArgs({
      args: argv,
      options: {
        har: { type: 'string' },
        endpoint: { type: 'string' },
        preview: { type: 'boolean' },
        header: { type: 'string', multiple: true },
        server: { type: 'string' },
        'api-key': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values;
  } catch (err) {
    return usage(err instanceof Error ? err.message : String(err));
  }
  if (v['help'] === true) {
    io.out(IMPORT_HAR_USAGE);
    return 0;
  }
  const file = v['har'];
  const endpoint = v['endpoint'];
  if (typeof file !== 'string' || file === '') return usage('import --har needs a FILE');
  if (typeof endpoint !== 'string') return usage('import --har needs --endpoint NAME');
  const problem = endpointNameProblem(endpoint);
  if (problem) return usage(`--endpoint: ${problem}`);
  const server = (v['server'] as string | undefined) ?? io.env['MOCKINGBIRD_URL'] ?? 'http://localhost:8080';
  try {
    if (!/^https?:$/.test(new URL(server).protocol)) throw new Error();
  } catch {
    return usage(`--server must be an http:// or https:// URL, got "${server}"`);
  }
  const apiKey = (v['api-key'] as string | undefined) ?? io.env['MOCKINGBIRD_API_KEY'];
  if (!apiKey) return usage('import needs an API key: --api-key KEY or MOCKINGBIRD_API_KEY');

  let har: unknown;
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new Error('not a regular file');
    if (info.size > READ_LIMIT) throw new Error(`larger than ${READ_LIMIT} bytes`);
    har = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    io.err(
      `mockingbird: cannot read ${file} as a HAR: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    return 1;
  }
  const preview = v['preview'] === true;
  const headers = (v['header'] as string[] | undefined) ?? [];
  try {
    const client = new Mockingbird({ baseUrl: server, apiKey });
    const r = await client.endpoint(endpoint).importHar(har, { preview, headers });
    for (const rule of r.rules) {
      const path = rule.conditions.find((c) => c.type === 'path');
      io.out(`${preview ? 'would create' : 'created'}: ${rule.method} ${String(path?.value ?? '')}\n`);
    }
    for (const s of r.skipped) io.out(`skipped entry ${s.index}: ${s.reason}\n`);
    const count = preview ? r.rules.length : r.created;
    io.err(
      `${preview ? 'Preview: would create' : 'Created'} ${count} rule(s) on "${endpoint}" at ${server}; ` +
        `skipped ${r.skipped.length} entr${r.skipped.length === 1 ? 'y' : 'ies'}\n`,
    );
    return 0;
  } catch (err) {
    const why =
      err instanceof MockingbirdError
        ? err.message
        : err instanceof Error
          ? `${err.message}${err.cause instanceof Error ? ` (${err.cause.message})` : ''}`
          : String(err);
    io.err(`mockingbird: import --har into ${server} failed: ${why}\n`);
    return 1;
  }
}
