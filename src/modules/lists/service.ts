/**
 * Rules for lists (spec 4.2, reference §5): names 1–2,000 characters, tags normalised as listmonk does
 * (runs of whitespace → `-`, trimmed, duplicates dropped), unknown ids are 404.
 */
import { FieldError, NotFoundError } from '../../errors.js';
import { pageRequest, pageResult, sortDirection } from '../../http/pagination.js';
import type { Queryable } from '../../db/db.js';
import type { Principal } from '../../http/access.js';
import { listReadScope, requireListAccess } from '../../http/list-scope.js';
import type { ListRepo } from './repo.js';
import type { List, ListCreate, ListQuery, ListUpdate } from './schemas.js';

const ORDER_COLUMNS: Record<string, string> = {
  id: 'l.id',
  name: 'lower(l.name)',
  type: 'l.type',
  optin: 'l.optin',
  status: 'l.status',
  created_at: 'l.created_at',
  updated_at: 'l.updated_at',
  subscriber_count: 'subscriber_count',
};

/** Normalises tags: trims, replaces whitespace runs with `-`, drops empties and duplicates (listmonk). */
export function normaliseTags(tags: string[]): string[] {
  const out: string[] = [];
  for (const tag of tags) {
    const t = tag.trim().replace(/\s+/gu, '-');
    if (t !== '' && !out.includes(t)) out.push(t);
  }
  return out;
}

/** A trimmed list name; FieldError when it is blank. */
function listName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw new FieldError('name', 'must not be blank');
  return trimmed;
}

/** Escapes LIKE wildcards so a search term matches literally; lower-cases it. */
export function likeTerm(term: string): string {
  return term.trim().toLowerCase().replace(/[\\%_]/gu, (c) => `\\${c}`);
}

/** A campaign paused because a list it was sending to was deleted. */
export interface CampaignPausedByDeletion {
  id: number;
  name: string;
  status_reason: string;
}

/** What list deletion needs from the delivery engine. */
export interface ListDeletionHooks {
  /**
   * Runs in the deleting transaction before the lists go: pauses the running campaigns that target
   * them and returns those (src/workers/campaign-store.ts, issue 14 finding 10).
   */
  pauseCampaigns: (q: Queryable, listIds: number[]) => Promise<CampaignPausedByDeletion[]>;
  /** Told after the deletion committed, when it paused campaigns (admin notification). */
  onPaused: (paused: CampaignPausedByDeletion[]) => void;
}

/** Lists use cases. */
export class ListService {
  constructor(
    private readonly repo: ListRepo,
    private readonly deletion: ListDeletionHooks = { pauseCampaigns: async () => [], onPaused: () => undefined },
  ) {}

  /**
   * Searches lists by name and filters, paginated (GET /api/lists): only the lists `principal` may
   * read (all without one, or with `lists:get_all` / `lists:manage_all`; listmonk GetPermittedLists).
   */
  async query(q: ListQuery, principal?: Principal) {
    const filter = {
      search: likeTerm(q.query ?? ''),
      type: q.type ?? '',
      optin: q.optin ?? '',
      status: q.status ?? '',
      tags: q.tag ?? [],
      scope: listReadScope(principal),
    };
    if (q.minimal === true) {
      const { rows, total } = await this.repo.query(filter, 'l.id ASC', null, 0);
      return { results: rows, total, per_page: total, page: 1 };
    }
    const page = pageRequest(q);
    const column = ORDER_COLUMNS[q.order_by ?? 'created_at'] ?? 'l.created_at';
    const order = `${column} ${sortDirection(q.order, 'DESC')}, l.id ${sortDirection(q.order, 'DESC')}`;
    const { rows, total } = await this.repo.query(filter, order, page.limit, page.offset);
    return pageResult(rows, total, page);
  }

  /**
   * One list; ForbiddenError (403 `permission denied`) when `principal` may not read it (checked first,
   * as listmonk's HasListPerm), NotFoundError when unknown.
   */
  async get(id: number, principal?: Principal): Promise<List> {
    requireListAccess(principal, 'list:get', [id]);
    const list = await this.repo.get(id);
    if (list === null) throw new NotFoundError(`list ${id} not found`);
    return list;
  }

  /** Creates a list and returns it. */
  async create(input: ListCreate): Promise<List> {
    const id = await this.repo.insert({
      name: listName(input.name),
      type: input.type ?? 'private',
      optin: input.optin ?? 'single',
      status: input.status ?? 'active',
      tags: normaliseTags(input.tags ?? []),
      description: input.description ?? '',
    });
    return this.get(id);
  }

  /**
   * Updates the fields given; omitted fields keep their values. ForbiddenError without `list:manage`
   * on it (or `lists:manage_all`); NotFoundError when unknown.
   */
  async update(id: number, input: ListUpdate, principal?: Principal): Promise<List> {
    requireListAccess(principal, 'list:manage', [id]);
    const fields = {
      ...input,
      name: input.name === undefined ? null : listName(input.name),
      tags: input.tags === undefined ? null : normaliseTags(input.tags),
    };
    if (!(await this.repo.update(id, fields))) throw new NotFoundError(`list ${id} not found`);
    return this.get(id);
  }

  /**
   * Deletes one list; NotFoundError when unknown (listmonk answers true regardless). Running campaigns
   * sending to it are paused with a reason naming it (see {@link ListDeletionHooks}). ForbiddenError
   * without `list:manage` on it (or `lists:manage_all`).
   */
  async delete(id: number, principal?: Principal): Promise<void> {
    requireListAccess(principal, 'list:manage', [id]);
    const deleted = await this.deleteLists([id]);
    if (deleted === 0) throw new NotFoundError(`list ${id} not found`);
  }

  /**
   * Deletes several lists by id; unknown ids are ignored. Returns how many were deleted. ForbiddenError
   * (nothing deleted) when `principal` may not manage one of them (listmonk DeleteLists).
   */
  async deleteMany(ids: number[], principal?: Principal): Promise<number> {
    requireListAccess(principal, 'list:manage', ids);
    return this.deleteLists(ids);
  }

  private async deleteLists(ids: number[]): Promise<number> {
    const { deleted, before: paused } = await this.repo.delete(ids, (q) => this.deletion.pauseCampaigns(q, ids));
    if (paused.length > 0) this.deletion.onPaused(paused);
    return deleted.length;
  }
}
