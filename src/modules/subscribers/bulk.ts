/**
 * Changes to many subscribers at once (spec 4.1, reference §4.6–4.9, issue 3 §1): blocklisting by id,
 * membership changes by id (`add`, `remove`, `unsubscribe`), and delete / blocklist / membership
 * changes by filter (`query`, `search`, `list_ids`, `subscription_status`, `all`).
 *
 * By-filter operations never run the user's expression in a read-write transaction: the matching ids
 * are resolved first in the guard's read-only step (with its timeout), then written by id with
 * ordinary statements in one transaction. Subscribers that start matching between the two steps are
 * not included. An empty filter (no `query`, no `search`) needs `"all": true`; several `list_ids`
 * mean "in any of them".
 *
 * Every operation takes the request's principal (issue 16, listmonk cmd/subscribers.go): subscribers
 * named by id must be visible to it (403 `Permission denied: subscriber: <id>`, nothing changed),
 * filters are bounded to the subscribers it may see, and target lists are cut down to those it
 * manages (403 `Permission denied: lists` when none is left).
 */
import type { Db } from '../../db/db.js';
import type { Principal } from '../../http/access.js';
import { manageableLists, subscriberScope } from '../../http/list-scope.js';
import { FieldError, NotFoundError } from '../../errors.js';
import type { ListRepo } from '../lists/repo.js';
import type { SubscriberFinder } from './filter.js';
import type { SubscriberRepo, WrittenMembership } from './repo.js';
import type { MembershipChange, QueryListsBody, QueryTargetBody } from './schemas.js';
import { knownLists, needsOptin, requireSubscribers } from './service.js';
import { txWithRetry } from './retry.js';

/** Collaborators of the bulk service. */
export interface BulkServiceDeps {
  db: Db;
  repo: SubscriberRepo;
  lists: ListRepo;
  finder: SubscriberFinder;
  /** Queues the automatic opt-in e-mail (when the setting allows it). */
  requestOptin: (subscriberId: number) => void;
}

/** Bulk subscriber use cases. */
export class SubscriberBulkService {
  constructor(private readonly deps: BulkServiceDeps) {}

  /** Blocklists one subscriber (status and every membership); NotFoundError when unknown. */
  async blocklistOne(id: number, principal?: Principal): Promise<void> {
    await requireSubscribers(this.deps.repo, principal, [id]);
    const found = await txWithRetry(this.deps.db, (tx) => this.deps.repo.blocklist([id], tx));
    if (found.length === 0) throw new NotFoundError(`subscriber ${id} not found`);
  }

  /** Blocklists several subscribers by id; unknown ids are ignored. */
  async blocklistMany(ids: number[], principal?: Principal): Promise<void> {
    await requireSubscribers(this.deps.repo, principal, ids);
    await txWithRetry(this.deps.db, (tx) => this.deps.repo.blocklist([...new Set(ids)], tx));
  }

  /** `PUT /api/subscribers/lists/:id`: one subscriber's memberships; NotFoundError when unknown. */
  async changeListsOne(id: number, change: MembershipChange, principal?: Principal): Promise<void> {
    if ((await this.deps.repo.existing([id])).length === 0) throw new NotFoundError(`subscriber ${id} not found`);
    await this.changeLists([id], change, true, principal);
  }

  /**
   * Applies a membership change to subscribers `ids` (unknown ones ignored) in one transaction:
   * `add` upserts with `status` (without one, as listmonk: new memberships `unconfirmed`, existing
   * ones unchanged; reference §4.7), `remove` deletes, `unsubscribe` marks unsubscribed. Unknown
   * target lists are a FieldError. With `optin`, subscribers left with new unconfirmed memberships of
   * double opt-in lists get the opt-in e-mail. Bounded by `principal` (see the module comment).
   */
  async changeLists(ids: number[], change: MembershipChange, optin = true, principal?: Principal): Promise<void> {
    const unique = [...new Set(ids)].sort((a, b) => a - b);
    await requireSubscribers(this.deps.repo, principal, unique);
    await this.apply(unique, { ...change, target_list_ids: manageableLists(principal, [...new Set(change.target_list_ids)]) }, optin);
  }

  /** {@link changeLists} without the access checks: `unique` sorted ids, targets already allowed. */
  private async apply(unique: number[], change: MembershipChange, optin: boolean): Promise<void> {
    const listIds = [...new Set(change.target_list_ids)];
    const { written, lists } = await txWithRetry(this.deps.db, async (tx) => {
      const lists = await knownLists(this.deps.lists, listIds, 'target_list_ids', tx);
      let written: WrittenMembership[] = [];
      if (change.action === 'add') written = await this.deps.repo.upsertSubscriptions(unique, listIds, change.status ?? null, tx);
      else if (change.action === 'remove') await this.deps.repo.removeSubscriptions(unique, listIds, tx);
      else await this.deps.repo.unsubscribe(unique, listIds, tx);
      return { written, lists };
    });
    if (!optin) return;
    const bySubscriber = new Map<number, WrittenMembership[]>();
    for (const m of written) bySubscriber.set(m.subscriber_id ?? 0, [...(bySubscriber.get(m.subscriber_id ?? 0) ?? []), m]);
    for (const [id, rows] of bySubscriber) if (needsOptin(rows, lists)) this.deps.requestOptin(id);
  }

  /** POST /api/subscribers/query/delete: deletes every match (among those `principal` may see). */
  async deleteByQuery(body: QueryTargetBody, principal?: Principal): Promise<void> {
    const ids = await this.resolve(body, principal);
    await txWithRetry(this.deps.db, (tx) => this.deps.repo.delete(ids, tx));
  }

  /** PUT /api/subscribers/query/blocklist: blocklists every match (among those `principal` may see). */
  async blocklistByQuery(body: QueryTargetBody, principal?: Principal): Promise<void> {
    const ids = await this.resolve(body, principal);
    await txWithRetry(this.deps.db, (tx) => this.deps.repo.blocklist(ids, tx));
  }

  /**
   * PUT /api/subscribers/query/lists: applies the membership change to every match. Opt-in e-mails are
   * not sent from here (a filter can match millions; use an opt-in campaign, as listmonk does).
   * Bounded by `principal`: matches among the subscribers it may see, target lists it manages.
   */
  async changeListsByQuery(body: QueryListsBody, principal?: Principal): Promise<void> {
    const targets = manageableLists(principal, [...new Set(body.target_list_ids)]);
    await knownLists(this.deps.lists, targets, 'target_list_ids', this.deps.db);
    const ids = await this.resolve(body, principal);
    await this.apply(ids, { ...body, target_list_ids: targets }, false);
  }

  /**
   * The ids matching a bulk filter, resolved in the guarded read-only step. FieldError (`query`) when
   * the filter is empty without `"all": true`; QueryRefusedError when the expression is refused.
   * Only subscribers `principal` may see match (`all` too).
   */
  private async resolve(body: QueryTargetBody, principal?: Principal): Promise<number[]> {
    const filter = await this.deps.finder.prepare({
      query: body.query,
      search: body.search,
      listIds: body.list_ids,
      subscriptionStatus: body.subscription_status,
      scope: subscriberScope(principal),
    });
    if (filter.compiled === null && filter.searchText === '' && body.all !== true) {
      throw new FieldError('query', 'is empty; give a query or a search, or "all": true to act on every subscriber' + ((body.list_ids ?? []).length > 0 ? ' of the given lists' : ''));
    }
    return this.deps.finder.ids(filter);
  }
}
