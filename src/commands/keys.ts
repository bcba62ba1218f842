/**
 * `mockingbird keys create|list|revoke`: API keys of a running server, through its management API (the
 * typed client), so a key made here is one that server answers to. The server is `--server`
 * (MOCKINGBIRD_URL, default http://localhost:8080) and the call is authorised by an admin key
 * (`--api-key`, MOCKINGBIRD_API_KEY). Only with an explicit `--data-dir` does the command write a
 * stopped server's SQLite database directly, and then only one that exists: a mistyped or default
 * folder never gets a new database holding a key no server knows. Every outcome says which server or
 * database it used.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Mockingbird, MockingbirdError, type KeyInfo } from '../client/index.js';
import { AppError } from '../errors.js';
import { createKey, listKeys, revokeKey } from '../api/index.js';
import { ECHO_ENDPOINT, endpointNameProblem } from '../endpoint/index.js';
import { openStore, sqliteFile, type Store } from '../store/index.js';

export const KEYS_USAGE = `Usage: mockingbird keys create [--endpoint NAME] [--server URL] [--api-key KEY]
       mockingbird keys list [--server URL] [--api-key KEY]
       mockingbird keys revoke ID [--server URL] [--api-key KEY]
       mockingbird keys create|list|revoke … --data-dir DIR   (a stopped server's database, directly)

  --server URL      the running server (MOCKINGBIRD_URL, default http://localhost:8080)
  --api-key KEY     an admin key of that server (MOCKINGBIRD_API_KEY)
  --endpoint NAME   create: a key for this endpoint only (an admin key without it)
  --data-dir DIR    write the SQLite database in DIR (mockingbird.db) instead of asking a server;
                    it must exist (a server has run there) and no server should be running on it
`;

export interface KeysIo {
  out: (text: string) => void;
  err: (text: string) => void;
  env: NodeJS.ProcessEnv;
}

/** A refusal: one line on stderr, exit 2. */
class KeysError extends Error {}

interface Target {
  /** What the outcome names: "the server at URL" or "the database FILE". */
  where: string;
  create(endpoint: string | undefined): Promise<{ id: string; key: string }>;
  list(): Promise<KeyInfo[]>;
  revoke(id: string): Promise<void>;
  close(): Promise<void>;
}

function serverTarget(server: string, apiKey: string | undefined): Target {
  try {
    if (!/^https?:$/.test(new URL(server).protocol)) throw new Error();
  } catch {
    throw new KeysError(`--server must be an http:// or https:// URL, got "${server}"`);
  }
  if (!apiKey)
    throw new KeysError(
      `keys needs an admin key of the server at ${server}: --api-key KEY or MOCKINGBIRD_API_KEY ` +
        `(the key printed at its first start); or --data-dir DIR to write a stopped server's database`,
    );
  const client = new Mockingbird({ baseUrl: server, apiKey });
  const where = `the server at ${server}`;
  const call = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      if (err instanceof MockingbirdError)
        throw new KeysError(`${where} answered ${err.status}: ${err.message}`);
      throw new KeysError(
        `no Mockingbird server answers at ${server} (${errorText(err)}): start one with \`mockingbird serve\`, ` +
          `name it with --server URL, or give --data-dir DIR to write a stopped server's database`,
      );
    }
  };
  return {
    where,
    create: (endpoint) => call(() => client.createKey(endpoint)),
    list: () => call(() => client.keys()),
    revoke: async (id) => void (await call(() => client.deleteKey(id))),
    close: async () => undefined,
  };
}

async function databaseTarget(dataDir: string): Promise<Target> {
  const file = resolve(sqliteFile(dataDir));
  if (!existsSync(file))
    throw new KeysError(
      `no database at ${file}: --data-dir names the folder a server already uses (its DATA_DIR); ` +
        `nothing was created`,
    );
  let store: Store;
  try {
    store = await openStore({ dataDir, databaseUrl: undefined });
  } catch (err) {
    throw new KeysError(`cannot open the database ${file}: ${errorText(err)}`);
  }
  return {
    where: `the database ${file}`,
    async create(endpoint) {
      if (endpoint !== undefined && endpoint !== ECHO_ENDPOINT && !(await store.getEndpoint(endpoint)))
        throw new KeysError(`endpoint "${endpoint}" does not exist in the database ${file}`);
      return createKey(store, endpoint ?? null);
    },
    list: () => listKeys(store),
    async revoke(id) {
      try {
        await revokeKey(store, id);
      } catch (err) {
        if (err instanceof AppError) throw new KeysError(`the database ${file}: ${err.message}`);
        throw err;
      }
    },
    close: () => store.close(),
  };
}

const errorText = (err: unknown): string =>
  err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);

/** Runs `mockingbird keys …` with `argv` (after `keys`); answers the exit code. */
export async function keysCommand(argv: string[], io: KeysIo): Promise<number> {
  let target: Target | undefined;
  try {
    let parsed;
    try {
      parsed = parseArgs({
        args: argv,
        allowPositionals: true,
        strict: true,
        options: {
          endpoint: { type: 'string' },
          server: { type: 'string' },
          'api-key': { type: 'string' },
          'data-dir': { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
      });
    } catch (err) {
      throw new KeysError(`${errorText(err)} (see mockingbird keys --help)`);
    }
    const v = parsed.values;
    const [sub, ...rest] = parsed.positionals;
    if (v.help === true || sub === undefined) {
      io.out(KEYS_USAGE);
      return sub === undefined && v.help !== true ? 2 : 0;
    }
    if (!['create', 'list', 'revoke'].includes(sub))
      throw new KeysError(
        `unknown keys command "${sub}": create, list or revoke (see mockingbird keys --help)`,
      );
    const endpoint = v.endpoint;
    if (endpoint !== undefined) {
      if (sub !== 'create') throw new KeysError('--endpoint goes with keys create');
      const problem = endpointNameProblem(endpoint);
      if (problem && endpoint !== ECHO_ENDPOINT) throw new KeysError(`--endpoint: ${problem}`);
    }
    if (sub === 'revoke' ? rest.length !== 1 : rest.length !== 0)
      throw new KeysError(
        sub === 'revoke' ? 'keys revoke needs the key id (see keys list)' : `unexpected "${rest.join(' ')}"`,
      );
    target =
      v['data-dir'] !== undefined
        ? await databaseTarget(v['data-dir'])
        : serverTarget(
            v.server ?? io.env['MOCKINGBIRD_URL'] ?? 'http://localhost:8080',
            v['api-key'] ?? io.env['MOCKINGBIRD_API_KEY'],
          );
    if (sub === 'create') {
      const k = await target.create(endpoint);
      io.out(`${k.key}\n`);
      io.err(
        `Created ${endpoint ? `a key for endpoint "${endpoint}"` : 'an admin key'} (id ${k.id}) in ${target.where}. ` +
          `It is shown only now.\n`,
      );
    } else if (sub === 'list') {
      const keys = await target.list();
      for (const k of keys)
        io.out(`${k.id}  ${k.endpoint === null ? 'admin' : `endpoint ${k.endpoint}`}  ${k.createdAt}\n`);
      io.err(`${keys.length} key${keys.length === 1 ? '' : 's'} in ${target.where}\n`);
    } else {
      await target.revoke(rest[0]!);
      io.err(`Revoked key ${rest[0]} in ${target.where}\n`);
    }
    return 0;
  } catch (err) {
    if (!(err instanceof KeysError)) throw err;
    io.err(`mockingbird: ${err.message}\n`);
    return 2;
  } finally {
    await target?.close();
  }
}
