/**
 * An event stream read over a real socket, as EventSource reads it: `id:`, `event:`, `data:` and
 * `retry:` fields per block, comments skipped. `next` waits for the next event of a name (after those
 * already taken), `text()` is everything received.
 */
import http from 'node:http';

export interface SseMessage {
  id: string | undefined;
  event: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON read field by field in assertions
  data: any;
}

export interface SseClient {
  status: number;
  text(): string;
  /** Every event received so far, in order. */
  events: SseMessage[];
  /** The id of the last event that had one (what EventSource sends back as Last-Event-ID). */
  lastId(): string | undefined;
  /** Waits for an event received after the ones already taken by `next`, of `name` if given. */
  next(name?: string, timeoutMs?: number): Promise<SseMessage>;
  ended: Promise<void>;
  close(): void;
}

export function openStream(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      let buf = '';
      let all = '';
      let taken = 0;
      let last: string | undefined;
      const events: SseMessage[] = [];
      const waiters: (() => void)[] = [];
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        all += chunk;
        buf += chunk;
        let i;
        while ((i = buf.indexOf('\n\n')) !== -1) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const ev = /^event: (.*)$/m.exec(block);
          const data = /^data: (.*)$/m.exec(block);
          const id = /^id: (.*)$/m.exec(block)?.[1];
          if (id !== undefined) last = id;
          if (ev && data) events.push({ id, event: ev[1]!, data: JSON.parse(data[1]!) });
        }
        for (const w of waiters.splice(0)) w();
      });
      const ended = new Promise<void>((r) => res.on('close', () => r()));
      resolve({
        status: res.statusCode ?? 0,
        events,
        text: () => all,
        lastId: () => last,
        ended,
        close: () => req.destroy(),
        next(name, timeoutMs = 5000) {
          return new Promise((ok, fail) => {
            const timer = setTimeout(
              () =>
                fail(
                  new Error(`no ${name ?? 'event'} within ${timeoutMs} ms; got ${JSON.stringify(events)}`),
                ),
              timeoutMs,
            );
            const check = (): void => {
              while (taken < events.length) {
                const e = events[taken++]!;
                if (name === undefined || e.event === name) {
                  clearTimeout(timer);
                  ok(e);
                  return;
                }
              }
              waiters.push(check);
            };
            check();
          });
        },
      });
    });
    req.on('error', reject);
  });
}
