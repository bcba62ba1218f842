/**
 * The management API as the dashboard uses it: errors turned into ApiError with the API's own message
 * and details, and the live event stream.
 *
 * The key never stays in script-readable storage: at login it is sent once, to POST /api/v2/session,
 * which answers with an HttpOnly, SameSite=Strict cookie scoped to /api; every later request (fetch,
 * downloads, the EventSource) is authenticated by that cookie, which no script can read. Session
 * storage holds only the fact that this tab logged in (no secret), so each tab still logs in by itself.
 */
const LOGGED_IN = 'mockingbird.loggedIn';

export function loggedIn(): boolean {
  return sessionStorage.getItem(LOGGED_IN) === '1';
}

/** Trades `key` for the session cookie; throws ApiError (401 for a wrong key). */
export async function startSession(key: string): Promise<void> {
  await request('POST', '/session', undefined, key);
  sessionStorage.setItem(LOGGED_IN, '1');
}

/** Ends the session: the cookie is cleared by the server, the tab's flag here. */
export function endSession(): void {
  sessionStorage.removeItem(LOGGED_IN);
  void fetch('/api/v2/session', { method: 'DELETE' }).catch(() => undefined);
}

export interface ErrorDetail {
  path?: string;
  message: string;
  received?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }
}

/** Called when the key is refused (401), so that the app can return to the login screen. */
let onUnauthorized: () => void = () => undefined;
export function setUnauthorizedHandler(fn: () => void): void {
  onUnauthorized = fn;
}

interface ErrorBody {
  error?: { code?: string; message?: string; details?: ErrorDetail[] };
}

/** One API call, by the session cookie (or by `key`, sent in Authorization: the login's only use of it). */
export async function request<T>(method: string, path: string, body?: unknown, key?: string): Promise<T> {
  const headers: Record<string, string> = {};
  if (key) headers['authorization'] = `Bearer ${key}`;
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    payload = JSON.stringify(body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch('/api/v2' + path, { method, headers, body: payload ?? null });
  const text = await res.text();
  let data: unknown = undefined;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  if (!res.ok) {
    const err = (data as ErrorBody | undefined)?.error;
    if (res.status === 401) onUnauthorized();
    throw new ApiError(
      res.status,
      err?.code ?? 'http_' + res.status,
      err?.message ?? `HTTP ${res.status}`,
      err?.details ?? [],
    );
  }
  return data as T;
}

export const api = {
  get: <T>(path: string) => request<T>('GET', path),
  post: <T>(path: string, body?: unknown) => request<T>('POST', path, body ?? {}),
  put: <T>(path: string, body: unknown) => request<T>('PUT', path, body),
  patch: <T>(path: string, body: unknown) => request<T>('PATCH', path, body),
  del: <T>(path: string) => request<T>('DELETE', path),
};

/** Fetches a file (by the session cookie) and saves it under `name`. */
export async function download(path: string, name: string): Promise<void> {
  const res = await fetch('/api/v2' + path);
  if (!res.ok) throw new ApiError(res.status, 'download_failed', `Download failed: HTTP ${res.status}`);
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export const enc = encodeURIComponent;

/**
 * Opens the endpoint's Server-Sent-Events stream; `handlers` by event name. Returns a close function.
 * `reset` is the server's "reload what you show": the events missed while away are no longer known
 * (docs/api.md). The browser reconnects by itself with Last-Event-ID; a stream the server refused
 * (a draining instance's 503) is opened afresh after a pause, and `reset` runs once it is open,
 * since a fresh stream resumes nothing.
 */
export function openEvents(ep: string, handlers: Record<string, (data: unknown) => void>): () => void {
  if (!loggedIn()) return () => undefined;
  let source: EventSource | undefined;
  let timer: number | undefined;
  let closed = false;
  const open = (again: boolean): void => {
    // Same origin: the EventSource sends the session cookie, no key in the URL.
    const s = new EventSource(`/api/v2/endpoints/${enc(ep)}/events`);
    source = s;
    for (const [name, fn] of Object.entries(handlers)) {
      s.addEventListener(name, (ev: MessageEvent<string>) => {
        try {
          fn(JSON.parse(ev.data));
        } catch {
          fn(undefined);
        }
      });
    }
    if (again) s.addEventListener('open', () => handlers.reset?.(undefined), { once: true });
    s.addEventListener('error', () => {
      if (closed || s.readyState !== EventSource.CLOSED) return;
      timer = window.setTimeout(() => open(true), 3000);
    });
  };
  open(false);
  return () => {
    closed = true;
    window.clearTimeout(timer);
    source?.close();
  };
}
