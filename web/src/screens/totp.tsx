/**
 * The TOTP generator (/2fa, no login): register a secret by form or by a QR image (drop, choose or
 * paste), then watch each code count down to `expiresAt` and refresh itself. Registered ids are kept
 * in this tab's session storage, so a reload keeps them; `/2fa#<id>` opens an id.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { CopyButton, ErrorBox } from '../ui';

const API = '/2FA/TOTP/';
const STORE = 'mockingbird.totp';

interface Code {
  id: string;
  otp: string;
  expiresAt: string;
  issuer?: string;
  name?: string;
}
interface Account {
  id: string;
  label: string;
  otp: string;
  expiresAt: number;
  period: number;
  retryAt: number;
  dead?: string;
}

class TotpError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly retryAfter: number,
  ) {
    super(message);
  }
}

async function call(method: string, url: string, body?: unknown): Promise<Code & { data?: Code[] }> {
  const init: RequestInit = { method };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { 'content-type': 'application/json' };
  }
  const res = await fetch(url, init);
  const data = (await res.json().catch(() => null)) as
    (Code & { data?: Code[]; error?: { message?: string } }) | null;
  if (!res.ok)
    throw new TotpError(
      data?.error?.message ?? `HTTP ${res.status}`,
      res.status,
      Number(res.headers.get('retry-after')) || 0,
    );
  if (!data) throw new TotpError('Empty answer', res.status, 0);
  return data;
}

const label = (issuer?: string, name?: string) => [issuer, name].filter(Boolean).join(' · ') || 'TOTP';

function saved(): { id: string; label: string; period: number }[] {
  try {
    const v = JSON.parse(sessionStorage.getItem(STORE) ?? '[]') as unknown;
    return Array.isArray(v) ? (v as { id: string; label: string; period: number }[]) : [];
  } catch {
    return [];
  }
}

export function Totp() {
  const [accounts, setAccounts] = useState<Account[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [now, setNow] = useState(Date.now());
  const [dropText, setDropText] = useState<string | null>(null);
  const [over, setOver] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const busy = useRef(new Set<string>());
  // Read before the effect below first writes the (still empty) list back.
  const restored = useRef(saved());

  const add = (c: Code, name: string, period = 30) =>
    setAccounts((old) => [
      { id: c.id, label: name, otp: c.otp, expiresAt: Date.parse(c.expiresAt), period, retryAt: 0 },
      ...old.filter((a) => a.id !== c.id),
    ]);

  // Keep the list across reloads (ids and labels only; codes are asked for again).
  useEffect(() => {
    sessionStorage.setItem(
      STORE,
      JSON.stringify(accounts.map((a) => ({ id: a.id, label: a.label, period: a.period }))),
    );
  }, [accounts]);

  const open = async (id: string, name: string, period?: number) => {
    id = id.trim();
    if (!id) return;
    try {
      add(await call('GET', API + encodeURIComponent(id)), name, period);
      setError(null);
    } catch (e) {
      setError(e);
    }
  };

  useEffect(() => {
    const restore = async () => {
      for (const a of restored.current.slice().reverse()) await open(a.id, a.label, a.period);
      if (location.hash.length > 1) await open(decodeURIComponent(location.hash.slice(1)), 'opened by id');
    };
    void restore();
    const t = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(t);
  }, []);

  // Expired codes are asked for again; the same step again means this clock runs ahead: retry in a second.
  useEffect(() => {
    for (const a of accounts) {
      if (a.dead || a.expiresAt > now || now < a.retryAt || busy.current.has(a.id)) continue;
      busy.current.add(a.id);
      call('GET', API + encodeURIComponent(a.id))
        .then((r) => {
          const next = Date.parse(r.expiresAt);
          setAccounts((old) =>
            old.map((x) =>
              x.id !== a.id
                ? x
                : {
                    ...x,
                    otp: r.otp,
                    period:
                      next > x.expiresAt && next - x.expiresAt <= 300_000
                        ? (next - x.expiresAt) / 1000
                        : x.period,
                    retryAt: next <= x.expiresAt ? Date.now() + 1000 : 0,
                    expiresAt: next,
                  },
            ),
          );
        })
        .catch((e: unknown) => {
          const err = e instanceof TotpError ? e : new TotpError(String(e), 0, 0);
          setAccounts((old) =>
            old.map((x) =>
              x.id !== a.id
                ? x
                : err.status === 404
                  ? { ...x, dead: 'unknown id (never registered, or purged)' }
                  : { ...x, retryAt: Date.now() + 1000 * (err.retryAfter || 5) },
            ),
          );
          if (err.status !== 404) setError(err);
        })
        .finally(() => busy.current.delete(a.id));
    }
  }, [now, accounts]);

  const register = async (ev: Event) => {
    ev.preventDefault();
    const f = ev.currentTarget as HTMLFormElement;
    const v = (n: string) => (f.elements.namedItem(n) as HTMLInputElement).value;
    const body: Record<string, unknown> = {
      secret: v('secret'),
      algorithm: v('algorithm'),
      digits: Number(v('digits')),
      period: Number(v('period')),
    };
    if (v('issuer').trim()) body['issuer'] = v('issuer').trim();
    try {
      add(await call('POST', API, body), label(body['issuer'] as string | undefined), Number(v('period')));
      (f.elements.namedItem('secret') as HTMLInputElement).value = '';
      setError(null);
    } catch (e) {
      setError(e);
    }
  };

  const upload = async (file: File | null | undefined) => {
    if (!file) return;
    const fd = new FormData();
    fd.append('qrcode', file, file.name || 'qrcode');
    setDropText(`Reading ${file.name || 'image'}…`);
    try {
      const r = await call('POST', API, fd);
      // Labelled by what the QR code holds (issuer and account), not by the file's name.
      if (r.data) for (const x of r.data.slice().reverse()) add(x, label(x.issuer, x.name));
      else add(r, label(r.issuer, r.name));
      setError(null);
    } catch (e) {
      setError(e);
    } finally {
      setDropText(null);
      if (fileInput.current) fileInput.current.value = '';
    }
  };

  useEffect(() => {
    const paste = (ev: ClipboardEvent) => {
      const item = [...(ev.clipboardData?.items ?? [])].find((i) => i.type.startsWith('image/'));
      if (item) void upload(item.getAsFile());
    };
    document.addEventListener('paste', paste);
    return () => document.removeEventListener('paste', paste);
  }, []);

  return (
    <div class="totp">
      <h1>TOTP generator</h1>
      <p class="muted">
        Register a TOTP secret, then read its current one-time password here or from{' '}
        <code>GET /2FA/TOTP/{'{id}'}</code> in your tests. No login needed.
      </p>
      <ErrorBox error={error} />
      {accounts.length > 0 && (
        <section class="card" data-testid="codes">
          <h2>Codes</h2>
          {accounts.map((a) => {
            const left = Math.max(0, a.expiresAt - now);
            return (
              <div class="account" key={a.id} data-testid="account" data-id={a.id}>
                <div>
                  <div class="muted" data-testid="account-label">
                    {a.label}
                  </div>
                  <div class="otp" data-testid="otp">
                    {a.otp}
                  </div>
                  <div class="muted small" data-testid="countdown">
                    {a.dead ?? `expires in ${Math.ceil(left / 1000)} s`}
                  </div>
                  <div class="mono small muted">id {a.id}</div>
                </div>
                <div class="row">
                  <CopyButton text={a.otp} label="copy code" />
                  <CopyButton text={a.id} label="copy id" />
                  <button
                    type="button"
                    class="plain"
                    onClick={() => setAccounts((old) => old.filter((x) => x.id !== a.id))}
                  >
                    remove
                  </button>
                </div>
                <progress class="bar" max={1} value={Math.min(1, left / (a.period * 1000))} />
              </div>
            );
          })}
        </section>
      )}
      <section class="card">
        <h2>Register a secret</h2>
        <form class="grid" autocomplete="off" onSubmit={register}>
          <label>
            Issuer
            <input name="issuer" maxLength={200} placeholder="ACME" />
          </label>
          <label class="wide">
            Secret (base32)
            <input name="secret" required spellcheck={false} placeholder="JBSWY3DPEHPK3PXP" />
          </label>
          <label>
            Algorithm
            <select name="algorithm">
              <option>SHA1</option>
              <option>SHA256</option>
              <option>SHA512</option>
            </select>
          </label>
          <label>
            Digits
            <input name="digits" type="number" min={6} max={10} value="6" required />
          </label>
          <label>
            Period (s)
            <input name="period" type="number" min={15} max={300} value="30" required />
          </label>
          <div class="wide">
            <button type="submit">Register</button>
          </div>
        </form>
      </section>
      <section class="card">
        <h2>Import a QR code</h2>
        <div
          id="drop"
          class={over ? 'drop over' : 'drop'}
          role="button"
          tabIndex={0}
          onClick={() => fileInput.current?.click()}
          onKeyDown={(ev) => {
            if (ev.key === 'Enter' || ev.key === ' ') fileInput.current?.click();
          }}
          onDragOver={(ev) => {
            ev.preventDefault();
            setOver(true);
          }}
          onDragLeave={() => setOver(false)}
          onDrop={(ev) => {
            ev.preventDefault();
            setOver(false);
            void upload(ev.dataTransfer?.files[0]);
          }}
        >
          {dropText ?? 'Drop a QR-code screenshot here, click to choose one, or paste it (Ctrl+V).'}
        </div>
        <input
          ref={fileInput}
          type="file"
          name="qrcode"
          accept="image/png,image/jpeg,image/gif,image/webp"
          hidden
          onChange={(e) => void upload(e.currentTarget.files?.[0])}
        />
      </section>
      <section class="card">
        <h2>Open an existing id</h2>
        <form
          class="row"
          onSubmit={(ev) => {
            ev.preventDefault();
            const input = ev.currentTarget.elements.namedItem('totpId') as HTMLInputElement;
            void open(input.value, 'opened by id');
            input.value = '';
          }}
        >
          <input
            class="grow"
            name="totpId"
            spellcheck={false}
            placeholder="2f1e9c4a-7b3d-4e8f-9a6b-1c2d3e4f5a6b"
            aria-label="Id"
          />
          <button type="submit">Open</button>
        </form>
      </section>
    </div>
  );
}
