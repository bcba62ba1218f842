/**
 * `{{data-store 'get|set|delete' 'key' [value]}}`: the endpoint's stored value `key`, a string or any
 * JSON value (`(body 'user')` stores the object). `get` gives it (or the third argument, else ''),
 * objects as JSON; `set` and `delete` render nothing. Persistent, shared by every request.
 */
import { argsOf, asValue, stateOf, toText } from '../state.js';
import { stateOfRender, stateKey } from './state-access.js';

export function dataStore(...args: unknown[]): unknown {
  const { params, options } = argsOf(args);
  const [op, name, value] = params;
  const state = stateOfRender(stateOf(options), 'data-store');
  const key = stateKey(name, 'data-store');
  switch (op) {
    case 'get': {
      const v = state.read('string', key);
      return v === undefined ? toText(value) : asValue(v);
    }
    case 'set':
      if (params.length < 3)
        throw new Error(`set needs a value, e.g. {{data-store 'set' 'user' (body 'user')}}`);
      state.setData(key, value);
      return '';
    case 'delete':
      state.deleteData(key);
      return '';
    default:
      throw new Error(`the operation is get, set or delete, e.g. {{data-store 'get' 'user'}}`);
  }
}
