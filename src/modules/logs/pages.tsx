/**
 * Admin pages of the logs module (conventions §13): `GET /admin/settings/logs` (permission
 * `settings:get`, listmonk's page gate), the full page, or for htmx (the follow checkbox and the
 * every-5-seconds reload) only the lines block.
 */
import type { FastifyInstance } from 'fastify';
import { fragment, isHtmx, page, registerPages, view } from '../../ui/pages.js';
import { t } from '../../ui/i18n.js';
import type { LogService } from './service.js';
import { LogLinesBlock, LogsView, LOGS_URL, RefreshLink } from './views/logs.js';

/** Lines the page shows: enough for the recent story, small enough to reload every few seconds on a phone. */
export const PAGE_LOG_LINES = 500;

/** `follow=1` (or `on`/`true`, as a checkbox sends it) keeps the lines reloading. */
function followOf(query: unknown): boolean {
  const v = (query as { follow?: unknown } | undefined)?.follow;
  return v === '1' || v === 'on' || v === 'true';
}

/** Registers the Logs page. */
export function logPages(app: FastifyInstance, logs: LogService): void {
  registerPages(app, [
    page('GET', LOGS_URL, 'settings:get', async (req) => {
      const follow = followOf(req.query);
      const lines = await logs.recentParts(PAGE_LOG_LINES);
      if (isHtmx(req)) {
        return fragment(
          <>
            <LogLinesBlock lines={lines} follow={follow} />
            <RefreshLink follow={follow} oob />
          </>,
        );
      }
      return view(t('menu.logs'), <LogsView lines={lines} follow={follow} limit={PAGE_LOG_LINES} />);
    }),
  ]);
}
