/** Small shared pieces: links, copy buttons, error boxes, confirmations. */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError } from './api';
import { follow } from './router';

export function Link(props: { href: string; class?: string; children: ComponentChildren; testid?: string }) {
  return (
    <a href={props.href} class={props.class} onClick={follow} data-testid={props.testid}>
      {props.children}
    </a>
  );
}

export function CopyButton(props: { text: string; label?: string; testid?: string }) {
  const [done, setDone] = useState(false);
  const copy = () => {
    void navigator.clipboard?.writeText(props.text).then(
      () => {
        setDone(true);
        setTimeout(() => setDone(false), 1000);
      },
      () => undefined,
    );
  };
  return (
    <button
      type="button"
      class="plain"
      onClick={copy}
      data-testid={props.testid}
      title={`Copy ${props.text}`}
    >
      {done ? 'copied' : (props.label ?? 'copy')}
    </button>
  );
}

/** The API's message, and each detail's path and message, as text. */
export function ErrorBox(props: { error: unknown }) {
  if (!props.error) return null;
  const e = props.error;
  const message = e instanceof Error ? e.message : typeof e === 'string' ? e : 'Something went wrong.';
  const details = e instanceof ApiError ? e.details : [];
  return (
    <div class="error" role="alert" data-testid="error">
      {message}
      {details.length > 0 && (
        <ul>
          {details.map((d, i) => (
            <li key={i}>
              {d.path ? <code>{d.path}</code> : null} {d.message}
              {d.received !== undefined ? ` (received ${d.received})` : ''}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A button that asks again before acting: the second click confirms, Cancel goes back. */
export function ConfirmButton(props: {
  label: string;
  confirm: string;
  onConfirm: () => void;
  testid?: string;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" class="danger-plain" onClick={() => setAsking(true)} data-testid={props.testid}>
        {props.label}
      </button>
    );
  return (
    <span class="confirm">
      {props.confirm}{' '}
      <button
        type="button"
        class="danger"
        data-testid={props.testid ? props.testid + '-confirm' : undefined}
        onClick={() => {
          setAsking(false);
          props.onConfirm();
        }}
      >
        Yes
      </button>{' '}
      <button type="button" class="plain" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

export function formatTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return (
    d.toLocaleTimeString(undefined, { hour12: false }) + '.' + String(d.getMilliseconds()).padStart(3, '0')
  );
}
