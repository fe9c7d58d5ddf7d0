// Forms that change something (issue 40 §5): every one posts with the session's CSRF token (the
// guard in src/admin/index.ts refuses a post without it). A one-button action is a PostButton; an
// action that cannot be undone or reaches others goes through a ConfirmForm, the "what will
// happen" page: what the action does in words, the refusal in words when it was refused, the
// button and a way back that does nothing.
import type { ComponentChildren } from 'preact';
import { CsrfField, FormError } from './fields.js';

/** A form of one button posting to `action` (hidden `fields` with it). */
export function PostButton(p: {
  action: string;
  csrf: string;
  label: ComponentChildren;
  /** The button's accessible name when its text alone is ambiguous in a list ("Remove"). */
  name?: string;
  kind?: 'primary' | 'danger' | 'link';
  fields?: Record<string, string>;
  class?: string;
}) {
  return (
    <form method="post" action={p.action} class={p.class ?? 'inline-form'}>
      <CsrfField token={p.csrf} />
      {Object.entries(p.fields ?? {}).map(([k, v]) => (
        <input type="hidden" name={k} value={v} />
      ))}
      <button type="submit" class={p.kind} aria-label={p.name}>
        {p.label}
      </button>
    </form>
  );
}

/** A refusal of the service, in words, at the top of the page that was posted. */
export function Refusal({ message }: { message?: string | null }) {
  return message ? (
    <p class="notice error" role="alert">
      {message}
    </p>
  ) : null;
}

/**
 * The "what will happen" page's form: the refusal (if the post was refused), what the action
 * does, any fields, the button and a link back that changes nothing.
 */
export function ConfirmForm(p: {
  action: string;
  csrf: string;
  button: string;
  back: string;
  backLabel?: string;
  danger?: boolean;
  refusal?: string | null;
  /** Said before the button: what the action does. */
  what?: ComponentChildren;
  children?: ComponentChildren;
  /** The form's class: `inline` by default, none for ''. */
  class?: string;
}) {
  return (
    <>
      <Refusal message={p.refusal} />
      {p.what && <p>{p.what}</p>}
      <form method="post" action={p.action} class={p.class === '' ? undefined : (p.class ?? 'inline')}>
        <CsrfField token={p.csrf} />
        {p.children}
        <button type="submit" class={p.danger ? 'danger' : 'primary'}>
          {p.button}
        </button>{' '}
        <a class="button" href={p.back}>
          {p.backLabel ?? 'Cancel'}
        </a>
      </form>
    </>
  );
}

/** A form in a panel: its heading, the refusal summary, the fields and one primary button. */
export function PanelForm(p: {
  action: string;
  csrf: string;
  title?: string;
  /** h3 for a form under a section's own h2. */
  sub?: boolean;
  /** The refusal's field errors (a summary lists those not shown at a field of `known`). */
  errors?: Record<string, string> | null;
  known?: string[];
  button: string;
  children: ComponentChildren;
}) {
  return (
    <form method="post" action={p.action} class="stack panel">
      {p.title && (p.sub ? <h3>{p.title}</h3> : <h2>{p.title}</h2>)}
      <FormError errors={p.errors ?? null} known={p.known ?? []} />
      <CsrfField token={p.csrf} />
      {p.children}
      <button type="submit" class="primary">
        {p.button}
      </button>
    </form>
  );
}
