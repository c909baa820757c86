/**
 * The error pages: /admin's 404 and a generic error (403, 4xx with the service's message, 500 without
 * details). Pure: a title and a body for {@link view} of ../pages.ts.
 */
import type { VNode } from 'preact';
import { t } from '../i18n.js';

/** Props of {@link ErrorView}: the HTTP status and, for 4xx, the message to show. */
export interface ErrorViewProps {
  status: number;
  /** Shown for 4xx answers (already user-facing); ignored for 5xx, whose details stay in the log. */
  message?: string;
}

function headline(status: number): string {
  if (status === 404) return t('errors.notFoundTitle');
  if (status === 403) return t('errors.forbiddenTitle');
  if (status >= 500) return t('errors.serverTitle');
  return t('errors.requestTitle');
}

/** The error page's title and content. */
export function ErrorView({ status, message }: ErrorViewProps): { title: string; body: VNode } {
  const title = headline(status);
  const text = status >= 500 ? t('errors.serverText') : status === 404 && !message ? t('errors.notFoundText') : (message ?? t('errors.requestText'));
  return {
    title,
    body: (
      <section class="error-page" aria-labelledby="error-title">
        <p class="error-code" aria-hidden="true">{status}</p>
        <h1 id="error-title">{title}</h1>
        <p>{text}</p>
        <p><a class="button" href="/admin">{t('errors.backToDashboard')}</a></p>
      </section>
    ),
  };
}

/** The /admin 404 page (listmonk's `/admin/404`). */
export function NotFoundView(): { title: string; body: VNode } {
  return ErrorView({ status: 404 });
}
