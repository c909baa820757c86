/**
 * The dashboard page's view without a server (issue 16; listmonk admin UI map §1.2): the tiles carry
 * listmonk's `data-cy` hooks and numbers, campaign statuses appear only when present, tiles link only
 * to pages the user may open, the charts draw every day and describe themselves in words and as a
 * table, and the markup is CSP-safe.
 */
import { describe, expect, it } from 'vitest';
import { renderToString } from 'preact-render-to-string';
import { DashboardView } from '../../src/modules/dashboard/views/dashboard.js';
import { axisTop, chartPoints, dayLabel } from '../../src/modules/dashboard/views/line-chart.js';
import { chartDates } from '../../src/modules/dashboard/service.js';
import type { DashboardCharts, DashboardCounts } from '../../src/modules/dashboard/schemas.js';
import { expectCspSafe } from '../helpers/ui.js';

const counts: DashboardCounts = {
  subscribers: { total: 1_234_567, blocklisted: 12, orphans: 3 },
  lists: { total: 2, private: 1, public: 1, optin_single: 1, optin_double: 1 },
  campaigns: { total: 4, by_status: { draft: 1, finished: 2, running: 1 } },
  messages: 9_876,
};
const dates = chartDates(new Date('2024-03-01T10:00:00Z'));
const charts: DashboardCharts = {
  campaign_views: dates.map((date, i) => ({ date, count: i === 29 ? 40 : i === 10 ? 7 : 0 })),
  link_clicks: dates.map((date) => ({ date, count: 0 })),
};
const allLinks = { lists: true, subscribers: true, campaigns: true };

/** The element of `html` carrying `data-cy="<cy>"`, from its start tag to the first matching end tag. */
function section(html: string, cy: string): string {
  const start = html.indexOf(`data-cy="${cy}"`);
  expect(start, cy).toBeGreaterThan(-1);
  const open = html.lastIndexOf('<', start);
  const tag = /^<(\w+)/u.exec(html.slice(open))![1]!;
  return html.slice(open, html.indexOf(`</${tag}>`, start) + tag.length + 3);
}

describe('DashboardView', () => {
  const v = DashboardView({ counts, charts, links: allLinks });
  const html = renderToString(v.body);

  it('shows the tiles with listmonk\'s hooks and numbers', () => {
    expect(v.title).toBe('Dashboard');
    expect(html).toContain('Friday, March 1, 2024');
    const lists = section(html, 'lists');
    expect(lists).toMatch(/class="title"[^>]*>2</u);
    for (const label of ['Public', 'Private', 'Single opt-in', 'Double opt-in']) expect(lists).toContain(label);
    expect(section(html, 'campaigns')).toMatch(/class="title"[^>]*>4</u);
    expect(section(html, 'campaigns-running')).toContain('>1<');
    expect(section(html, 'campaigns-finished')).toContain('>2<');
    expect(section(html, 'campaigns-draft')).toContain('>1<');
    expect(html).not.toContain('campaigns-paused');
    const subs = section(html, 'subscribers');
    expect(subs).toMatch(/class="title" title="1,234,567">1.23m</u);
    expect(subs).toContain('Blocklisted');
    expect(subs).toContain('Orphans');
    expect(section(html, 'messages')).toMatch(/class="title"[^>]*>9,876</u);
  });

  it('links a tile only to a page the user may open', () => {
    expect(html).toContain('href="/admin/subscribers"');
    expect(html).toContain('href="/admin/campaigns"');
    const limited = renderToString(DashboardView({ counts, charts, links: { lists: true, subscribers: false, campaigns: false } }).body);
    expect(limited).toContain('href="/admin/lists"');
    expect(limited).not.toContain('href="/admin/subscribers"');
    expect(limited).not.toContain('href="/admin/campaigns"');
  });

  it('draws both charts with a point per day, a summary in words and a table of the numbers', () => {
    const views = section(html, 'chart-views');
    expect(views).toContain('<figcaption id="chart-views-caption">Campaign views</figcaption>');
    expect(views.match(/<circle /gu)).toHaveLength(30);
    expect(views).toContain('role="img"');
    expect(views).toContain('47 in the 30 days from 2024-02-01 to 2024-03-01 (UTC); most on 2024-03-01: 40.');
    expect(views).toContain('<title>01 Mar: 40</title>');
    expect(views.match(/<tr><td>/gu)).toHaveLength(30);
    expect(views).toContain('<tr><td>2024-02-11</td><td>7</td></tr>');
    const clicks = section(html, 'chart-clicks');
    expect(clicks).toContain('None in the 30 days from 2024-02-01 to 2024-03-01 (UTC).');
  });

  it('is CSP-safe: no inline script or style', () => {
    expectCspSafe(html);
  });
});

describe('chart geometry', () => {
  it('tops the axis at a round number at or above the largest count', () => {
    expect([0, 1, 3, 7, 10, 11, 40, 230, 999, 1001].map(axisTop)).toEqual([1, 1, 5, 10, 10, 20, 50, 250, 1000, 2000]);
  });

  it('spreads the days from left to right and puts a count of 0 on the baseline and the top count at the top', () => {
    const pts = chartPoints([{ date: '2024-01-01', count: 0 }, { date: '2024-01-02', count: 5 }, { date: '2024-01-03', count: 10 }], 10);
    expect(pts[0]).toEqual([44, 192]);
    expect(pts[1]).toEqual([336, 102]);
    expect(pts[2]).toEqual([628, 12]);
  });

  it('labels days as listmonk does (DD MMM), in UTC', () => {
    expect(dayLabel('2024-02-29')).toBe('29 Feb');
    expect(dayLabel('2024-03-01')).toBe('01 Mar');
  });
});
