/**
 * The Logs page (listmonk's Settings → Logs, admin UI map §1.18): the recent server log lines of every
 * instance, oldest first and newest last, in a monospace block that wraps on a phone. Each line shows
 * its time, instance and level before the message.
 *
 * Refreshing without inline script (strict CSP): the "Follow" checkbox sits in a GET form; htmx sends
 * the form on change and swaps in the lines block ({@link LogLinesBlock}), which, while following,
 * carries `hx-trigger="every 5s"` and so reloads itself; the address bar and the Refresh link follow
 * the checkbox, so a reload keeps following. Without JavaScript the form's Apply button and
 * the Refresh link reload the page. The lines block scrolls with its newest line in view (CSS
 * `column-reverse`), as listmonk scrolls to the end.
 */
import type { VNode } from 'preact';
import type { LogLineParts } from '../service.js';
import { PageHeader, EmptyState } from '../../../ui/components/misc.js';
import { t } from '../../../ui/i18n.js';

/** Seconds between reloads while following. */
export const FOLLOW_SECONDS = 5;
/** The page's URL. */
export const LOGS_URL = '/admin/settings/logs';

/** Props of the Logs page and its lines block. */
export interface LogsViewProps {
  lines: readonly LogLineParts[];
  /** Whether the lines reload every {@link FOLLOW_SECONDS} seconds. */
  follow: boolean;
  /** How many lines at most the page shows (for the hint). */
  limit: number;
}

/** The URL that reloads the page (or, for htmx, the lines block) with `follow` kept. */
export function logsUrl(follow: boolean): string {
  return follow ? `${LOGS_URL}?follow=1` : LOGS_URL;
}

/**
 * The Refresh link (a plain reload, keeping `follow`). In an htmx answer it comes again with
 * `hx-swap-oob`, so the link on the page follows the checkbox.
 */
export function RefreshLink({ follow, oob = false }: { follow: boolean; oob?: boolean }): VNode {
  return (
    <a id="logs-refresh" class="button secondary" href={logsUrl(follow)} data-cy="refresh" hx-swap-oob={oob ? 'true' : undefined}>
      {t('logs.refresh')}
    </a>
  );
}

/** The lines block: the fragment htmx swaps, polling itself while `follow`. */
export function LogLinesBlock({ lines, follow }: Pick<LogsViewProps, 'lines' | 'follow'>): VNode {
  const poll = follow ? { 'hx-get': logsUrl(true), 'hx-trigger': `every ${FOLLOW_SECONDS}s`, 'hx-swap': 'outerHTML' } : {};
  return (
    <div id="log-lines" class="log-block" data-cy="log-lines" data-follow={follow ? 'on' : 'off'} {...poll}>
      {lines.length === 0 ? (
        <EmptyState message={t('logs.empty')} />
      ) : (
        <div class="log-scroll" tabindex={0} role="region" aria-label={t('logs.linesLabel')}>
          <ol class="log-lines">
            {lines.map((l) => (
              <li class={`log-line log-${l.level.toLowerCase()}`}>
                <span class="log-time">{l.time}</span> <span class="log-instance">{l.instance}</span>{' '}
                <span class="log-level">{l.level}</span> <span class="log-message">{l.message}</span>
              </li>
            ))}
          </ol>
        </div>
      )}
    </div>
  );
}

/** The whole Logs page content: heading, the follow form with its refresh link, the lines. */
export function LogsView(p: LogsViewProps): VNode {
  return (
    <>
      <PageHeader title={t('menu.logs')} />
      <p class="muted">{t('logs.help', { limit: p.limit.toLocaleString('en') })}</p>
      <form
        class="log-controls"
        method="get"
        action={LOGS_URL}
        hx-get={LOGS_URL}
        hx-trigger="change"
        hx-target="#log-lines"
        hx-swap="outerHTML"
        hx-push-url="true"
      >
        <div class="field field-check">
          <input type="checkbox" id="f-follow" name="follow" value="1" checked={p.follow || undefined} data-cy="follow" aria-describedby="f-follow-hint" />
          <label for="f-follow">{t('logs.follow')}</label>
          <p class="field-hint" id="f-follow-hint">{t('logs.followHint', { seconds: FOLLOW_SECONDS })}</p>
        </div>
        <noscript>
          <button type="submit" class="button secondary">{t('logs.apply')}</button>
        </noscript>
        <RefreshLink follow={p.follow} />
      </form>
      <LogLinesBlock lines={p.lines} follow={p.follow} />
    </>
  );
}
