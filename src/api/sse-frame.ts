/** The bytes of a Server-Sent Event, made once per event whatever the number of streams it goes to. */

const frames = new WeakMap<object, Buffer>();

/**
 * `id: <id>` (when the event has one: where a reconnecting client resumes, sent back as
 * Last-Event-ID), `event: <name>` and `data: <json>`, as bytes.
 */
export function sseFrame(event: string, data: unknown, id?: string): Buffer {
  const head = id === undefined ? '' : `id: ${id}\n`;
  return Buffer.from(`${head}event: ${event}\ndata: ${JSON.stringify(data ?? null)}\n\n`, 'utf8');
}

/**
 * The frame of `e`, serialised on first use and shared by every stream it is written to (the bus
 * hands the same event object to every listener).
 */
export function eventFrame(e: { name: string; data: unknown; id?: string }): Buffer {
  let f = frames.get(e);
  if (!f) frames.set(e, (f = sseFrame(e.name, e.data, e.id)));
  return f;
}
