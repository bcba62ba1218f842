/**
 * `--watch`: the configuration file is loaded again when it changes (debounced, one load at a time).
 * A file that does not load is logged with its lines and fields and the running configuration stays;
 * each endpoint is changed as the API changes it (rules in one transaction), so requests are answered
 * throughout, by the old rules or by the new ones.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { ConfigFileDeps } from './deps.js';
import { ConfigFileError } from './source.js';

export interface ConfigWatcher {
  /** Settles when the load under way (if any) has ended. */
  idle(): Promise<void>;
  close(): void;
}

export interface WatchOptions {
  debounceMs?: number;
  /** Called after each load attempt: undefined when it applied, else the error. */
  onLoad?: (err: unknown) => void;
}

/**
 * Watches the file's folder (editors often replace a file instead of writing it, which a watch of the
 * file itself would not follow) and loads the file with `load` after each change.
 */
export function watchConfig(
  ctx: ConfigFileDeps,
  file: string,
  load: () => Promise<void>,
  opts: WatchOptions = {},
): ConfigWatcher {
  const full = resolve(file);
  const name = basename(full);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let again = false;
  let loading = false;

  const run = (): void => {
    if (loading) {
      again = true;
      return;
    }
    loading = true;
    running = load()
      .then(
        () => {
          ctx.log.info({ file }, 'configuration file reloaded');
          opts.onLoad?.(undefined);
        },
        (err: unknown) => {
          const message = err instanceof Error ? err.message : String(err);
          ctx.log.error(
            { file, problems: err instanceof ConfigFileError ? err.problems : undefined },
            `configuration file not reloaded (the running configuration stays): ${message}`,
          );
          opts.onLoad?.(err);
        },
      )
      .finally(() => {
        loading = false;
        if (again) {
          again = false;
          run();
        }
      });
  };

  const watcher: FSWatcher = watch(dirname(full), (_event, changed) => {
    if (changed !== null && changed !== name) return;
    clearTimeout(timer);
    timer = setTimeout(run, opts.debounceMs ?? 200);
  });
  watcher.on('error', (err) => ctx.log.error({ err, file }, 'configuration file watch stopped'));
  return {
    idle: () => running,
    close() {
      clearTimeout(timer);
      watcher.close();
    },
  };
}
