/**
 * Rules for one subscriber at a time (spec 4.1 and part 3, reference §4, §13, issue 3 §1, §3, §5):
 * addresses are trimmed, lower-cased, single and unique (409); names default to the address's local
 * part; attributes are a JSON object of at most 64 KiB; new memberships are `unconfirmed` unless
 * `preconfirm_subscriptions` (and `unsubscribed` for a blocklisted subscriber); memberships that an
 * update leaves `unconfirmed` on double opt-in lists trigger the opt-in e-mail. Bulk changes: bulk.ts.
 */
import type { Db, Queryable } from '../../db/db.js';
import { FieldError, ForbiddenError, NotFoundError } from '../../errors.js';
import type { Principal } from '../../http/access.js';
import { listManageScope, manageableLists, maskMemberships, subscriberScope } from '../../http/list-scope.js';
import { pageRequest, sortDirection } from '../../http/pagination.js';
import type { PageSink } from '../../http/streamed-page.js';
import { nameFromEmail, parseEmail } from '../../mail/address.js';
import type { ListRef, ListRepo } from '../lists/repo.js';
import { checkDomain, NO_DOMAIN_RULES, type DomainRules } from './domains.js';
import type { SubscriberFinder } from './filter.js';
import type { SubscriberRepo, SubscriberRow, WrittenMembership } from './repo.js';
import {
  MAX_ATTRIBS_BYTES,
  MAX_NAME_CHARS,
  type CreatedSubscriber,
  type Subscriber,
  type SubscriberCreate,
  type SubscriberPatch,
  type SubscriberQuery,
  type SubscriberUpdate,
} from './schemas.js';
import { txWithRetry } from './retry.js';

/**
 * Subscribers read per batch when a page is streamed, unless the deps say otherwise (deps.ts uses
 * `app.batch_size`, default 1,000): one `FETCH` and one memberships query each. At most this many
 * subscribers (and their memberships, JSON included) are in memory per request.
 */
export const STREAM_BATCH_ROWS = 1000;

/** The fields of a subscriber page's envelope besides `results` (spec 1.3, 4.1). */
export interface SubscriberPageMeta {
  query: string;
  search: string;
  total: number;
  per_page: number;
  page: number;
}

const ORDER_COLUMNS: Record<string, string> = {
  id: 'subscribers.id',
  email: 'subscribers.email',
  name: 'subscribers.name',
  status: 'subscribers.status',
  created_at: 'subscribers.created_at',
  updated_at: 'subscribers.updated_at',
};

/** Validates and normalises an e-mail; FieldError naming `field` when invalid. */
export function validEmail(input: string, field = 'email'): string {
  const parsed = parseEmail(input);
  if (!parsed.ok) throw new FieldError(field, parsed.reason);
  return parsed.email;
}

/** A trimmed name of at most 2,000 characters, derived from `email` when blank. */
export function validName(input: string | undefined, email: string): string {
  const name = (input ?? '').trim();
  if ([...name].length > MAX_NAME_CHARS) throw new FieldError('name', `must be at most ${MAX_NAME_CHARS} characters`);
  return name === '' ? nameFromEmail(email) : name;
}

/** Checks the size of an attributes object (64 KiB of JSON). */
export function validAttribs(attribs: Record<string, unknown> | undefined): Record<string, unknown> {
  if (attribs === undefined) return {};
  if (Buffer.byteLength(JSON.stringify(attribs), 'utf8') > MAX_ATTRIBS_BYTES) {
    throw new FieldError('attribs', `must be at most ${MAX_ATTRIBS_BYTES} bytes of JSON`);
  }
  return attribs;
}

/** The status new memberships get (spec part 3): confirmed when preconfirmed, unsubscribed when blocklisted. */
export function membershipStatus(subscriberStatus: string, preconfirm: boolean | undefined): string {
  if (subscriberStatus === 'blocklisted') return 'unsubscribed';
  return preconfirm === true ? 'confirmed' : 'unconfirmed';
}

/** The lists among `ids`; FieldError naming `field` and the unknown ids when some do not exist. */
export async function knownLists(lists: ListRepo, ids: number[], field: string, q: Queryable): Promise<ListRef[]> {
  const found = await lists.getMany(ids, q);
  const missing = ids.filter((id) => !found.some((l) => l.id === id));
  if (missing.length > 0) throw new FieldError(field, `unknown list id(s): ${missing.join(', ')}`);
  return found;
}

/** True when `written` holds an unconfirmed membership of one of the double opt-in lists in `lists`. */
export function needsOptin(written: WrittenMembership[], lists: ListRef[]): boolean {
  const doubles = new Set(lists.filter((l) => l.optin === 'double').map((l) => l.id));
  return written.some((m) => m.status === 'unconfirmed' && doubles.has(m.list_id));
}

/**
 * Throws 403 `Permission denied: subscriber: <id>` when `principal` may not see one of the subscribers
 * `ids`: it lacks `subscribers:get_all` (and `lists:*_all`) and the subscriber has no membership of a
 * list its list role grants (listmonk hasSubPerm). Unknown ids pass (answered 404 or ignored later).
 */
export async function requireSubscribers(repo: SubscriberRepo, principal: Principal | undefined, ids: number[], q?: Queryable): Promise<void> {
  const scope = subscriberScope(principal);
  if (scope === null || ids.length === 0) return;
  const [denied] = await repo.outsideScope([...new Set(ids)], scope, q);
  if (denied !== undefined) throw new ForbiddenError(`Permission denied: subscriber: ${denied}`);
}

/** `sub` with the memberships `principal` may not read masked (src/http/list-scope.ts maskMemberships). */
export function masked(sub: Subscriber, principal: Principal | undefined): Subscriber {
  return principal === undefined ? sub : { ...sub, lists: maskMemberships(principal, sub.lists) };
}

/** What the subscriber service needs besides its repositories. */
export interface SubscriberServiceDeps {
  db: Db;
  repo: SubscriberRepo;
  lists: ListRepo;
  finder: SubscriberFinder;
  /** Queues the automatic opt-in e-mail (when the setting allows it). */
  requestOptin: (subscriberId: number) => void;
  /** Sends the opt-in e-mail now (POST /api/subscribers/:id/optin); false when nothing to confirm. */
  sendOptin: (subscriberId: number) => Promise<boolean>;
  /** The e-mail domain rules now (privacy.domain_allowlist / _blocklist); none when absent. */
  domains?: () => DomainRules;
  /** Subscribers per batch of a streamed page (default {@link STREAM_BATCH_ROWS}). */
  batchRows?: () => number;
}

/** Subscribers use cases. */
export class SubscriberService {
  private readonly db: Db;
  private readonly repo: SubscriberRepo;

  constructor(private readonly deps: SubscriberServiceDeps) {
    this.db = deps.db;
    this.repo = deps.repo;
  }

  /** The domain rules in force (none unless the deps provide them). */
  private domains(): DomainRules {
    return this.deps.domains?.() ?? NO_DOMAIN_RULES;
  }

  /**
   * Filters and pages subscribers into `sink` (GET /api/subscribers; `listId` for GET
   * /api/subscribers/lists/:id), reading a batch of subscribers (with their memberships; see
   * {@link STREAM_BATCH_ROWS}) at a time, so any page size, `all` included, keeps memory flat (issue 14 finding 9, issue 15 item 4).
   * `sink.start` gets `{query, search, total, per_page, page}` once the total and the first batch are
   * read: a refused `query` (400) or any earlier failure is thrown before the answer begins.
   * Bounded to the subscribers `principal` may see, with memberships it may not read masked (issue 16).
   */
  async stream(q: SubscriberQuery, sink: PageSink<Subscriber, SubscriberPageMeta>, listId?: number, principal?: Principal): Promise<void> {
    const page = pageRequest(q);
    const column = ORDER_COLUMNS[q.order_by ?? 'id'] ?? 'subscribers.id';
    const dir = sortDirection(q.order, 'DESC');
    const order = column === 'subscribers.id' ? `subscribers.id ${dir}` : `${column} ${dir}, subscribers.id ${dir}`;
    const filter = await this.deps.finder.prepare({
      query: q.query,
      search: q.search,
      listIds: listId === undefined ? q.list_id : [listId],
      subscriptionStatus: q.subscription_status,
      scope: subscriberScope(principal),
    });
    let started = false;
    const batchRows = Math.max(1, this.deps.batchRows?.() ?? STREAM_BATCH_ROWS);
    await this.deps.finder.scan(filter, order, page.limit, page.offset, batchRows, async (rows, total, tx) => {
      const results = (await this.repo.withMemberships(rows, tx)).map((sub) => masked(sub, principal));
      if (!started) {
        started = true;
        sink.start({ query: filter.queryText, search: filter.searchText, total, per_page: page.perPage, page: page.page });
      }
      await sink.write(results);
    });
  }

  /**
   * {@link stream} for the subscribers of list `listId`; 403 `permission denied` when `principal` may
   * not see that list's subscribers, NotFoundError for an unknown list.
   */
  async streamList(listId: number, q: SubscriberQuery, sink: PageSink<Subscriber, SubscriberPageMeta>, principal?: Principal): Promise<void> {
    const scope = subscriberScope(principal);
    if (scope !== null && !scope.includes(listId)) throw new ForbiddenError('permission denied');
    if ((await this.deps.lists.getMany([listId], this.db)).length === 0) throw new NotFoundError(`list ${listId} not found`);
    return this.stream(q, sink, listId, principal);
  }

  /**
   * One subscriber with memberships (those `principal` may not read masked); 403 when it may not see
   * the subscriber (see {@link requireSubscribers}), NotFoundError when unknown.
   */
  async get(id: number, principal?: Principal): Promise<Subscriber> {
    await requireSubscribers(this.repo, principal, [id]);
    const sub = await this.repo.get(id);
    if (sub === null) throw new NotFoundError(`subscriber ${id} not found`);
    return masked(sub, principal);
  }

  /**
   * Creates a subscriber and its memberships in one transaction; answers `lists` as ids (spec 4.1).
   * Lists `principal` may not manage are left out; 403 `Permission denied: lists` when lists were given
   * and none is manageable (reference §4.3).
   */
  async create(input: SubscriberCreate, principal?: Principal): Promise<CreatedSubscriber> {
    const email = validEmail(input.email);
    checkDomain(email, this.domains());
    const name = validName(input.name, email);
    const attribs = validAttribs(input.attribs);
    const status = input.status ?? 'enabled';
    const listIds = manageableLists(principal, [...new Set(input.lists ?? [])]);
    const { row, written, lists } = await txWithRetry(this.db, async (tx) => {
      const lists = await knownLists(this.deps.lists, listIds, 'lists', tx);
      const row = await this.repo.insert({ email, name, attribs, status }, tx);
      const written = await this.repo.addSubscriptions(row.id, listIds, membershipStatus(status, input.preconfirm_subscriptions), tx);
      return { row, written, lists };
    });
    if (needsOptin(written, lists)) this.deps.requestOptin(row.id);
    return { ...row, lists: listIds.sort((a, b) => a - b) };
  }

  /**
   * Full replacement (PUT, spec 4.1, reference §4.4): omitted `lists` removes every membership, omitted
   * `attribs` clears them, a blank `name` or omitted `status` keeps the stored one; `unsubscribed` and
   * `confirmed` memberships keep their status. Answers the subscriber as GET does. With a bounded
   * `principal` (issue 16, reference §4.4): 403 unless it may see the subscriber; only lists it manages
   * are added, and memberships of other lists are kept.
   */
  async update(id: number, input: SubscriberUpdate, principal?: Principal): Promise<Subscriber> {
    const email = validEmail(input.email);
    const attribs = validAttribs(input.attribs);
    const listIds = manageableLists(principal, [...new Set(input.lists ?? [])]);
    return this.write(id, principal, async (current, tx) => {
      if (email !== current.email) checkDomain(email, this.domains());
      const lists = await knownLists(this.deps.lists, listIds, 'lists', tx);
      const status = input.status ?? current.status;
      const name = (input.name ?? '').trim() === '' ? current.name : validName(input.name, email);
      await this.repo.update(id, { email, name, attribs, status }, tx);
      const written = await this.repo.replaceSubscriptions(id, listIds, membershipStatus(status, input.preconfirm_subscriptions), tx, listManageScope(principal));
      return { status, written, lists };
    });
  }

  /**
   * Partial update (PATCH, listmonk v6.1): only the fields sent change; `attribs` are merged (top-level
   * keys). Bounded as {@link update}.
   */
  async patch(id: number, input: SubscriberPatch, principal?: Principal): Promise<Subscriber> {
    const listIds = input.lists === undefined ? null : manageableLists(principal, [...new Set(input.lists)]);
    return this.write(id, principal, async (current, tx) => {
      const email = input.email === undefined ? current.email : validEmail(input.email);
      if (email !== current.email) checkDomain(email, this.domains());
      const name = (input.name ?? '').trim() === '' ? current.name : validName(input.name, email);
      const attribs = input.attribs === undefined ? current.attribs : validAttribs({ ...current.attribs, ...input.attribs });
      const status = input.status ?? current.status;
      const lists = listIds === null ? [] : await knownLists(this.deps.lists, listIds, 'lists', tx);
      await this.repo.update(id, { email, name, attribs, status }, tx);
      const written = listIds === null ? [] : await this.repo.replaceSubscriptions(id, listIds, membershipStatus(status, input.preconfirm_subscriptions), tx, listManageScope(principal));
      return { status, written, lists };
    });
  }

  /**
   * Runs an update of subscriber `id` in one transaction (row locked; NotFoundError when unknown);
   * a blocklisted result unsubscribes every membership; then queues the opt-in e-mail when needed
   * and answers the subscriber as GET does (masked for `principal`). 403 when `principal` may not see it.
   */
  private async write(
    id: number,
    principal: Principal | undefined,
    fn: (current: SubscriberRow, tx: Queryable) => Promise<{ status: string; written: WrittenMembership[]; lists: ListRef[] }>,
  ): Promise<Subscriber> {
    const result = await txWithRetry(this.db, async (tx) => {
      const current = await this.repo.lock(id, tx);
      if (current === null) throw new NotFoundError(`subscriber ${id} not found`);
      await requireSubscribers(this.repo, principal, [id], tx);
      const out = await fn(current, tx);
      if (out.status === 'blocklisted') await this.repo.blocklist([id], tx);
      return out;
    });
    if (result.status !== 'blocklisted' && needsOptin(result.written, result.lists)) this.deps.requestOptin(id);
    const sub = await this.repo.get(id);
    if (sub === null) throw new NotFoundError(`subscriber ${id} not found`);
    return masked(sub, principal);
  }

  /** Deletes one subscriber; 403 when `principal` may not see it, NotFoundError when unknown. */
  async delete(id: number, principal?: Principal): Promise<void> {
    await requireSubscribers(this.repo, principal, [id]);
    if ((await txWithRetry(this.db, (tx) => this.repo.delete([id], tx))).length === 0) throw new NotFoundError(`subscriber ${id} not found`);
  }

  /**
   * Deletes several subscribers by id in one transaction; unknown ids are ignored. 403 (nothing
   * deleted) when `principal` may not see one of them.
   */
  async deleteMany(ids: number[], principal?: Principal): Promise<number> {
    await requireSubscribers(this.repo, principal, ids);
    return txWithRetry(this.db, async (tx) => (await this.repo.delete([...new Set(ids)], tx)).length);
  }

  /**
   * Sends the opt-in e-mail again (POST /api/subscribers/:id/optin, reference §4.10). NotFoundError for
   * an unknown subscriber, 403 when `principal` may not see it; answers without sending when nothing
   * awaits confirmation.
   */
  async resendOptin(id: number, principal?: Principal): Promise<void> {
    await this.get(id, principal);
    await this.deps.sendOptin(id);
  }

  /**
   * The subscriber's data (GET /api/subscribers/:id/export, reference §4.10): `profile` (one object),
   * `subscriptions`, `campaign_views`, `link_clicks`. NotFoundError when unknown, 403 when `principal`
   * may not see it.
   */
  async exportData(id: number, principal?: Principal) {
    const { lists: _lists, ...profile } = await this.get(id, principal);
    return { profile: [profile], ...(await this.repo.exportData(id)) };
  }
}
