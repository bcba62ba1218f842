/** One card of the settings screen: its fields and a Save that PATCHes that group, with the API's message. */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ErrorBox } from '../ui';

export function Group(props: {
  title: string;
  testid: string;
  save: () => Promise<void>;
  children: ComponentChildren;
}) {
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const submit = async (ev: Event) => {
    ev.preventDefault();
    setError(null);
    setSaved(false);
    try {
      await props.save();
      setSaved(true);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section class="card" data-testid={props.testid}>
      <h2>{props.title}</h2>
      <form class="stack" onSubmit={submit}>
        {props.children}
        <ErrorBox error={error} />
        <div class="row">
          <button type="submit">Save</button>
          {saved && <span class="muted small">Saved.</span>}
        </div>
      </form>
    </section>
  );
}
