/**
 * The dashboard page `/admin` (listmonk admin UI map §1.2): today's date, the tiles (lists by type and
 * opt-in, campaigns by status, subscribers with blocklisted and orphans, messages sent) with listmonk's
 * `data-cy` hooks, and the 30-day charts of campaign views and link clicks. Pure: props in, markup out.
 */
import type { VNode } from 'preact';
import { t } from '../../../ui/i18n.js';
import { PageHeader, StatTiles, type StatTile } from '../../../ui/components/misc.js';
import type { DashboardCharts, DashboardCounts } from '../schemas.js';
import { LineChart } from './line-chart.js';

/** Campaign statuses in the order the tile lists them (those present in `by_status`). */
const STATUS_ORDER = ['running', 'scheduled', 'paused', 'draft', 'finished', 'cancelled'];

/** Props of {@link DashboardView}. `links` says which tiles may link to their pages (the user may open them). */
export interface DashboardViewProps {
  counts: DashboardCounts;
  charts: DashboardCharts;
  links: { lists: boolean; subscribers: boolean; campaigns: boolean };
}

const longDate = new Intl.DateTimeFormat('en', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

/** The tiles, in listmonk's order. */
export function dashboardTiles({ counts, links }: Pick<DashboardViewProps, 'counts' | 'links'>): StatTile[] {
  const byStatus = counts.campaigns.by_status;
  const statuses = [...STATUS_ORDER.filter((s) => s in byStatus), ...Object.keys(byStatus).filter((s) => !STATUS_ORDER.includes(s)).sort()];
  return [
    {
      label: t('globals.terms.lists'), value: counts.lists.total, cy: 'lists', ...(links.lists ? { href: '/admin/lists' } : {}),
      details: [
        { label: t('lists.types.public'), value: counts.lists.public },
        { label: t('lists.types.private'), value: counts.lists.private },
        { label: t('lists.optins.single'), value: counts.lists.optin_single },
        { label: t('lists.optins.double'), value: counts.lists.optin_double },
      ],
    },
    {
      label: t('globals.terms.campaigns'), value: counts.campaigns.total, cy: 'campaigns', ...(links.campaigns ? { href: '/admin/campaigns' } : {}),
      details: statuses.map((s) => ({ label: t(`campaigns.status.${s}`), value: byStatus[s] ?? 0, cy: `campaigns-${s}` })),
    },
    {
      label: t('globals.terms.subscribers'), value: counts.subscribers.total, cy: 'subscribers', ...(links.subscribers ? { href: '/admin/subscribers' } : {}),
      details: [
        { label: t('subscribers.status.blocklisted'), value: counts.subscribers.blocklisted },
        { label: t('dashboard.orphanSubs'), value: counts.subscribers.orphans },
      ],
    },
    { label: t('dashboard.messagesSent'), value: counts.messages, cy: 'messages' },
  ];
}

/** The dashboard's title and content. The heading is the charts' last day (today, UTC). */
export function DashboardView({ counts, charts, links }: DashboardViewProps): { title: string; body: VNode } {
  const today = charts.campaign_views[charts.campaign_views.length - 1]?.date;
  return {
    title: t('menu.dashboard'),
    body: (
      <div class="dashboard">
        <PageHeader title={today ? longDate.format(new Date(`${today}T00:00:00Z`)) : t('menu.dashboard')} />
        <StatTiles tiles={dashboardTiles({ counts, links })} />
        <div class="charts">
          <LineChart id="chart-views" cy="chart-views" caption={t('dashboard.campaignViews')} days={charts.campaign_views} />
          <LineChart id="chart-clicks" cy="chart-clicks" caption={t('dashboard.linkClicks')} days={charts.link_clicks} />
        </div>
        <p class="hint">{t('dashboard.chartsUtc')}</p>
      </div>
    ),
  };
}
