/**
 * Form parts (conventions §14): every field has a visible label, an optional hint, and its error right
 * beside it, tied to the input with `aria-describedby` and flagged with `aria-invalid`, so a failed form
 * re-rendered by the server reads field by field. Forms carry the session's CSRF token as `_csrf`.
 */
import type { ComponentChildren, VNode } from 'preact';
import { t } from '../i18n.js';

/** Field name → the message to show beside it (already translated). */
export type FormErrors = Readonly<Record<string, string>>;

/** The hidden `_csrf` input every state-changing form carries. */
export function CsrfField({ token }: { token: string }): VNode {
  return <input type="hidden" name="_csrf" value={token} />;
}

/** One option of a select. */
export interface FieldOption {
  value: string;
  label: string;
}

/** Props of {@link Field}. */
export interface FieldProps {
  name: string;
  /** The visible label (translated). */
  label: string;
  type?: 'text' | 'email' | 'password' | 'number' | 'url' | 'search' | 'tel' | 'date' | 'datetime-local' | 'textarea' | 'select' | 'checkbox';
  value?: string | number | boolean | null;
  hint?: ComponentChildren;
  error?: string | null;
  required?: boolean;
  disabled?: boolean;
  autocomplete?: string;
  placeholder?: string;
  options?: readonly FieldOption[];
  /** Id of the input; default `f-<name>`. */
  id?: string;
  /** listmonk's `data-cy` on the input. */
  cy?: string;
  autofocus?: boolean;
  inputmode?: 'numeric' | 'email' | 'text' | 'url';
  pattern?: string;
  min?: number;
  max?: number;
  maxlength?: number;
  rows?: number;
  /** For a password: `new-password` style fields get `autocomplete` from here. */
  spellcheck?: boolean;
}

/**
 * A labelled input (or textarea, select, checkbox) with its hint and error. The error sits right after
 * the control and is announced with it (`aria-describedby`); `aria-invalid="true"` marks the control.
 */
export function Field(p: FieldProps): VNode {
  const id = p.id ?? `f-${p.name}`;
  const hintId = p.hint ? `${id}-hint` : undefined;
  const errorId = p.error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    name: p.name,
    required: p.required || undefined,
    disabled: p.disabled || undefined,
    'aria-describedby': describedBy,
    'aria-invalid': p.error ? ('true' as const) : undefined,
    'data-cy': p.cy,
    autofocus: p.autofocus || undefined,
  };
  const type = p.type ?? 'text';
  const value = p.value === null || p.value === undefined || typeof p.value === 'boolean' ? '' : String(p.value);
  const hint = p.hint ? <p class="field-hint" id={hintId}>{p.hint}</p> : null;
  const error = p.error ? (
    <p class="field-error" id={errorId}>
      <span class="visually-hidden">{t('form.errorPrefix')} </span>
      {p.error}
    </p>
  ) : null;
  if (type === 'checkbox') {
    return (
      <div class={`field field-check${p.error ? ' has-error' : ''}`}>
        <input {...common} type="checkbox" value="true" checked={p.value === true || p.value === 'true' || undefined} />
        <label for={id}>{p.label}</label>
        {error}
        {hint}
      </div>
    );
  }
  let control: VNode;
  if (type === 'textarea') {
    control = <textarea {...common} rows={p.rows ?? 4} placeholder={p.placeholder} maxLength={p.maxlength} spellcheck={p.spellcheck}>{value}</textarea>;
  } else if (type === 'select') {
    control = (
      <select {...common}>
        {(p.options ?? []).map((o) => (
          <option value={o.value} selected={o.value === value || undefined}>{o.label}</option>
        ))}
      </select>
    );
  } else {
    control = (
      <input
        {...common}
        type={type as 'text'}
        value={type === 'password' ? undefined : value}
        autocomplete={p.autocomplete}
        placeholder={p.placeholder}
        inputMode={p.inputmode}
        pattern={p.pattern}
        min={p.min}
        max={p.max}
        maxLength={p.maxlength}
        spellcheck={p.spellcheck}
      />
    );
  }
  return (
    <div class={`field${p.error ? ' has-error' : ''}`}>
      <label for={id}>
        {p.label}
        {p.required ? <span class="required" aria-hidden="true"> *</span> : null}
      </label>
      {control}
      {error}
      {hint}
    </div>
  );
}

/** A summary above a failed form: how many fields need attention, each a link to its field. */
export function ErrorSummary({ errors, labels }: { errors: FormErrors; labels: Readonly<Record<string, string>> }): VNode | null {
  const names = Object.keys(errors);
  if (names.length === 0) return null;
  return (
    <div class="error-summary" role="alert" tabindex={-1}>
      <p>{t('form.fixErrors')}</p>
      <ul>
        {names.map((n) => (
          <li><a href={`#f-${n}`}>{labels[n] ?? n}: {errors[n]}</a></li>
        ))}
      </ul>
    </div>
  );
}
