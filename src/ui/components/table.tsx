/**
 * A data table (listmonk admin UI map §4.6): sortable header links (`order_by`, `order`; first click
 * ascending, then descending; the active one marked with `aria-sort`), a pager below (up to 10 page
 * numbers, keeping the current query), and optional row checkboxes with "select all on this page" and
 * "select all N matching" (sent as `all=true` with the current filters, offered when there is more
 * than one page). Works as plain links and a plain form; main.js adds the header checkbox behaviour.
 */
import type { ComponentChildren, VNode } from 'preact';
import { t } from '../i18n.js';

/** One column: its key (the `order_by` value when sortable), header, and cell. */
export interface Column<R> {
  key: string;
  label: string;
  sortable?: boolean;
  /** Right-aligned numbers. */
  numeric?: boolean;
  cell: (row: R) => ComponentChildren;
}

/** The current sort. */
export interface SortState {
  by: string;
  order: 'asc' | 'desc';
}

/** The current page: 1-based page number, page size, and the total rows matching. */
export interface Paging {
  page: number;
  perPage: number;
  total: number;
}

/** Row selection for bulk actions. */
export interface Selection<R> {
  /** Id of the <form> the checkboxes belong to (the bulk-action form, which may sit elsewhere). */
  form: string;
  /** The checkbox value for a row (name `id`). */
  value: (row: R) => string | number;
  /** The accessible label of a row's checkbox, e.g. "Select Jane". */
  label: (row: R) => string;
  /** listmonk's `data-cy` of the "select all matching" control (e.g. `select-all-subscribers`). */
  allCy?: string;
  /** The ids currently selected (a re-render after a failed bulk action keeps them). */
  selected?: ReadonlySet<string>;
}

/** Props of {@link Table}. */
export interface TableProps<R> {
  /** What the table lists; read by screen readers as its caption (visually hidden). */
  caption: string;
  columns: readonly Column<R>[];
  rows: readonly R[];
  rowKey: (row: R) => string | number;
  /** The page's path, e.g. `/admin/lists`. */
  path: string;
  /** The current query parameters (filters), kept by sort and page links. */
  query?: Readonly<Record<string, string | undefined>>;
  sort?: SortState;
  paging?: Paging;
  select?: Selection<R>;
  /** Shown instead of the table when there are no rows. */
  empty?: ComponentChildren;
  cy?: string;
}

/** `path?query` with `changes` applied (undefined removes a key); keys sorted for stable URLs. */
export function withQuery(path: string, query: Readonly<Record<string, string | undefined>>, changes: Readonly<Record<string, string | undefined>>): string {
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...query, ...changes })) if (v !== undefined && v !== '') merged[k] = v;
  const qs = new URLSearchParams(Object.entries(merged).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))).toString();
  return qs ? `${path}?${qs}` : path;
}

/** The page numbers to link: at most 10, around the current one. */
export function pageWindow(page: number, pages: number, size = 10): number[] {
  const start = Math.max(1, Math.min(page - Math.floor(size / 2), pages - size + 1));
  const out: number[] = [];
  for (let n = start; n <= Math.min(pages, start + size - 1); n++) out.push(n);
  return out;
}

function SortHeader<R>({ col, p }: { col: Column<R>; p: TableProps<R> }): VNode {
  const active = p.sort?.by === col.key;
  const next = active && p.sort?.order === 'asc' ? 'desc' : 'asc';
  const ariaSort = active ? (p.sort?.order === 'asc' ? 'ascending' : 'descending') : undefined;
  return (
    <th scope="col" aria-sort={ariaSort} class={col.numeric ? 'num' : undefined} data-sorted={active ? p.sort?.order : undefined}>
      {col.sortable ? (
        <a class="sort-link" href={withQuery(p.path, p.query ?? {}, { order_by: col.key, order: next, page: undefined })}>
          {col.label}
          <span class="sort-mark" aria-hidden="true" />
          <span class="visually-hidden">{t(active ? (next === 'asc' ? 'table.sortAscending' : 'table.sortDescending') : 'table.sortAscending')}</span>
        </a>
      ) : (
        col.label
      )}
    </th>
  );
}

/** The pager under a table (nothing when everything fits on one page). */
export function Pager({ path, query, paging }: { path: string; query: Readonly<Record<string, string | undefined>>; paging: Paging }): VNode | null {
  const pages = Math.max(1, Math.ceil(paging.total / paging.perPage));
  if (pages <= 1) return null;
  const link = (n: number) => withQuery(path, query, { page: n === 1 ? undefined : String(n) });
  return (
    <nav class="pager" aria-label={t('table.pages')}>
      {paging.page > 1 ? <a class="pager-step" href={link(paging.page - 1)} rel="prev">{t('table.previous')}</a> : <span class="pager-step" aria-disabled="true">{t('table.previous')}</span>}
      <ul>
        {pageWindow(paging.page, pages).map((n) => (
          <li>
            <a href={link(n)} aria-current={n === paging.page ? 'page' : undefined} aria-label={t('table.pageN', { n })}>{n}</a>
          </li>
        ))}
      </ul>
      {paging.page < pages ? <a class="pager-step" href={link(paging.page + 1)} rel="next">{t('table.next')}</a> : <span class="pager-step" aria-disabled="true">{t('table.next')}</span>}
    </nav>
  );
}

/** The table, its selection controls and its pager; `empty` when there are no rows. */
export function Table<R>(p: TableProps<R>): VNode {
  if (p.rows.length === 0 && p.empty !== undefined) return <>{p.empty}</>;
  const sel = p.select;
  const matching = sel !== undefined && p.paging !== undefined && p.paging.total > p.rows.length;
  return (
    <div class="table-block" data-table>
      {matching && sel ? (
        <div class="select-matching">
          <label>
            <input type="checkbox" name="all" value="true" form={sel.form} data-cy={sel.allCy} data-select-matching />
            {t('table.selectAllMatching', { n: (p.paging as Paging).total.toLocaleString('en') })}
          </label>
        </div>
      ) : null}
      <div class="table-scroll" tabindex={0} role="region" aria-label={p.caption}>
        <table class="table" data-cy={p.cy}>
          <caption class="visually-hidden">{p.caption}</caption>
          <thead>
            <tr>
              {sel ? (
                <th scope="col" class="check">
                  <input type="checkbox" data-select-page aria-label={t('table.selectPage')} />
                </th>
              ) : null}
              {p.columns.map((c) => <SortHeader col={c} p={p} />)}
            </tr>
          </thead>
          <tbody>
            {p.rows.map((r) => (
              <tr key={p.rowKey(r)}>
                {sel ? (
                  <td class="check">
                    <input type="checkbox" name="id" value={String(sel.value(r))} form={sel.form} aria-label={sel.label(r)} data-select-row checked={sel.selected?.has(String(sel.value(r))) || undefined} />
                  </td>
                ) : null}
                {p.columns.map((c) => <td class={c.numeric ? 'num' : undefined} data-label={c.label}>{c.cell(r)}</td>)}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {p.paging ? <Pager path={p.path} query={p.query ?? {}} paging={p.paging} /> : null}
    </div>
  );
}
