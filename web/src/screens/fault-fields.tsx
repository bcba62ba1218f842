/**
 * Form fields for a response's latency and faults (docs/resilience.md), shared by the rule editor's mock
 * action and the endpoint's chaos and faults settings: a fault picked from the API's list, a delay in
 * milliseconds or as a distribution (fixed, uniform, lognormal with a cap), and the dribble (`chunked`).
 * The fields only shape the JSON; the API checks the bounds and its messages are shown as given.
 */

/** The fault names the API takes (src/http/answer.ts `FAULTS`). */
export const FAULTS = [
  'connection_reset',
  'empty_response',
  'malformed_chunk',
  'random_data_then_close',
  'timeout',
] as const;

export type Delay =
  | number
  | { distribution: 'fixed'; value: number }
  | { distribution: 'uniform'; min: number; max: number }
  | { distribution: 'lognormal'; median: number; sigma: number; max?: number };

export interface Chunked {
  chunks: number;
  totalDuration: number;
}

type Kind = 'none' | 'ms' | 'fixed' | 'uniform' | 'lognormal';

const kindOf = (d: unknown): Kind => {
  if (typeof d === 'number') return 'ms';
  const dist = (d as { distribution?: unknown } | null | undefined)?.distribution;
  return dist === 'fixed' || dist === 'uniform' || dist === 'lognormal' ? dist : 'none';
};

/** A first value for a newly chosen kind, kept close to what was there. */
function startOf(kind: Kind, old: unknown): Delay | undefined {
  const ms = typeof old === 'number' ? old : 0;
  switch (kind) {
    case 'ms':
      return ms;
    case 'fixed':
      return { distribution: 'fixed', value: ms };
    case 'uniform':
      return { distribution: 'uniform', min: ms, max: Math.max(ms, 100) };
    case 'lognormal':
      return { distribution: 'lognormal', median: Math.max(ms, 100), sigma: 0.5 };
    default:
      return undefined;
  }
}

const numberOf = (text: string): number => (text.trim() === '' ? 0 : Number(text));

/** A fault to pick, or none. */
export function FaultSelect(props: {
  name: string;
  label: string;
  value: unknown;
  onChange: (v: string | undefined) => void;
}) {
  return (
    <label>
      {props.label}
      <select
        name={props.name}
        value={typeof props.value === 'string' ? props.value : ''}
        onChange={(e) => props.onChange(e.currentTarget.value || undefined)}
      >
        <option value="">none</option>
        {FAULTS.map((f) => (
          <option key={f}>{f}</option>
        ))}
      </select>
    </label>
  );
}

/** A delay: milliseconds, or a distribution; `optional` offers none (undefined). */
export function DelayFields(props: {
  name: string;
  label: string;
  value: unknown;
  optional?: boolean;
  onChange: (v: Delay | undefined) => void;
}) {
  const { name, value, onChange } = props;
  const kind = kindOf(value);
  const d = (value ?? {}) as Record<string, unknown>;
  const field = (key: string, label: string, optional = false) => (
    <label key={key}>
      {label}
      <input
        name={`${name}-${key}`}
        type="number"
        min={0}
        step="any"
        value={typeof d[key] === 'number' ? String(d[key]) : ''}
        onInput={(e) => {
          const text = e.currentTarget.value;
          const next: Record<string, unknown> = { ...d };
          if (optional && text.trim() === '') delete next[key];
          else next[key] = numberOf(text);
          onChange(next as Delay);
        }}
      />
    </label>
  );
  return (
    <div class="row" data-testid={`${name}-fields`}>
      <label>
        {props.label}
        <select
          name={`${name}-kind`}
          value={kind === 'none' && !props.optional ? 'ms' : kind}
          onChange={(e) => onChange(startOf(e.currentTarget.value as Kind, value))}
        >
          {props.optional && <option value="none">none</option>}
          <option value="ms">ms</option>
          <option value="fixed">fixed</option>
          <option value="uniform">uniform</option>
          <option value="lognormal">lognormal</option>
        </select>
      </label>
      {(kind === 'ms' || (kind === 'none' && !props.optional)) && (
        <label>
          ms
          <input
            name={name}
            type="number"
            min={0}
            value={typeof value === 'number' ? String(value) : '0'}
            onInput={(e) => onChange(numberOf(e.currentTarget.value))}
          />
        </label>
      )}
      {kind === 'fixed' && field('value', 'ms')}
      {kind === 'uniform' && [field('min', 'min ms'), field('max', 'max ms')]}
      {kind === 'lognormal' && [
        field('median', 'median ms'),
        field('sigma', 'sigma'),
        field('max', 'cap ms', true),
      ]}
    </div>
  );
}

/** The dribble: the body in `chunks` pieces, the last `totalDuration` ms after the head; off is undefined. */
export function ChunkedFields(props: { value: unknown; onChange: (v: Chunked | undefined) => void }) {
  const c = props.value as Chunked | undefined;
  return (
    <div class="row">
      <label class="inline">
        <input
          type="checkbox"
          name="chunked"
          checked={c !== undefined}
          onChange={(e) =>
            props.onChange(e.currentTarget.checked ? { chunks: 4, totalDuration: 1000 } : undefined)
          }
        />{' '}
        dribble the body
      </label>
      {c && (
        <>
          <label>
            chunks
            <input
              name="chunked-chunks"
              type="number"
              min={1}
              value={String(c.chunks)}
              onInput={(e) => props.onChange({ ...c, chunks: numberOf(e.currentTarget.value) })}
            />
          </label>
          <label>
            over ms
            <input
              name="chunked-totalDuration"
              type="number"
              min={0}
              value={String(c.totalDuration)}
              onInput={(e) => props.onChange({ ...c, totalDuration: numberOf(e.currentTarget.value) })}
            />
          </label>
        </>
      )}
    </div>
  );
}

/** A mock action's delay, fault and dribble, as one fieldset of the rule editor. */
export function ResponseTiming(props: {
  action: Record<string, unknown>;
  setAction: (a: Record<string, unknown>) => void;
}) {
  const { action, setAction } = props;
  return (
    <fieldset data-testid="response-timing">
      <legend>Latency and faults</legend>
      <DelayFields
        name="delay"
        label="Delay"
        value={action['delay'] ?? 0}
        onChange={(delay) => setAction({ delay: delay ?? 0 })}
      />
      <ChunkedFields value={action['chunked']} onChange={(chunked) => setAction({ chunked })} />
      <div class="row">
        <FaultSelect
          name="fault"
          label="Fault instead of the answer"
          value={action['fault']}
          onChange={(fault) => setAction({ fault })}
        />
      </div>
    </fieldset>
  );
}
