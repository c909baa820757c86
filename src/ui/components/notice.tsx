/**
 * A notice (the outcome of an action, listmonk's toasts made calm and persistent): a success or
 * information is announced politely (`role="status"`), an error or warning at once (`role="alert"`).
 */
import type { ComponentChildren, VNode } from 'preact';
import { noticeText, type Notice, type NoticeKind } from '../notice.js';

/** Props of {@link NoticeMessage}: a kind and the (already translated) text. */
export interface NoticeMessageProps {
  kind: NoticeKind;
  children: ComponentChildren;
  cy?: string;
}

/** A notice with given text (for messages made on the page, e.g. a form's summary of errors). */
export function NoticeMessage({ kind, children, cy }: NoticeMessageProps): VNode {
  const urgent = kind === 'error' || kind === 'warning';
  return (
    <div class={`notice notice-${kind}`} role={urgent ? 'alert' : 'status'} data-cy={cy}>
      <span class="notice-icon" aria-hidden="true" />
      <div class="notice-text">{children}</div>
    </div>
  );
}

/** A notice from the catalogue (what a redirect brought back). */
export function NoticeBox({ notice }: { notice: Notice }): VNode {
  return <NoticeMessage kind={notice.kind}>{noticeText(notice)}</NoticeMessage>;
}
