/**
 * The API reference page (GET /api/v2/docs): one self-contained HTML page rendered from the OpenAPI
 * document, operations grouped by tag, with their parameters, body and response schemas. No script
 * and no outside asset, so it works offline and under a strict Content-Security-Policy.
 */

type Json = Record<string, unknown>;

const METHOD_COLOURS: Record<string, string> = {
  get: '#2f7d32',
  post: '#1f5fa8',
  put: '#8a5a00',
  patch: '#6b3fa0',
  delete: '#b3261e',
};

function esc(s: unknown): string {
  return String(s)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** `code` spans for backquoted text; everything else escaped. */
function prose(s: unknown): string {
  return esc(s).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function schemaBlock(label: string, schema: unknown): string {
  return `<details><summary>${esc(label)}</summary><pre>${esc(JSON.stringify(schema, null, 2))}</pre></details>`;
}

function operationHtml(method: string, path: string, op: Json): string {
  const params = (op['parameters'] as Json[] | undefined) ?? [];
  const rows = params
    .map(
      (p) =>
        `<tr><td><code>${esc(p['name'])}</code></td><td>${esc(p['in'])}</td>` +
        `<td>${p['required'] ? 'yes' : 'no'}</td><td>${prose(p['description'] ?? '')}</td></tr>`,
    )
    .join('');
  const body = (op['requestBody'] as { content?: Record<string, { schema?: unknown }> } | undefined)
    ?.content?.['application/json']?.schema;
  const responses = Object.entries((op['responses'] as Record<string, Json> | undefined) ?? {})
    .map(([code, r]) => {
      const schema = (r['content'] as Record<string, { schema?: unknown }> | undefined)?.['application/json']
        ?.schema;
      const text = `${code} ${typeof r['description'] === 'string' ? r['description'] : ''}`;
      return schema ? schemaBlock(text, schema) : `<div class="resp">${esc(text)}</div>`;
    })
    .join('');
  const colour = METHOD_COLOURS[method] ?? '#555';
  return `<section class="op" id="${esc(op['operationId'])}">
<h3><span class="m" style="background:${colour}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h3>
${op['summary'] ? `<p>${prose(op['summary'])}</p>` : ''}${op['description'] ? `<p class="d">${prose(op['description'])}</p>` : ''}
${rows ? `<table><tr><th>parameter</th><th>in</th><th>required</th><th></th></tr>${rows}</table>` : ''}
${body ? schemaBlock('request body', body) : ''}${responses}
</section>`;
}

/** Renders the reference page of an OpenAPI document. */
export function docsPage(doc: Json): string {
  const info = (doc['info'] ?? {}) as Json;
  const server = ((doc['servers'] as Json[] | undefined)?.[0]?.['url'] as string | undefined) ?? '';
  const byTag = new Map<string, string[]>();
  const toc: string[] = [];
  for (const [path, item] of Object.entries((doc['paths'] ?? {}) as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(item)) {
      const tag = ((op['tags'] as string[] | undefined) ?? ['Other'])[0] ?? 'Other';
      const list = byTag.get(tag) ?? [];
      list.push(operationHtml(method, server + path, op));
      byTag.set(tag, list);
    }
  }
  const sections = [...byTag.entries()]
    .map(([tag, ops]) => {
      const id = 'tag-' + tag.toLowerCase().replace(/[^a-z0-9]+/g, '-');
      toc.push(`<li><a href="#${esc(id)}">${esc(tag)}</a> (${ops.length})</li>`);
      return `<h2 id="${esc(id)}">${esc(tag)}</h2>${ops.join('\n')}`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(info['title'])} ${esc(info['version'])}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
code,pre{font-family:ui-monospace,monospace;font-size:13px}pre{background:#f5f5f7;padding:.75rem;overflow:auto}
.op{border:1px solid #ddd;border-radius:6px;padding:.25rem 1rem;margin:1rem 0}
.m{color:#fff;border-radius:4px;padding:.1rem .5rem;font-size:13px}.d{color:#444}
table{border-collapse:collapse;margin:.5rem 0}td,th{border-bottom:1px solid #eee;padding:.2rem .6rem;text-align:left}
summary{cursor:pointer;margin:.2rem 0}.resp{margin:.2rem 0}
</style></head><body>
<h1>${esc(info['title'])} <small>${esc(info['version'])}</small></h1>
<p>${prose(info['description'] ?? '')}</p>
<p>Send the API key in the <code>Authorization</code> header. Machine-readable: <a href="${esc(server)}/openapi.json">openapi.json</a>.</p>
<ul>${toc.join('')}</ul>
${sections}
</body></html>
`;
}
