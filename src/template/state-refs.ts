/**
 * Which endpoint state a template may touch, read from its syntax tree once at compile time: the
 * items its state helpers name with literal text (`{{step-counter 'inc' 'visits'}}` → counter
 * `visits`), or `dynamic` when a name is computed (`{{data-store 'get' (pathParam 'id')}}`), in
 * which case a request reads the endpoint's whole state (bounded by STATE_MAX_ITEMS) before rendering;
 * and `readOnly` when every state helper's operation is a literal `get` or `length` (the render changes
 * nothing, so it needs no lock).
 */
type StateType = 'counter' | 'string' | 'list';

export interface StateUse {
  refs: { type: StateType; key: string }[];
  dynamic: boolean;
  /** Present when the template's state helpers only read (every operation a literal `get` or `length`). */
  readOnly?: true;
}

/** The operations that only read. */
const READS = new Set<unknown>(['get', 'length']);

const HELPER_TYPES: Readonly<Record<string, StateType>> = {
  'step-counter': 'counter',
  'data-store': 'string',
  list: 'list',
};

const CALLS = new Set(['MustacheStatement', 'SubExpression', 'BlockStatement']);

interface Node {
  type?: unknown;
  path?: { type?: unknown; original?: unknown };
  params?: { type?: unknown; value?: unknown }[];
}

/** The state a parsed template uses; undefined when it has no state helper. */
export function stateUseOf(ast: unknown): StateUse | undefined {
  const use: StateUse = { refs: [], dynamic: false };
  const seen = new Set<string>();
  let found = false;
  let writes = false;
  const visit = (n: unknown): void => {
    if (n === null || typeof n !== 'object') return;
    if (Array.isArray(n)) {
      for (const c of n) visit(c);
      return;
    }
    const node = n as Node;
    if (typeof node.type === 'string' && CALLS.has(node.type) && node.path?.type === 'PathExpression') {
      const name = node.path.original;
      if (typeof name === 'string' && Object.hasOwn(HELPER_TYPES, name)) {
        found = true;
        const op = node.params?.[0];
        if (op?.type !== 'StringLiteral' || !READS.has(op.value)) writes = true;
        const key = node.params?.[1];
        if (key && (key.type === 'StringLiteral' || key.type === 'NumberLiteral')) {
          const ref = { type: HELPER_TYPES[name]!, key: String(key.value) };
          const id = `${ref.type}\0${ref.key}`;
          if (!seen.has(id)) use.refs.push(ref);
          seen.add(id);
        } else use.dynamic = true;
      }
    }
    for (const [k, v] of Object.entries(n)) if (k !== 'loc') visit(v);
  };
  visit(ast);
  if (!writes) use.readOnly = true;
  return found ? use : undefined;
}
