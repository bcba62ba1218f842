/**
 * Starting a worker thread from a module of src/, both from the compiled JavaScript (`dist/`) and
 * from the TypeScript sources under tsx (the tests, `npm run bench:*`), where the worker needs tsx's
 * loader too. Used by the history writer (store/) and the QR decoder (totp/).
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts the worker module `name` (without extension) that lies beside the module `from`
 * (its `import.meta.url`), with `options` (workerData, resource limits …).
 */
export function startWorker(from: string, name: string, options: WorkerOptions = {}): Worker {
  const fromSource = import.meta.url.endsWith('.ts');
  const url = new URL(`./${name}.${fromSource ? 'ts' : 'js'}`, from);
  if (!fromSource) return new Worker(url, options);
  const code = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(code, { ...options, eval: true });
}
