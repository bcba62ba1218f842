/**
 * The one runner of background jobs (history purge and retention, TOTP purge). A job runs every
 * `intervalMs`, never twice at once (a tick that finds the last run still going is skipped), and a
 * failing run is logged, not thrown: the next tick tries again. Its timers never keep the process
 * alive. `stop()` clears the timers, tells the run in flight through its AbortSignal, and waits for
 * it, so that whoever stops the jobs may then close what they use (the store). With a `lease`, a tick
 * runs only when the lease says this process may (the one instance of several that leads, SPEC §8);
 * the others skip it.
 */
import type { FastifyBaseLogger } from 'fastify';

export interface JobOptions {
  /** Names the job in its error line: `<name> failed`. */
  name: string;
  /** Time between the starts of two ticks, counted from startJob. */
  intervalMs: number;
  /** The first run, this long after startJob (0: at once); left out, the first run is at `intervalMs`. */
  firstRunMs?: number;
  /** One run. `signal` is aborted by stop(): a long run may end early. */
  run: (signal: AbortSignal) => Promise<void>;
  /**
   * Asked before each run: false skips the tick. Left out, every tick runs. It should not throw (a
   * throw is logged as the run's failure).
   */
  lease?: (() => Promise<boolean>) | undefined;
  /** `debug`, when given, hears each run start (`<name> run`). */
  log: Pick<FastifyBaseLogger, 'error'> & Partial<Pick<FastifyBaseLogger, 'debug'>>;
}

export interface Job {
  /** Clears the timers and waits for the run in flight, if any. */
  stop(): Promise<void>;
}

/** Starts a job; see the module header for its guarantees. */
export function startJob(opts: JobOptions): Job {
  const stopping = new AbortController();
  let running: Promise<void> | undefined;

  const once = async (): Promise<void> => {
    try {
      if (opts.lease && !(await opts.lease())) return;
      if (stopping.signal.aborted) return;
      opts.log.debug?.({ job: opts.name }, `${opts.name} run`);
      await opts.run(stopping.signal);
    } catch (err) {
      opts.log.error({ err }, `${opts.name} failed`);
    }
  };
  const tick = (): void => {
    if (running || stopping.signal.aborted) return;
    // Cleared in a callback, which always runs after this assignment (even if `run` throws at once).
    running = once().finally(() => (running = undefined));
  };

  const timer = setInterval(tick, opts.intervalMs);
  timer.unref();
  let first: NodeJS.Timeout | undefined;
  if (opts.firstRunMs === 0) tick();
  else if (opts.firstRunMs !== undefined) {
    first = setTimeout(tick, opts.firstRunMs);
    first.unref();
  }

  return {
    async stop() {
      stopping.abort();
      clearInterval(timer);
      clearTimeout(first);
      await running;
    },
  };
}
