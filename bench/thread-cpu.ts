/**
 * CPU time of a process's threads, read from Linux's /proc/<pid>/task/<tid>/stat (user + system
 * ticks): sampled before and after a load, it says how many µs of CPU each request cost the main
 * thread and the others (the history worker, V8's compiler and collector, libuv's pool). Steadier
 * than requests a second on a shared machine, and it shows which bound a run is against: the main
 * thread cannot pass one core.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Ticks a second of /proc's stat times (USER_HZ, 100 on Linux builds alike). */
const HZ = 100;

export interface ThreadTicks {
  main: number;
  others: number;
}

/** The process's CPU ticks so far, its main thread apart; undefined where /proc is missing. */
export function threadTicks(pid: number): ThreadTicks | undefined {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  const t = { main: 0, others: 0 };
  for (const tid of tids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // a thread that ended between the listing and the read
    }
    // Fields after the command name (which may hold spaces), from the 3rd: utime is the 14th, stime the 15th.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(f[11]) + Number(f[12]);
    if (tid === String(pid)) t.main += ticks;
    else t.others += ticks;
  }
  return t;
}

/** µs of CPU a request, main thread and others, between two samples over `requests` requests. */
export function cpuPerRequest(
  before: ThreadTicks | undefined,
  after: ThreadTicks | undefined,
  requests: number,
): { main: number; others: number } | undefined {
  if (!before || !after || requests <= 0) return undefined;
  const us = (ticks: number): number => (ticks * 1e6) / HZ / requests;
  return { main: us(after.main - before.main), others: us(after.others - before.others) };
}
