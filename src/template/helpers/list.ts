/**
 * `{{list 'push|pop|get|length|clear' 'name' [value]}}`: the endpoint's list `name` (empty until
 * first pushed to). `push` appends the value; `pop` removes and gives the value pushed last; `get`
 * gives the whole list (as JSON, or as an array to `each`); `length` its length; `clear` empties it.
 */
import { argsOf, asValue, stateOf } from '../state.js';
import { stateOfRender, stateKey } from './state-access.js';

export function list(...args: unknown[]): unknown {
  const { params, options } = argsOf(args);
  const [op, name, value] = params;
  const state = stateOfRender(stateOf(options), 'list');
  const key = stateKey(name, 'list');
  switch (op) {
    case 'push':
      if (params.length < 3) throw new Error(`push needs a value, e.g. {{list 'push' 'cart' (body 'item')}}`);
      state.push(key, value);
      return '';
    case 'pop': {
      const v = state.pop(key);
      return v === undefined ? '' : asValue(v);
    }
    case 'get':
      return asValue(state.read('list', key) ?? []);
    case 'length': {
      const v = state.read('list', key);
      return Array.isArray(v) ? v.length : 0;
    }
    case 'clear':
      state.clearList(key);
      return '';
    default:
      throw new Error(`the operation is push, pop, get, length or clear, e.g. {{list 'length' 'cart'}}`);
  }
}
