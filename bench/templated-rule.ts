/**
 * The templated rule the benchmarks load (bench:templates, bench:echo, bench:echo-instructions):
 * `GET /users/:id?x=…` answering JSON with the id, the query parameter and a fake first name.
 */
export const TEMPLATED_PATH = '/users/42?x=abc';

export const TEMPLATED_RULE = {
  method: 'GET',
  conditions: [{ type: 'path', operator: 'template', value: '/users/:id' }],
  action: {
    type: 'mock',
    templated: true,
    headers: [{ key: 'content-type', value: 'application/json' }],
    body: `{"id":"{{pathParam 'id'}}","x":"{{queryParam 'x'}}","name":"{{faker 'person.firstName'}}"}`,
  },
};

/**
 * The same route answered by a bare `node:http` server, by hand (a fixed list of first names in place
 * of faker): the ceiling of any server on Node's HTTP stack, which bench:templates prints beside the
 * peers so that a target relative to them can be read against it.
 */
export const BARE_TEMPLATED = `
const http = require('node:http');
const names = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken'];
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  const m = /^\\/users\\/([^/]+)$/.exec(url.pathname);
  if (req.method !== 'GET' || !m) { res.writeHead(404); res.end(); return; }
  const body = JSON.stringify({ id: decodeURIComponent(m[1]), x: url.searchParams.get('x') ?? '',
    name: names[Math.floor(Math.random() * names.length)] });
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));
`;
