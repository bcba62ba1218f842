/**
 * The `/2fa` web page (SPEC §3): register a secret by form or by a QR screenshot (drop, choose or
 * paste), then watch the current code count down to `expiresAt` and refresh itself. Plain HTML and
 * inline JS, no login, no external assets; the Content-Security-Policy allows exactly the inline
 * script and style below (by hash) and requests to this origin.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

const STYLE = `
:root { color-scheme: light dark; --fg: #1d1d1f; --muted: #6e6e73; --bg: #f5f5f7; --card: #fff; --accent: #0a66c2; --err: #b3261e; }
@media (prefers-color-scheme: dark) { :root { --fg: #f5f5f7; --muted: #a1a1a6; --bg: #111; --card: #1c1c1e; --accent: #4c9aff; --err: #ff6b5e; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 760px; margin: 0 auto; padding: 24px 16px 64px; }
h1 { font-size: 24px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 0 0 12px; }
p.lead { color: var(--muted); margin: 0 0 20px; }
section { background: var(--card); border-radius: 12px; padding: 16px; margin-bottom: 16px; box-shadow: 0 1px 3px #0002; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(140px, 1fr)); gap: 10px; }
label { display: flex; flex-direction: column; gap: 4px; font-size: 13px; color: var(--muted); }
input, select, button { font: inherit; padding: 7px 9px; border-radius: 8px; border: 1px solid #8886; background: transparent; color: var(--fg); }
button { background: var(--accent); color: #fff; border: 0; cursor: pointer; }
button.plain { background: transparent; color: var(--accent); padding: 4px 6px; }
.wide { grid-column: 1 / -1; }
#drop { border: 2px dashed #8888; border-radius: 12px; padding: 28px; text-align: center; color: var(--muted); cursor: pointer; }
#drop.over { border-color: var(--accent); color: var(--accent); }
#error { color: var(--err); min-height: 1.4em; margin: 0 0 12px; white-space: pre-wrap; }
.account { display: grid; grid-template-columns: 1fr auto; gap: 4px 12px; padding: 12px 0; border-top: 1px solid #8883; }
.account:first-of-type { border-top: 0; }
.otp { font: 600 34px/1.1 ui-monospace, monospace; letter-spacing: 3px; }
.meta, .id { color: var(--muted); font-size: 13px; } .id { font-family: ui-monospace, monospace; word-break: break-all; }
.bar { height: 4px; background: #8883; border-radius: 2px; overflow: hidden; grid-column: 1 / -1; }
.bar > div { height: 100%; background: var(--accent); transition: width .2s linear; }
.actions { display: flex; gap: 4px; align-items: start; }
`;

const SCRIPT = `
'use strict';
const API = '/2FA/TOTP/';
const accounts = new Map();
const $ = (id) => document.getElementById(id);
const errorBox = $('error');
function showError(msg) { errorBox.textContent = msg || ''; }

async function call(method, url, body, isForm) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    if (isForm) init.body = body;
    else { init.body = JSON.stringify(body); init.headers['content-type'] = 'application/json'; }
  }
  const res = await fetch(url, init);
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    const err = new Error((data && data.error && data.error.message) || ('HTTP ' + res.status));
    err.status = res.status;
    err.retryAfter = Number(res.headers.get('retry-after')) || 0;
    throw err;
  }
  return data;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function copy(text, button) {
  navigator.clipboard.writeText(text).then(() => {
    const old = button.textContent; button.textContent = 'copied'; setTimeout(() => { button.textContent = old; }, 1000);
  }, () => undefined);
}

function add(entry, issuer, name, period) {
  const a = { id: entry.id, otp: entry.otp, expiresAt: Date.parse(entry.expiresAt), period: period || 30, busy: false, retryAt: 0 };
  const row = el('div', 'account');
  row.dataset.id = a.id;
  const left = el('div');
  left.append(el('div', 'meta', [issuer, name].filter(Boolean).join(' · ') || 'TOTP'));
  a.otpEl = el('div', 'otp', a.otp);
  a.otpEl.setAttribute('data-testid', 'otp');
  left.append(a.otpEl);
  a.leftEl = el('div', 'meta', '');
  a.leftEl.setAttribute('data-testid', 'countdown');
  left.append(a.leftEl);
  left.append(el('div', 'id', 'id ' + a.id));
  const actions = el('div', 'actions');
  const cCode = el('button', 'plain', 'copy code'); cCode.type = 'button'; cCode.onclick = () => copy(a.otp, cCode);
  const cId = el('button', 'plain', 'copy id'); cId.type = 'button'; cId.onclick = () => copy(a.id, cId);
  const rm = el('button', 'plain', 'remove'); rm.type = 'button'; rm.onclick = () => { accounts.delete(a.id); row.remove(); };
  actions.append(cCode, cId, rm);
  const bar = el('div', 'bar'); a.barEl = el('div'); bar.append(a.barEl);
  row.append(left, actions, bar);
  $('accounts').prepend(row);
  $('codes').hidden = false;
  accounts.set(a.id, a);
  tick();
}

async function refresh(a) {
  a.busy = true;
  try {
    const r = await call('GET', API + encodeURIComponent(a.id));
    const next = Date.parse(r.expiresAt);
    if (next > a.expiresAt && next - a.expiresAt <= 300000) a.period = (next - a.expiresAt) / 1000;
    // The same step again means this clock runs ahead of the server's: ask again in a second.
    if (next <= a.expiresAt) a.retryAt = Date.now() + 1000;
    a.otp = r.otp; a.expiresAt = next; a.otpEl.textContent = r.otp;
    showError('');
  } catch (e) {
    if (e.status === 404) { a.leftEl.textContent = 'unknown id (never registered, or purged)'; a.dead = true; }
    else { a.retryAt = Date.now() + 1000 * (e.retryAfter || 5); showError(e.message); }
  } finally { a.busy = false; }
}

function tick() {
  const now = Date.now();
  for (const a of accounts.values()) {
    if (a.dead) continue;
    const left = Math.max(0, a.expiresAt - now);
    a.leftEl.textContent = 'expires in ' + Math.ceil(left / 1000) + ' s';
    a.barEl.style.width = Math.min(100, (left / (a.period * 1000)) * 100) + '%';
    if (left === 0 && !a.busy && now >= a.retryAt) refresh(a);
  }
}
setInterval(tick, 250);

$('form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const f = ev.target.elements;
  const body = { secret: f.secret.value, algorithm: f.algorithm.value, digits: Number(f.digits.value), period: Number(f.period.value) };
  if (f.issuer.value.trim()) body.issuer = f.issuer.value.trim();
  try {
    const r = await call('POST', API, body);
    add(r, body.issuer, '', body.period);
    f.secret.value = '';
    showError('');
  } catch (e) { showError(e.message); }
});

async function upload(file) {
  if (!file) return;
  const fd = new FormData();
  fd.append('qrcode', file, file.name || 'qrcode');
  $('drop').textContent = 'Reading ' + (file.name || 'image') + '…';
  try {
    const r = await call('POST', API, fd, true);
    if (r.data) for (const x of r.data.slice().reverse()) add(x, x.issuer, x.name);
    else add(r, '', file.name || 'QR code');
    showError('');
  } catch (e) { showError(e.message); }
  finally { $('drop').textContent = 'Drop a QR-code screenshot here, click to choose one, or paste it (Ctrl+V).'; $('file').value = ''; }
}
const drop = $('drop');
drop.addEventListener('click', () => $('file').click());
drop.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' || ev.key === ' ') $('file').click(); });
drop.addEventListener('dragover', (ev) => { ev.preventDefault(); drop.classList.add('over'); });
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (ev) => { ev.preventDefault(); drop.classList.remove('over'); upload(ev.dataTransfer.files[0]); });
$('file').addEventListener('change', (ev) => upload(ev.target.files[0]));
document.addEventListener('paste', (ev) => {
  const item = [...(ev.clipboardData ? ev.clipboardData.items : [])].find((i) => i.type.startsWith('image/'));
  if (item) upload(item.getAsFile());
});

async function openId(id) {
  id = id.trim();
  if (!id || accounts.has(id.toLowerCase())) return;
  try { const r = await call('GET', API + encodeURIComponent(id)); add(r, '', 'opened by id'); showError(''); }
  catch (e) { showError(e.message); }
}
$('open').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const input = ev.target.elements.totpId;
  openId(input.value);
  input.value = '';
});
// /2fa#<id> opens an id; the fragment never reaches the server or its logs.
if (location.hash.length > 1) openId(decodeURIComponent(location.hash.slice(1)));
`;

const HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>TOTP generator · Mockingbird</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>TOTP generator</h1>
<p class="lead">Register a TOTP secret, then read its current one-time password here or from <code>GET /2FA/TOTP/{id}</code> in your tests.</p>
<p id="error" role="alert"></p>
<section id="codes" hidden><h2>Codes</h2><div id="accounts"></div></section>
<section>
<h2>Register a secret</h2>
<form id="form" class="grid" autocomplete="off">
<label>Issuer<input name="issuer" maxlength="200" placeholder="ACME"></label>
<label class="wide">Secret (base32)<input name="secret" required spellcheck="false" placeholder="JBSWY3DPEHPK3PXP"></label>
<label>Algorithm<select name="algorithm"><option>SHA1</option><option>SHA256</option><option>SHA512</option></select></label>
<label>Digits<input name="digits" type="number" min="6" max="10" value="6" required></label>
<label>Period (s)<input name="period" type="number" min="15" max="300" value="30" required></label>
<div class="wide"><button type="submit">Register</button></div>
</form>
</section>
<section>
<h2>Import a QR code</h2>
<div id="drop" role="button" tabindex="0">Drop a QR-code screenshot here, click to choose one, or paste it (Ctrl+V).</div>
<input id="file" type="file" accept="image/png,image/jpeg,image/gif,image/webp" hidden>
</section>
<section>
<h2>Open an existing id</h2>
<form id="open" class="grid"><label class="wide">Id<input name="totpId" spellcheck="false" placeholder="2f1e9c4a-7b3d-4e8f-9a6b-1c2d3e4f5a6b"></label><div><button type="submit">Open</button></div></form>
</section>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;

const hash = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** Headers of the page: only its own inline script and style run, and it talks to this origin only. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': [
    "default-src 'none'",
    `script-src ${hash(SCRIPT)}`,
    `style-src ${hash(STYLE)}`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "form-action 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

/** Serves the page at `/2fa` (and `/2fa/`). */
export function pageRoutes(app: FastifyInstance): void {
  for (const url of ['/2fa', '/2fa/'])
    app.get(url, async (_request, reply) => reply.headers(PAGE_HEADERS).send(HTML));
}
