/** What the three state helpers share: the render's state, and a state key from an argument. */
import type { RenderState, StateAccess } from '../state.js';

/** The render's view of the endpoint's state; throws (the helper renders empty) when there is none. */
export function stateOfRender(render: RenderState, helper: string): StateAccess {
  const s = render.input.state;
  if (!s)
    throw new Error(`endpoint state is not available here (${helper} works in a rule's response templates)`);
  return s;
}

/** A key argument: text, or a number as text. */
export function stateKey(name: unknown, helper: string): string {
  if (typeof name === 'string' && name !== '') return name;
  if (typeof name === 'number') return String(name);
  throw new Error(`the second argument is the name, e.g. {{${helper} 'get' 'name'}}`);
}
