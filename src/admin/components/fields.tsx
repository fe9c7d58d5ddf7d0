// Form fields of the admin area (issue 40 §5): a labelled input, checkbox and select, each with
// its hint and error tied to it (aria-describedby), the refusal summary of a form and the fixed
// notice after a redirect. A refusal shows next to its field; nothing was changed.

export function CsrfField({ token }: { token: string }) {
  return <input type="hidden" name="csrf_token" value={token} />;
}

export interface FieldOptions {
  name: string;
  /** The element id, when two forms of one page share a field name; `f-<name>` by default. */
  id?: string;
  label: string;
  value?: string | null;
  type?: string;
  required?: boolean;
  hint?: string;
  error?: string;
  maxlength?: number;
  autofocus?: boolean;
}

/**
 * A labelled input. The label holds the field's name only (its accessible name); the hint and
 * the error sit outside it and are tied to the input with aria-describedby, so a screen reader
 * reads "Phone, edit text, International format…" rather than one long name.
 */
export function Field(o: FieldOptions) {
  const id = o.id ?? `f-${o.name}`;
  return (
    <>
      <label for={id}>{o.label}</label>
      <HintText id={id} hint={o.hint} />
      <input
        id={id}
        name={o.name}
        type={o.type ?? 'text'}
        value={o.value ?? ''}
        required={o.required}
        maxlength={o.maxlength}
        autofocus={o.autofocus}
        {...describedBy(id, o)}
      />
      <ErrorText id={id} error={o.error} />
    </>
  );
}

/**
 * The fields of one re-shown form: `field('price', 'Price', { hint })` is a Field named `price`
 * with the form's value and error for it.
 */
export const fieldsOf =
  (values: Record<string, string | null | undefined>, errors?: Record<string, string> | null) =>
  (name: string, label: string, o: Partial<FieldOptions> = {}) => (
    <Field name={name} label={label} value={values[name]} error={errors?.[name]} {...o} />
  );

/** A labelled text area (notes, a description, one redirect URI a line), tied to its hint and error as Field is. */
export function TextArea(o: Omit<FieldOptions, 'type' | 'autofocus'>) {
  const id = o.id ?? `f-${o.name}`;
  return (
    <>
      <label for={id}>{o.label}</label>
      <HintText id={id} hint={o.hint} />
      <textarea id={id} name={o.name} required={o.required} maxlength={o.maxlength} {...describedBy(id, o)}>
        {o.value ?? ''}
      </textarea>
      <ErrorText id={id} error={o.error} />
    </>
  );
}

/** aria-invalid (with an error) and aria-describedby naming the hint and error of field `id`. */
export function describedBy(
  id: string,
  o: { hint?: string; error?: string },
  opts: { invalid?: boolean } = {},
): { 'aria-invalid'?: 'true'; 'aria-describedby'?: string } {
  const ids = [o.hint ? `${id}-hint` : '', o.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return {
    ...(o.error && opts.invalid !== false ? { 'aria-invalid': 'true' as const } : {}),
    ...(ids ? { 'aria-describedby': ids } : {}),
  };
}

export function HintText({ id, hint }: { id: string; hint?: string }) {
  return hint ? (
    <span class="hint" id={`${id}-hint`}>
      {hint}
    </span>
  ) : null;
}

export function ErrorText({ id, error }: { id: string; error?: string }) {
  return error ? (
    <p class="field-error" id={`${id}-error`}>
      {error}
    </p>
  ) : null;
}

export function FormError({ errors, known }: { errors: Record<string, string> | null; known: string[] }) {
  if (!errors) return null;
  const other = Object.entries(errors).filter(([k]) => !known.includes(k));
  return (
    <div class="notice error" role="alert">
      Please correct the form.
      {other.length > 0 && (
        <ul>
          {other.map(([k, m]) => (
            <li>
              {k === '_' ? '' : `${k}: `}
              {m}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Fixed notices after a redirect (?done=…): only these texts can appear, never user input. */
export function DoneNotice({ done, table }: { done: unknown; table: Record<string, string> }) {
  const text = typeof done === 'string' && Object.hasOwn(table, done) ? table[done] : null;
  return text ? (
    <p class="notice ok" role="status">
      {text}
    </p>
  ) : null;
}

/** A labelled checkbox (its label after it), with its error tied to it. */
export function Check(o: {
  id: string;
  name: string;
  label: string;
  checked: boolean;
  value?: string;
  error?: string;
}) {
  return (
    <>
      <label class="check" for={o.id}>
        <input
          type="checkbox"
          id={o.id}
          name={o.name}
          value={o.value ?? 'on'}
          checked={o.checked}
          {...describedBy(o.id, { error: o.error })}
        />{' '}
        {o.label}
      </label>
      <ErrorText id={o.id} error={o.error} />
    </>
  );
}

/** A labelled select with its hint and error. */
export function Select(o: {
  id: string;
  name: string;
  label: string;
  value: string;
  options: Array<[string, string]>;
  hint?: string;
  error?: string;
  required?: boolean;
}) {
  return (
    <>
      <label for={o.id}>{o.label}</label>
      <HintText id={o.id} hint={o.hint} />
      <select id={o.id} name={o.name} required={o.required} {...describedBy(o.id, o)}>
        {o.options.map(([v, text]) => (
          <option value={v} selected={v === o.value}>
            {text}
          </option>
        ))}
      </select>
      <ErrorText id={o.id} error={o.error} />
    </>
  );
}
