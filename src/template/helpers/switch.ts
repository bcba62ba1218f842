/**
 * `{{#switch value}}{{#case 'a'}}…{{/case}}{{#case 'b' 'c'}}…{{/case}}{{#default}}…{{/default}}{{/switch}}`:
 * the first case naming the value renders; `default` renders when none did.
 */
import { argsOf } from '../state.js';

interface SwitchFrame {
  value: unknown;
  done: boolean;
}

function frameOf(data: Record<string, unknown>): SwitchFrame | undefined {
  return data['switch'] as SwitchFrame | undefined;
}

export function switchHelper(...args: unknown[]): string {
  const { params, options } = argsOf(args);
  const frame: SwitchFrame = { value: params[0], done: false };
  return options.fn?.({}, { data: { ...options.data, switch: frame } }) ?? '';
}

export function caseHelper(...args: unknown[]): string {
  const { params, options } = argsOf(args);
  const frame = frameOf(options.data);
  if (!frame || frame.done) return '';
  if (!params.some((p) => String(p) === String(frame.value))) return '';
  frame.done = true;
  return options.fn?.({}, { data: options.data }) ?? '';
}

export function defaultHelper(...args: unknown[]): string {
  const { options } = argsOf(args);
  const frame = frameOf(options.data);
  if (frame?.done === true) return '';
  return options.fn?.({}, { data: options.data }) ?? '';
}
