/** A body shown pretty: JSON as a foldable tree (deep levels folded), anything else as plain text. */
const MAX_TREE_CHARS = 200_000;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function Node(props: { name?: string; value: Json; depth: number }) {
  const { name, value, depth } = props;
  const label = name !== undefined ? <span class="json-key">{JSON.stringify(name)}: </span> : null;
  if (value === null || typeof value !== 'object')
    return (
      <div class="json-leaf">
        {label}
        <span class={`json-${value === null ? 'null' : typeof value}`}>{JSON.stringify(value)}</span>
      </div>
    );
  const entries: [string | undefined, Json][] = Array.isArray(value)
    ? value.map((v) => [undefined, v])
    : Object.entries(value);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0)
    return (
      <div class="json-leaf">
        {label}
        {open}
        {close}
      </div>
    );
  return (
    <details class="json-node" open={depth < 2}>
      <summary>
        {label}
        {open}
        <span class="muted small">
          {' '}
          {Array.isArray(value) ? `${entries.length} items` : `${entries.length} keys`}{' '}
        </span>
      </summary>
      <div class="json-children">
        {entries.map(([k, v], i) => (
          <Node key={i} name={k} value={v} depth={depth + 1} />
        ))}
      </div>
      <div>{close}</div>
    </details>
  );
}

export function Body(props: { text: string | null | undefined; contentType?: string | undefined }) {
  const text = props.text ?? '';
  if (text === '') return <p class="muted small">(empty)</p>;
  const looksJson = /json/i.test(props.contentType ?? '') || /^\s*[[{]/.test(text);
  if (looksJson && text.length <= MAX_TREE_CHARS) {
    try {
      return (
        <div class="json" data-testid="json-body">
          <Node value={JSON.parse(text) as Json} depth={0} />
        </div>
      );
    } catch {
      // Not JSON after all: shown as text below.
    }
  }
  return <pre class="body">{text}</pre>;
}
