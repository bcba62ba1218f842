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
