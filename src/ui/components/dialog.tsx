/**
 * A modal dialog (`<dialog>`, listmonk v7's choice): opened by a button with `data-open-dialog="<id>"`
 * (main.js calls `showModal()`, so focus is trapped and Esc closes it), closed by its Cancel button
 * (`<form method="dialog">`). For confirmations, give a submit button `data-confirm="<question>"`:
 * main.js asks in the shared confirm dialog ({@link ConfirmDialog}, OK focused) before the form is sent;
 * without JavaScript the form is sent directly, so never rely on the question for safety.
 */
import type { ComponentChildren, VNode } from 'preact';
import { t } from '../i18n.js';

/** Props of {@link Dialog}. */
export interface DialogProps {
  id: string;
  title: string;
  children: ComponentChildren;
  /** Buttons beside Cancel (e.g. a submit button with `form="<form id>"`). */
  actions?: ComponentChildren;
  cy?: string;
}

/** A modal dialog with a title, content, and Cancel plus `actions`. */
export function Dialog(p: DialogProps): VNode {
  return (
    <dialog id={p.id} class="dialog" aria-labelledby={`${p.id}-title`} data-cy={p.cy}>
      <h2 id={`${p.id}-title`} class="dialog-title">{p.title}</h2>
      <div class="dialog-body">{p.children}</div>
      <div class="dialog-actions">
        <form method="dialog">
          <button type="submit" class="button secondary" value="cancel" data-cy="btn-cancel">{t('globals.buttons.cancel')}</button>
        </form>
        {p.actions}
      </div>
    </dialog>
  );
}

/** The confirm dialog main.js fills with a `data-confirm` question; rendered once per page by the shell's views. */
export function ConfirmDialog(): VNode {
  return (
    <dialog id="confirm-dialog" class="dialog" aria-labelledby="confirm-dialog-text">
      <p id="confirm-dialog-text" class="dialog-text" />
      <form method="dialog" class="dialog-actions">
        <button type="submit" class="button secondary" value="cancel">{t('globals.buttons.cancel')}</button>
        <button type="submit" class="button" value="ok" autofocus>{t('globals.buttons.ok')}</button>
      </form>
    </dialog>
  );
}
