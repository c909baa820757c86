/**
 * Rules for subscribers (spec 4.1 and part 3, reference §4, §13): addresses are trimmed, lower-cased,
 * single and unique; names default to the address's local part; attributes are a JSON object of at
 * most 64 KiB; new memberships are `unconfirmed` unless `preconfirm_subscriptions` (and `unsubscribed`
 * for a blocklisted subscriber).
 */
import type { Db } from '../../db/db.js';
import { FieldError, NotFoundError } from '../../errors.js';
import { pageRequest, sortDirection } from '../../http/pagination.js';
import { nameFromEmail, parseEmail } from '../../mail/address.js';
import type { ListRepo } from '../lists/repo.js';
import { likeTerm } from '../lists/service.js';
import type { SubscriberRepo } from './repo.js';
import {
  MAX_ATTRIBS_BYTES,
  MAX_NAME_CHARS,
  type CreatedSubscriber,
  type Subscriber,
  type SubscriberCreate,
  type SubscriberQuery,
} from './schemas.js';

const ORDER_COLUMNS: Record<string, string> = {
  id: 's.id',
  email: 's.email',
  name: 's.name',
  status: 's.status',
  created_at: 's.created_at',
  updated_at: 's.updated_at',
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

/** Subscribers use cases. */
export class SubscriberService {
  constructor(
    private readonly db: Db,
    private readonly repo: SubscriberRepo,
    private readonly lists: ListRepo,
  ) {}

  /** Searches and pages subscribers (GET /api/subscribers). */
  async query(q: SubscriberQuery) {
    if (q.query !== undefined && q.query.trim() !== '') {
      throw new FieldError('query', 'SQL expressions are not supported yet');
    }
    const page = pageRequest(q);
    const column = ORDER_COLUMNS[q.order_by ?? 'id'] ?? 's.id';
    const dir = sortDirection(q.order, 'DESC');
    const order = column === 's.id' ? `s.id ${dir}` : `${column} ${dir}, s.id ${dir}`;
    const filter = {
      list_ids: [...new Set(q.list_id ?? [])],
      subscription_status: q.list_id?.length ? (q.subscription_status ?? '') : '',
      search: likeTerm(q.search ?? ''),
    };
    const { rows, total } = await this.repo.query(filter, order, page.limit, page.offset);
    return { results: rows, query: q.query ?? '', search: q.search ?? '', total, per_page: page.perPage, page: page.page };
  }

  /** One subscriber with memberships; NotFoundError when unknown. */
  async get(id: number): Promise<Subscriber> {
    const sub = await this.repo.get(id);
    if (sub === null) throw new NotFoundError(`subscriber ${id} not found`);
    return sub;
  }

  /** Creates a subscriber and its memberships in one transaction; answers `lists` as ids (spec 4.1). */
  async create(input: SubscriberCreate): Promise<CreatedSubscriber> {
    const email = validEmail(input.email);
    const name = validName(input.name, email);
    const attribs = validAttribs(input.attribs);
    const status = input.status ?? 'enabled';
    const listIds = [...new Set(input.lists ?? [])];
    const membership = status === 'blocklisted' ? 'unsubscribed' : input.preconfirm_subscriptions ? 'confirmed' : 'unconfirmed';
    return this.db.tx(async (tx) => {
      const found = await this.lists.getMany(listIds, tx);
      const missing = listIds.filter((id) => !found.some((l) => l.id === id));
      if (missing.length > 0) throw new FieldError('lists', `unknown list id(s): ${missing.join(', ')}`);
      const row = await this.repo.insert({ email, name, attribs, status }, tx);
      await this.repo.addSubscriptions(row.id, listIds, membership, tx);
      return { ...row, lists: listIds.sort((a, b) => a - b) };
    });
  }

  /** Deletes one subscriber; NotFoundError when unknown. */
  async delete(id: number): Promise<void> {
    if ((await this.repo.delete([id])).length === 0) throw new NotFoundError(`subscriber ${id} not found`);
  }

  /** Deletes several subscribers by id; unknown ids are ignored. */
  async deleteMany(ids: number[]): Promise<number> {
    return (await this.repo.delete(ids)).length;
  }
}
