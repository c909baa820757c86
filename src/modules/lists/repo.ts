/**
 * SQL access for lists. Rows come back in API shape (spec 2 "List").
 */
import type { Db, Queryable } from '../../db/db.js';
import { loadQueries, withOrder } from '../../db/queries.js';
import type { List } from './schemas.js';

const Q = loadQueries(new URL('./queries.sql', import.meta.url), [
  'list-query',
  'list-count',
  'list-get',
  'list-insert',
  'list-update',
  'list-delete',
  'list-get-many',
]);

/**
 * Filters of a list search. Empty strings mean "any". `search` is lower-cased and LIKE-escaped.
 * `scope`: only these list ids (the lists the user may read; null for all, src/http/list-scope.ts).
 */
export interface ListFilter {
  search: string;
  type: string;
  optin: string;
  status: string;
  tags: string[];
  scope: number[] | null;
}

/** Fields of a new list. */
export interface NewList {
  name: string;
  type: string;
  optin: string;
  status: string;
  tags: string[];
  description: string;
}

/** A short reference to a list, as campaigns and subscriptions need it. */
export interface ListRef {
  id: number;
  uuid: string;
  name: string;
  type: string;
  optin: string;
}

/** Lists table access. */
export class ListRepo {
  constructor(private readonly db: Db) {}

  /** One page of lists and the total number of matches. `order` is an allow-listed ORDER BY expression. */
  async query(filter: ListFilter, order: string, limit: number | null, offset: number): Promise<{ rows: List[]; total: number }> {
    const params = { ...filter, limit, offset };
    const rows = await this.db.run<List & { total: number }>(withOrder(Q['list-query'], order), params);
    if (rows.length > 0) return { rows: rows.map(({ total: _t, ...list }) => list), total: rows[0]!.total };
    const [count] = await this.db.run<{ total: number }>(Q['list-count'], filter);
    return { rows: [], total: count?.total ?? 0 };
  }

  /** The list with this id, or null. */
  async get(id: number, q: Queryable = this.db): Promise<List | null> {
    const [row] = await q.run<List>(Q['list-get'], { id });
    return row ?? null;
  }

  /** Inserts a list and returns its id. */
  async insert(list: NewList): Promise<number> {
    const [row] = await this.db.run<{ id: number }>(Q['list-insert'], { ...list });
    return row!.id;
  }

  /** Updates the given fields (null keeps the stored value); false when the list does not exist. */
  async update(id: number, fields: Partial<Record<keyof NewList, unknown>>): Promise<boolean> {
    const params = { id, name: null, type: null, optin: null, status: null, tags: null, description: null, ...fields };
    const rows = await this.db.run(Q['list-update'], params);
    return rows.length > 0;
  }

  /**
   * Deletes lists by id in one transaction, after `before` ran in it (the delivery engine pauses the
   * campaigns sending to them); returns the ids that existed and what `before` returned.
   */
  async delete<T>(ids: number[], before: (q: Queryable) => Promise<T>): Promise<{ deleted: number[]; before: T }> {
    return this.db.tx(async (q) => {
      const result = await before(q);
      const rows = await q.run<{ id: number }>(Q['list-delete'], { ids });
      return { deleted: rows.map((r) => r.id), before: result };
    });
  }

  /** The existing lists among `ids`, ordered by id. */
  async getMany(ids: number[], q: Queryable = this.db): Promise<ListRef[]> {
    if (ids.length === 0) return [];
    return q.run<ListRef>(Q['list-get-many'], { ids });
  }
}
