/**
 * Finding subscribers by filter: the `query` SQL expression (through the segmentation guard), the
 * `search` substring, list membership (any of several lists, with a subscription status) and, for the
 * CSV export, chosen ids. Every statement runs in the guard's read-only transaction with the statement
 * timeout (setting `app.subscriber_query_timeout`), whether or not an expression is given, so a slow
 * search is cut off like a slow expression. Totals come from maintained counts when the filter allows
 * (no expression or search; at most one list). On PGlite, which cannot interrupt a statement, an
 * expression is first evaluated in steps over id ranges (src/segmentation/stepped.ts, issue 14
 * finding 3) and the real statement then runs over the matched ids.
 * Source: issue 3 §1, §2, §6; reference §4.2, §4.8, §14.
 */
import type { Db, Queryable as DbQueryable } from '../../db/db.js';
import { loadQueries, positionalParams, withOrder, type NamedQuery } from '../../db/queries.js';
import { BadRequestError, FieldError } from '../../errors.js';
import {
  compileMatchedIds, compileSubscriberQuery, embedQuery, guardedTx, limitsForStore, QueryRefusedError, steppedIds,
  type CompiledQuery, type Queryable, type TxRunner,
} from '../../segmentation/index.js';
import { likeTerm } from '../lists/service.js';
import type { SubscriberRow } from './repo.js';

const Q = loadQueries(new URL('./filter.sql', import.meta.url), [
  'filter-page',
  'filter-page-in-lists',
  'filter-count',
  'filter-count-in-lists',
  'filter-ids',
  'filter-ids-in-lists',
  'filter-ids-range',
  'filter-ids-range-in-lists',
  'max-id',
  'total-all',
  'total-one-list',
]);

/** A filter as the API receives it (GET query string or bulk body). */
export interface FilterInput {
  query?: string | undefined;
  search?: string | undefined;
  listIds?: number[] | undefined;
  subscriptionStatus?: string | undefined;
  /** Only these subscribers (CSV export by id); empty or absent for any. */
  ids?: number[] | undefined;
  /**
   * Only subscribers with a membership of one of these lists: those the user may see
   * (src/http/list-scope.ts `subscriberScope`); null or absent for no bound, empty for none.
   */
  scope?: number[] | null | undefined;
}

/** A validated filter, ready to run. */
export interface SubscriberFilter {
  /** The compiled `query` expression, or null for none. */
  compiled: CompiledQuery | null;
  /** The normalised `query` text to echo ('' when none). */
  queryText: string;
  /** The trimmed `search` to echo. */
  searchText: string;
  params: { search: string; list_ids: number[]; subscription_status: string; ids: number[] };
}

/** Adapts Mailroom's Db to the guard's transaction runner. */
export function guardRunner(db: Db): TxRunner {
  return { tx: (fn, opts) => db.tx((q) => fn(adapt(q)), opts) };
}

/** Mailroom's Queryable as the guard's. */
const adapt = (q: DbQueryable): Queryable => ({ query: <R>(text: string, params?: unknown[]) => q.sql<R>(text, params) });

/** Runs subscriber filters through the guard. */
export class SubscriberFinder {
  private readonly runner: TxRunner;

  constructor(
    private readonly db: Db,
    private readonly timeoutMs: () => number,
  ) {
    this.runner = guardRunner(db);
  }

  /**
   * Validates a filter: compiles `query` (QueryRefusedError, a 400 naming `query`, when refused).
   * `subscription_status` applies only together with lists (reference §4.2).
   *
   * A `scope` (the lists a user may see, issue 16) becomes the statements' list filter, as listmonk's
   * GetPermittedListIDs makes it the `list_id` filter: given list ids are cut down to the scope, and
   * without any the scope itself is the filter; an empty result is id -1 (nothing matches). The
   * expression is still compiled for the lists the request gave: compiled without a list filter it
   * names only `subscribers` columns (qualified), so inside the membership EXISTS it means the same
   * (EXISTS(m: in scope AND P(s)) = EXISTS(m: in scope) AND P(s)). The EXISTS is a semi-join on
   * subscriber_lists (primary key or subscriber_lists_list_idx), and a scope of one list keeps the
   * maintained total.
   */
  async prepare(input: FilterInput): Promise<SubscriberFilter> {
    const given = [...new Set(input.listIds ?? [])];
    const compiled = await compileSubscriberQuery(input.query ?? '', { listFilter: given.length > 0, limits: limitsForStore(this.db.kind) });
    const searchText = (input.search ?? '').trim();
    const scope = input.scope ?? null;
    let listIds = given;
    if (scope !== null) {
      listIds = given.length > 0 ? given.filter((id) => scope.includes(id)) : [...scope];
      if (listIds.length === 0) listIds = [-1];
    }
    return {
      compiled,
      queryText: compiled?.text ?? '',
      searchText,
      params: {
        search: likeTerm(searchText),
        list_ids: listIds,
        subscription_status: given.length > 0 ? (input.subscriptionStatus ?? '') : '',
        ids: [...new Set(input.ids ?? [])],
      },
    };
  }

  /**
   * Reads one page (`order` from an allow-list) and the total number of matches, handing the page to `visit` in batches of at most `batchRows` rows,
   * in one guarded transaction: the total first (so an expression's error is a 400 before any row is
   * sent), then the rows, through a cursor (`DECLARE … NO SCROLL CURSOR` and one `FETCH` per batch,
   * each under the statement timeout) when the page may hold more than a batch. Memory holds one batch
   * whatever the page size (issue 14 finding 9, issue 15 item 4). `visit` gets each batch with the
   * total and the transaction (to read more in it, e.g. memberships) and is awaited before the next
   * batch is read; it is called at least once (with no rows for an empty page), and the last call has
   * fewer than `batchRows` rows. Errors from `visit` end the read and are re-thrown.
   */
  async scan(
    filter: SubscriberFilter,
    order: string,
    limit: number | null,
    offset: number,
    batchRows: number,
    visit: (rows: SubscriberRow[], total: number, tx: DbQueryable) => Promise<void>,
  ): Promise<void> {
    const f = this.stepped(filter) ? await this.resolved(filter, 0) : filter;
    const inLists = f.params.list_ids.length > 0;
    const page = this.statement(withOrder(inLists ? Q['filter-page-in-lists'] : Q['filter-page'], order), f, { limit, offset, after_id: 0 });
    const count = this.countStatement(f);
    let open: DbQueryable | null = null;
    const runner: TxRunner = {
      tx: (fn, opts) =>
        this.db.tx((q) => {
          open = q;
          return fn(adapt(q));
        }, opts),
    };
    await this.guarded(f, async (q) => {
      const tx = open!;
      const [row] = await q.query<{ total: number }>(count.text, count.values);
      const total = row?.total ?? 0;
      if (limit !== null && limit <= batchRows) return visit(await q.query<SubscriberRow>(page.text, page.values), total, tx);
      await q.query(`DECLARE subscriber_page NO SCROLL CURSOR FOR ${page.text}`, page.values);
      for (;;) {
        const rows = await q.query<SubscriberRow>(`FETCH FORWARD ${batchRows} FROM subscriber_page`);
        await visit(rows, total, tx);
        if (rows.length < batchRows) return;
      }
    }, runner);
  }

  /** Up to `limit` matches with ids above `afterId`, in id order (CSV export batches). */
  async batch(filter: SubscriberFilter, afterId: number, limit: number): Promise<SubscriberRow[]> {
    const f = this.stepped(filter) ? await this.resolved(filter, afterId, limit) : filter;
    const inLists = f.params.list_ids.length > 0;
    const s = this.statement(withOrder(inLists ? Q['filter-page-in-lists'] : Q['filter-page'], 'subscribers.id ASC'), f, { limit, offset: 0, after_id: afterId });
    return this.guarded(f, (q) => q.query<SubscriberRow>(s.text, s.values));
  }

  /** The ids of every match, ascending (the read-only step of bulk writes). */
  async ids(f: SubscriberFilter): Promise<number[]> {
    if (this.stepped(f)) return this.matchedIds(f, 0);
    const s = this.statement(f.params.list_ids.length > 0 ? Q['filter-ids-in-lists'] : Q['filter-ids'], f, {});
    const rows = await this.guarded(f, (q) => q.query<{ id: number }>(s.text, s.values));
    return rows.map((r) => r.id);
  }

  /** Whether `f` is evaluated in steps: an expression on a store that cannot interrupt a statement. */
  private stepped(f: SubscriberFilter): boolean {
    return this.db.kind === 'pglite' && f.compiled !== null;
  }

  /**
   * The ids above `afterId` that match `f` (every condition applied), ascending, evaluated in steps;
   * with `stopAfter`, at least that many when there are (possibly a few more). Throws
   * QueryRefusedError (timeout) past the statement timeout.
   */
  private async matchedIds(f: SubscriberFilter, afterId: number, stopAfter?: number): Promise<number[]> {
    const q = f.params.list_ids.length > 0 ? Q['filter-ids-range-in-lists'] : Q['filter-ids-range'];
    const text = embedQuery(q.text, f.compiled);
    const [top] = await this.db.run<{ max: number }>(Q['max-id']);
    const run = await steppedIds(this.runner, {
      timeoutMs: this.timeoutMs(),
      afterId,
      maxId: top?.max ?? 0,
      ...(stopAfter === undefined ? {} : { stopAfter }),
      step: async (tx, lo, hi) => (await tx.query<{ id: number }>(text, positionalParams(q, { ...f.params, lo, hi }))).map((r) => r.id),
    });
    return run.ids;
  }

  /** `f` with its expression replaced by the ids it matched (stepped evaluation). */
  private async resolved(f: SubscriberFilter, afterId: number, stopAfter?: number): Promise<SubscriberFilter> {
    return { ...f, compiled: compileMatchedIds(await this.matchedIds(f, afterId, stopAfter)) };
  }

  private countStatement(f: SubscriberFilter): { text: string; values: unknown[] } {
    const simple = f.compiled === null && f.params.search === '' && f.params.ids.length === 0;
    if (simple && f.params.list_ids.length === 0) return { text: Q['total-all'].text, values: [] };
    if (simple && f.params.list_ids.length === 1) {
      const q = Q['total-one-list'];
      return { text: q.text, values: positionalParams(q, { list_id: f.params.list_ids[0], subscription_status: f.params.subscription_status }) };
    }
    return this.statement(f.params.list_ids.length > 0 ? Q['filter-count-in-lists'] : Q['filter-count'], f, {});
  }

  private statement(q: NamedQuery, f: SubscriberFilter, extra: object): { text: string; values: unknown[] } {
    return { text: embedQuery(q.text, f.compiled), values: positionalParams(q, { ...f.params, ...extra }) };
  }

  /** Runs `fn` guarded; a refusal caused by `search` alone is reported on `search`. */
  private async guarded<T>(f: SubscriberFilter, fn: (q: Queryable) => Promise<T>, runner = this.runner): Promise<T> {
    try {
      return await guardedTx(runner, { timeoutMs: this.timeoutMs() }, fn);
    } catch (err) {
      if (err instanceof QueryRefusedError && f.compiled === null) {
        if (f.searchText !== '') throw new FieldError('search', `the search took longer than ${this.timeoutMs()} ms; make it more specific`);
        throw new BadRequestError(`the request took longer than ${this.timeoutMs()} ms; narrow it with filters or ask for an earlier page`);
      }
      throw err;
    }
  }
}
