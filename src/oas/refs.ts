/**
 * Internal `$ref`s of an OpenAPI document (`#/components/schemas/Pet`), resolved against the document
 * itself and nothing else: an uploaded document never makes the service read a file or a URL. Own
 * properties only, so a pointer cannot reach `__proto__` or `constructor`.
 */

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The value at `#/a/b~1c` in `root`, or undefined when the pointer is not internal or leads nowhere. */
export function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (fragment === '') return root;
  if (!fragment.startsWith('/')) return undefined;
  let at: unknown = root;
  for (const raw of fragment.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(at)) at = /^\d+$/.test(token) ? at[Number(token)] : undefined;
    else if (isObject(at) && Object.hasOwn(at, token)) at = at[token];
    else return undefined;
  }
  return at;
}

/** Follows `$ref` objects (at most `hops`, so a ref to itself ends) to what they name. */
export function deref(root: unknown, v: unknown, hops = 16): unknown {
  let at = v;
  for (let i = 0; i < hops && isObject(at) && typeof at['$ref'] === 'string'; i++)
    at = resolvePointer(root, at['$ref']);
  return isObject(at) && typeof at['$ref'] === 'string' ? undefined : at;
}

/**
 * Every `$ref` of `doc` that does not point inside it (another file, a URL), with where it is, as
 * JSON pointers; at most `max`. Walked without recursion, so a deeply nested document cannot
 * overflow the stack.
 */
export function externalRefs(doc: unknown, max = 20): { path: string; ref: string }[] {
  const found: { path: string; ref: string }[] = [];
  const stack: [unknown, string][] = [[doc, '']];
  while (stack.length > 0 && found.length < max) {
    const [v, path] = stack.pop()!;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}/${i}`]);
    } else if (isObject(v)) {
      const ref = v['$ref'];
      if (typeof ref === 'string' && !ref.startsWith('#')) found.push({ path: `${path}/$ref`, ref });
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!;
        stack.push([v[k], `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`]);
      }
    }
  }
  return found;
}

/**
 * Follows `$ref` objects from the value found at `at` (a JSON pointer), answering what they lead to
 * and its own pointer (so a schema under a referenced parameter is found where it is written).
 */
export function followRef(root: unknown, v: unknown, at: string): [unknown, string] {
  for (let hops = 0; hops < 16 && isObject(v) && typeof v['$ref'] === 'string'; hops++) {
    const ref = v['$ref'];
    v = resolvePointer(root, ref);
    try {
      at = decodeURIComponent(ref.slice(1));
    } catch {
      return [undefined, at];
    }
  }
  return isObject(v) && typeof v['$ref'] === 'string' ? [undefined, at] : [v, at];
}
