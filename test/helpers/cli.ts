/** Running the real `mockingbird` command (through tsx) in a child process. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
/** tsx's loader by its full URL, so that a child started in another folder finds it. */
const TSX = import.meta.resolve('tsx');

/** The environment for a child: the parent's, without settings that would switch its storage. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of [
    'DATABASE_URL',
    'REDIS_URL',
    'PORT',
    'HOST',
    'DATA_DIR',
    'MOCKINGBIRD_API_KEY',
    'LOG_LEVEL',
    'BASE_DOMAIN',
    'SECRET_KEY',
    'NODE_TEST_CONTEXT',
  ])
    delete env[k];
  return { ...env, ...extra };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to completion (with a time limit), in `cwd` when given. */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 20_000,
  cwd?: string,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, CLI, ...args], {
      env: childEnv(env),
      ...(cwd !== undefined ? { cwd } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`CLI did not exit in ${timeoutMs} ms; stdout: ${stdout} stderr: ${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface Served {
  child: ChildProcess;
  port: number;
  stdout: () => string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/**
 * Starts `mockingbird serve` on port 0 (or `port`) and waits for its listening line; `node` is the
 * Node.js binary that runs it (this process's by default).
 */
export function serveCli(
  env: Record<string, string>,
  timeoutMs = 20_000,
  logLevel = 'warn',
  port = 0,
  node = process.execPath,
): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      node,
      ['--import', TSX, CLI, 'serve', '--port', String(port), '--log-level', logLevel],
      {
        env: childEnv(env),
      },
    );
    let out = '';
    let err = '';
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('server did not start: ' + out + err));
    }, timeoutMs);
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on https?:\/\/[^:]+:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]), stdout: () => out, exited });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${out}${err}`));
    });
  });
}
