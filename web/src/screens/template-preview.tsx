/**
 * The rule editor's template preview: renders the body being edited against a recorded request of
 * the endpoint (or a blank GET /), through the API, and says whether that request matches the rule.
 * Nothing is answered or recorded; state helpers see no state. Output is shown as text.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, enc } from '../api';
import { entryDate, type Entry, type Page } from '../types';
import { ErrorBox, formatTime } from '../ui';

interface PreviewResult {
  output?: string;
  error?: string;
  problems: string[];
  matched?: boolean;
  pathParams: Record<string, string>;
}

export function TemplatePreview(props: { ep: string; template: string; rule: Record<string, unknown> }) {
  const [recent, setRecent] = useState<Entry[]>([]);
  const [requestId, setRequestId] = useState('');
  const [result, setResult] = useState<PreviewResult | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api
      .get<Page<Entry>>(`/endpoints/${enc(props.ep)}/requests?limit=20`)
      .then((page) => {
        setRecent(page.data);
        if (page.data[0]) setRequestId(page.data[0].id);
      })
      .catch(setError);
  }, [props.ep]);

  const render = async () => {
    setBusy(true);
    setError(null);
    try {
      setResult(
        await api.post<PreviewResult>(`/endpoints/${enc(props.ep)}/templates/preview`, {
          template: props.template,
          ...(requestId ? { requestId } : {}),
          rule: props.rule,
        }),
      );
    } catch (e) {
      setResult(null);
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <fieldset class="stack" data-testid="template-preview">
      <legend>Preview</legend>
      <div class="row">
        <label class="grow">
          Against{' '}
          <select
            name="previewRequest"
            value={requestId}
            onChange={(e) => setRequestId(e.currentTarget.value)}
          >
            <option value="">a blank GET /</option>
            {recent.map((e) => (
              <option key={e.id} value={e.id}>
                {`${formatTime(entryDate(e))} ${e.method} ${e.path}`}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => void render()} disabled={busy} data-testid="render-preview">
          Render
        </button>
      </div>
      <ErrorBox error={error} />
      {result && (
        <div class="stack" data-testid="preview-result">
          {result.matched !== undefined && (
            <p class="small" data-testid="preview-matched">
              {result.matched
                ? 'This request matches the rule.'
                : 'This request does not match the rule (path parameters are empty).'}
            </p>
          )}
          {result.error !== undefined ? (
            <p class="error">The template cannot be rendered: {result.error}</p>
          ) : (
            <pre class="code" data-testid="preview-output">
              {result.output}
            </pre>
          )}
          {result.problems.length > 0 && (
            <ul class="small muted">
              {result.problems.map((p, i) => (
                <li key={i}>{p}</li>
              ))}
            </ul>
          )}
        </div>
      )}
    </fieldset>
  );
}
