/**
 * A line chart of one count per day, drawn on the server as SVG (no script, no inline style: the admin
 * CSP allows neither), with its numbers also as a table for screen readers and keyboard users.
 * Pure: props in, markup out. Colours come from the stylesheet (`.chart`), which follows light/dark.
 */
import type { VNode } from 'preact';
import { t } from '../../../ui/i18n.js';
import { formatCount } from '../../../ui/components/misc.js';
import type { ChartDay } from '../schemas.js';

/** Size of the drawing in SVG user units (it scales to the width of its box). */
const W = 640;
const H = 220;
const PAD = { left: 44, right: 12, top: 12, bottom: 28 };

const shortDate = new Intl.DateTimeFormat('en-GB', { day: '2-digit', month: 'short', timeZone: 'UTC' });

/** `2024-02-29` → `29 Feb` (listmonk's chart labels, `DD MMM`). */
export function dayLabel(date: string): string {
  return shortDate.format(new Date(`${date}T00:00:00Z`));
}

/** The smallest of 1, 2, 2.5, 5 × 10ⁿ that is ≥ `max` (at least 1): the top of the y axis. */
export function axisTop(max: number): number {
  if (max <= 1) return 1;
  const mag = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * mag >= max) return step * mag;
  return 10 * mag;
}

/** The points of `days` in the drawing: x from left to right, y up from the bottom, 2 decimals. */
export function chartPoints(days: readonly ChartDay[], top = axisTop(Math.max(0, ...days.map((d) => d.count)))): Array<[number, number]> {
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const step = days.length > 1 ? innerW / (days.length - 1) : 0;
  const round = (n: number) => Math.round(n * 100) / 100;
  return days.map((d, i) => [round(PAD.left + i * step), round(PAD.top + innerH - (d.count / top) * innerH)]);
}

/** Props of {@link LineChart}: an id for its labels, its caption, and the days (oldest first). */
export interface LineChartProps {
  id: string;
  caption: string;
  days: readonly ChartDay[];
  /** listmonk-style `data-cy` of the figure. */
  cy: string;
}

function summary(days: readonly ChartDay[]): string {
  const from = days[0]?.date ?? '';
  const to = days[days.length - 1]?.date ?? '';
  const total = days.reduce((n, d) => n + d.count, 0);
  if (total === 0) return t('dashboard.chartEmpty', { from, to });
  const peak = days.reduce((best, d) => (d.count > best.count ? d : best), days[0]!);
  return t('dashboard.chartSummary', { total: total.toLocaleString('en'), from, to, peak: peak.count.toLocaleString('en'), peakDate: peak.date });
}

/** The chart: caption, SVG (described by a one-sentence summary) and a table of every day. */
export function LineChart({ id, caption, days, cy }: LineChartProps): VNode {
  const top = axisTop(Math.max(0, ...days.map((d) => d.count)));
  const points = chartPoints(days, top);
  const line = points.map(([x, y]) => `${x},${y}`).join(' ');
  const base = H - PAD.bottom;
  const area = points.length > 0 ? `M${points[0]![0]},${base} L${line.replace(/ /gu, ' L')} L${points[points.length - 1]![0]},${base} Z` : '';
  // Counts are whole numbers: a half-way line only where it falls on one.
  const ticks = [0, top / 2, top].filter((v) => Number.isInteger(v));
  const yOf = (v: number) => PAD.top + (H - PAD.top - PAD.bottom) * (1 - v / top);
  return (
    <figure class="chart" data-cy={cy} aria-labelledby={`${id}-caption`}>
      <figcaption id={`${id}-caption`}>{caption}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-caption ${id}-desc`} focusable="false">
        <desc id={`${id}-desc`}>{summary(days)}</desc>
        <g class="chart-grid" aria-hidden="true">
          {ticks.map((v) => (
            <g>
              <line x1={PAD.left} x2={W - PAD.right} y1={yOf(v)} y2={yOf(v)} />
              <text x={PAD.left - 6} y={yOf(v) + 4} text-anchor="end">{formatCount(v)}</text>
            </g>
          ))}
          {days.map((d, i) => (i % 7 === (days.length - 1) % 7 ? <text x={points[i]![0]} y={H - 8} text-anchor="middle">{dayLabel(d.date)}</text> : null))}
        </g>
        <path class="chart-area" d={area} aria-hidden="true" />
        <polyline class="chart-line" points={line} aria-hidden="true" />
        {points.map(([x, y], i) => (
          <circle class="chart-point" cx={x} cy={y} r="3">
            <title>{`${dayLabel(days[i]!.date)}: ${days[i]!.count.toLocaleString('en')}`}</title>
          </circle>
        ))}
      </svg>
      <details class="chart-data">
        <summary>{t('dashboard.chartTable')}</summary>
        <table>
          <thead>
            <tr><th scope="col">{t('dashboard.date')}</th><th scope="col">{caption}</th></tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr><td>{d.date}</td><td>{d.count.toLocaleString('en')}</td></tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
