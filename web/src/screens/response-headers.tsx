/** A mock action's response headers in the rule editor: a list (a name may repeat), each maybe templated. */
import type { HeaderItem } from '../types';

export function ResponseHeaders(props: { headers: HeaderItem[]; onChange: (h: HeaderItem[]) => void }) {
  const { headers, onChange } = props;
  const setHeader = (i: number, h: Partial<HeaderItem>) =>
    onChange(headers.map((old, j) => (j === i ? { ...old, ...h } : old)));
  return (
    <div class="stack">
      {headers.map((h, i) => (
        <div class="row" key={i}>
          <input
            aria-label="header name"
            placeholder="Header"
            value={h.key}
            onInput={(e) => setHeader(i, { key: e.currentTarget.value })}
          />
          <input
            class="grow"
            aria-label="header value"
            placeholder="value"
            value={h.value}
            onInput={(e) => setHeader(i, { value: e.currentTarget.value })}
          />
          <label class="inline">
            <input
              type="checkbox"
              checked={h.templated === true}
              onChange={(e) => setHeader(i, { templated: e.currentTarget.checked })}
            />{' '}
            templated
          </label>
          <button type="button" class="plain" onClick={() => onChange(headers.filter((_, j) => j !== i))}>
            ✕
          </button>
        </div>
      ))}
      <div>
        <button type="button" class="plain" onClick={() => onChange([...headers, { key: '', value: '' }])}>
          + header
        </button>
      </div>
    </div>
  );
}
