/**
 * Small page parts: the page header (title and actions), the empty state, stat tiles (the dashboard's
 * listmonk tiles), badges and number formatting.
 */
import type { ComponentChildren, VNode } from 'preact';
import { t } from '../i18n.js';

/** The page's heading and its main actions (a "New" button, …). */
export function PageHeader({ title, count, children }: { title: string; count?: number; children?: ComponentChildren }): VNode {
  return (
    <div class="page-header">
      <h1>
        {title}
        {count !== undefined ? <span class="count" data-cy="count"> ({count.toLocaleString('en')})</span> : null}
      </h1>
      {children ? <div class="page-actions">{children}</div> : null}
    </div>
  );
}

/** What a table or section shows when it has nothing (listmonk's `globals.messages.emptyState`). */
export function EmptyState({ message, children }: { message?: string; children?: ComponentChildren }): VNode {
  return (
    <div class="empty-state">
      <svg viewBox="0 0 48 48" width="48" height="48" aria-hidden="true" focusable="false">
        <rect x="6" y="12" width="36" height="26" rx="4" fill="none" stroke="currentColor" stroke-width="2.5" />
        <path d="M6 26h10l3 5h10l3-5h10" fill="none" stroke="currentColor" stroke-width="2.5" stroke-linejoin="round" />
      </svg>
      <p>{message ?? t('globals.messages.emptyState')}</p>
      {children}
    </div>
  );
}

/**
 * A number as the dashboard shows it: thousands separators below 10 000, abbreviated above
 * (`12.35k`, `1.2m`, `3.01b`, at most 2 decimals; listmonk admin UI map §1.2).
 */
export function formatCount(n: number): string {
  const abs = Math.abs(n);
  const units: [number, string][] = [[1e9, 'b'], [1e6, 'm'], [1e4, 'k']];
  for (const [size, suffix] of units) {
    if (abs >= size) {
      const base = size === 1e4 ? 1e3 : size;
      return `${Number((n / base).toFixed(2))}${suffix}`;
    }
  }
  return n.toLocaleString('en');
}

/** One line of a tile's details. */
export interface StatDetail {
  label: string;
  value: number;
  cy?: string;
}

/** One stat tile: a label, a big number (class `title`, as listmonk's tests read it) and details. */
export interface StatTile {
  label: string;
  value: number;
  cy: string;
  href?: string;
  details?: readonly StatDetail[];
}

/** A row of stat tiles. */
export function StatTiles({ tiles }: { tiles: readonly StatTile[] }): VNode {
  return (
    <div class="tiles">
      {tiles.map((tile) => (
        <section class="tile" data-cy={tile.cy} aria-label={tile.label}>
          <h2 class="tile-label">{tile.href ? <a href={tile.href}>{tile.label}</a> : tile.label}</h2>
          <p class="title" title={tile.value.toLocaleString('en')}>{formatCount(tile.value)}</p>
          {tile.details && tile.details.length > 0 ? (
            <dl class="tile-details">
              {tile.details.map((d) => (
                <div>
                  <dt>{d.label}</dt>
                  <dd data-cy={d.cy}>{formatCount(d.value)}</dd>
                </div>
              ))}
            </dl>
          ) : null}
        </section>
      ))}
    </div>
  );
}

/** A small status label (campaign status, user type); `tone` picks its colour class. */
export function Badge({ tone, children }: { tone: string; children: ComponentChildren }): VNode {
  return <span class={`badge badge-${tone}`}>{children}</span>;
}
