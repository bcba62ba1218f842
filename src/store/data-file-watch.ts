/**
 * The embedded database's file, watched: deleted (or replaced) while the service runs, SQLite goes on
 * writing to the open, unlinked file, and everything is gone at the next start without a word. The
 * watch cannot save that data; it says so at once, loudly, so that an operator can act before the
 * restart (copy `/proc/<pid>/fd/…`, or stop writing).
 */
import { statSync } from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import { startJob, type Job } from '../jobs/index.js';

function inode(file: string): number | undefined {
  try {
    return statSync(file).ino;
  } catch {
    return undefined;
  }
}

export function watchDataFile(
  file: string,
  log: Pick<FastifyBaseLogger, 'error' | 'info'>,
  intervalMs = 5000,
): Job {
  const opened = inode(file);
  let reported = false;
  return startJob({
    name: 'data file watch',
    intervalMs,
    log,
    run: () => {
      if (reported || opened === undefined) return Promise.resolve();
      const now = inode(file);
      if (now === opened) return Promise.resolve();
      reported = true;
      log.error(
        { file, replaced: now !== undefined },
        `the database file ${file} was ${now === undefined ? 'deleted' : 'replaced'} while the service runs: ` +
          'what it holds and everything written from now on is lost at the next start; ' +
          'stop the service and restore the file, or copy it from /proc/<pid>/fd first',
      );
      return Promise.resolve();
    },
  });
}
