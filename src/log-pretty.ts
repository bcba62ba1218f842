/**
 * Readable log lines for a person at a terminal (LOG_FORMAT=pretty, or `auto` on a TTY): each of pino's
 * JSON lines becomes one line of text, the request lines as `time METHOD status host+url ms`, the others
 * as `time LEVEL message key=value…`, coloured by status and level on a terminal unless NO_COLOR is set. Machines
 * (a pipe, a file, a log collector) keep getting JSON: `auto` checks whether stdout is a terminal.
 */
import { styleText } from 'node:util';

type Style = Parameters<typeof styleText>[0];

const LEVELS: Record<number, [string, Style]> = {
  10: ['TRACE', 'gray'],
  20: ['DEBUG', 'gray'],
  30: ['INFO ', 'green'],
  40: ['WARN ', 'yellow'],
  50: ['ERROR', 'red'],
  60: ['FATAL', 'red'],
};
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'msg']);

const statusStyle = (status: number): Style =>
  status >= 500 ? 'red' : status >= 400 ? 'yellow' : status >= 300 ? 'cyan' : 'green';

const clock = (ms: unknown): string =>
  typeof ms === 'number' ? new Date(ms).toISOString().slice(11, 23) : '--:--:--.---';

const text = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

const valueText = (v: unknown): string => {
  if (typeof v === 'string') return /[\s"=]/.test(v) ? JSON.stringify(v) : v;
  if (v !== null && typeof v === 'object' && typeof (v as { message?: unknown }).message === 'string') {
    const e = v as { type?: unknown; message: string };
    return JSON.stringify(typeof e.type === 'string' ? `${e.type}: ${e.message}` : e.message);
  }
  return JSON.stringify(v) ?? String(v);
};

/** One pino JSON line as text (a line that is not JSON comes back as it was). */
export function prettyLine(json: string, colour: boolean): string {
  const paint = (style: Style, text: string): string =>
    colour ? styleText(style, text, { validateStream: false }) : text;
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = paint('gray', clock(o['time']));
  if (o['msg'] === 'request' && typeof o['status'] === 'number') {
    const status = o['status'];
    const ms = typeof o['ms'] === 'number' ? `${o['ms'].toFixed(2)} ms` : '';
    const where = `${typeof o['host'] === 'string' ? o['host'] : ''}${text(o['url'])}`;
    return `${time} ${paint('bold', text(o['method']).padEnd(6))} ${paint(statusStyle(status), String(status))} ${where} ${paint('gray', ms)}`;
  }
  const [label, style] = LEVELS[o['level'] as number] ?? ['LOG  ', 'white'];
  const fields = Object.entries(o)
    .filter(([k]) => !HIDDEN.has(k))
    .map(([k, v]) => `${paint('gray', `${k}=`)}${valueText(v)}`);
  return [time, paint(style, label), text(o['msg']), ...fields].join(' ').trimEnd();
}

/** An output that takes pino's JSON lines and writes them as pretty lines to `out`. */
export function prettyOutput(
  out: { write(s: string): unknown; flushSync?(): void },
  colour = process.stdout.isTTY === true && (process.env['NO_COLOR'] ?? '') === '',
): { write(s: string): unknown; flushSync(): void } {
  return {
    write(text: string) {
      let lines = '';
      for (const line of text.split('\n')) if (line !== '') lines += prettyLine(line, colour) + '\n';
      return out.write(lines);
    },
    flushSync: () => out.flushSync?.(),
  };
}
