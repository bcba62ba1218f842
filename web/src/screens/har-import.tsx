/**
 * "Import HAR" on the rules screen: a .har file picked here is sent to POST …/import/har in preview
 * mode first, which answers the rules it would append and the entries it would skip with why (a
 * duplicate of an existing rule or of an earlier entry, a failed request, a binary body); Import then
 * sends the same document for real. The file is read in the browser; nothing is kept after the import.
 */
import { useState } from 'preact/hooks';
import { api, enc } from '../api';
import type { Rule } from '../types';
import { ErrorBox } from '../ui';

interface Imported {
  created: number;
  skipped: { index: number; reason: string }[];
  rules: Omit<Rule, 'id'>[];
}

/** Rules and skipped entries listed at most (a HAR may hold 10,000 entries); the counts say the rest. */
const SHOWN = 100;

const more = (n: number) => (n > SHOWN ? <li class="muted">… and {n - SHOWN} more</li> : null);

const pathOf = (r: Omit<Rule, 'id'>): string => {
  const path = r.conditions.find((c) => c.type === 'path')?.value ?? '';
  const query = r.conditions
    .filter((c) => c.type === 'query_param')
    .map((c) => `${c.key ?? ''}=${c.value ?? ''}`)
    .join('&');
  return query ? `${path}?${query}` : path;
};

export function HarImport(props: { ep: string; onImported: () => void; onClose: () => void }) {
  const [doc, setDoc] = useState<unknown>(null);
  const [headers, setHeaders] = useState('');
  const [preview, setPreview] = useState<Imported | null>(null);
  const [done, setDone] = useState<Imported | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const send = async (har: unknown, dryRun: boolean): Promise<Imported> => {
    const q = new URLSearchParams();
    if (dryRun) q.set('preview', 'true');
    if (headers.trim()) q.set('headers', headers.trim());
    return api.post<Imported>(`/endpoints/${enc(props.ep)}/import/har?${q.toString()}`, har);
  };
  const run = async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const pick = (file: File | undefined) =>
    run(async () => {
      setPreview(null);
      setDone(null);
      setDoc(null);
      if (!file) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(await file.text());
      } catch (e) {
        throw new Error(`${file.name} is not JSON: ${(e as Error).message}`);
      }
      setDoc(parsed);
      setPreview(await send(parsed, true));
    });
  const refresh = () => run(async () => setPreview(await send(doc, true)));
  const commit = () =>
    run(async () => {
      setDone(await send(doc, false));
      setPreview(null);
      props.onImported();
    });

  const shown = done ?? preview;
  return (
    <section class="card stack" data-testid="har-import">
      <div class="row between">
        <h3>Import HAR</h3>
        <button type="button" class="plain" onClick={props.onClose}>
          Close
        </button>
      </div>
      <p class="muted small">
        Each entry of a HAR (a browser's network panel: "Save all as HAR") becomes a rule at the bottom that
        answers the same method, path and query with the recorded response.
      </p>
      <div class="row">
        <label>
          HAR file
          <input
            type="file"
            name="har"
            accept=".har,application/json"
            onChange={(e) => void pick(e.currentTarget.files?.[0])}
          />
        </label>
        <label class="grow">
          Request headers to match (comma-separated, optional)
          <input
            name="har-headers"
            placeholder="accept, x-env"
            value={headers}
            onInput={(e) => setHeaders(e.currentTarget.value)}
            onChange={() => doc !== null && !done && void refresh()}
          />
        </label>
      </div>
      <ErrorBox error={error} />
      {busy && <p class="muted">Reading…</p>}
      {shown && (
        <div class="stack" data-testid={done ? 'har-imported' : 'har-preview'}>
          <p>
            {done
              ? `${done.created} rule(s) created.`
              : `${preview?.rules.length ?? 0} rule(s) would be created.`}{' '}
            {shown.skipped.length > 0 && `${shown.skipped.length} entry(ies) skipped.`}
          </p>
          {!done && shown.rules.length > 0 && (
            <ol class="mono small" data-testid="har-new-rules">
              {shown.rules.slice(0, SHOWN).map((r, i) => (
                <li key={i}>
                  {r.method} {pathOf(r)} → {typeof r.action['status'] === 'number' ? r.action['status'] : 200}
                </li>
              ))}
              {more(shown.rules.length)}
            </ol>
          )}
          {shown.skipped.length > 0 && (
            <ul class="small muted" data-testid="har-skipped">
              {shown.skipped.slice(0, SHOWN).map((s) => (
                <li key={s.index}>
                  entry {s.index}: {s.reason}
                </li>
              ))}
              {more(shown.skipped.length)}
            </ul>
          )}
          {!done && (
            <div class="row">
              <button
                type="button"
                data-testid="har-confirm"
                disabled={busy || (preview?.rules.length ?? 0) === 0}
                onClick={() => void commit()}
              >
                Import {preview?.rules.length ?? 0} rule(s)
              </button>
            </div>
          )}
        </div>
      )}
    </section>
  );
}
