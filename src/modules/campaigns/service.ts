/**
 * Rules for campaigns (spec 4.7 and part 3, reference §7): create, update, delete, the status machine,
 * archive settings, running stats and searching. Field validation is the validator's
 * (./validator.ts); previews and test sends are ./messages.ts; delivery is the campaign runner's
 * (src/workers).
 */
import type { Db } from '../../db/db.js';
import { BadRequestError, FieldError, ForbiddenError, NotFoundError } from '../../errors.js';
import type { Principal } from '../../http/access.js';
import { campaignScope, listManageScope, manageableLists } from '../../http/list-scope.js';
import { pageRequest, sortDirection } from '../../http/pagination.js';
import type { TemplateRepo } from '../templates/repo.js';
import { likeTerm } from '../lists/service.js';
import { slugify } from './fields.js';
import type { CampaignRecord, CampaignRepo } from './repo.js';
import type { Campaign, CampaignArchive, CampaignArchiveBody, CampaignCreate, CampaignQuery, CampaignUpdate, RunningStat } from './schemas.js';
import { isEditable, statusMove, type CampaignStatus, type RequestableStatus } from './status.js';
import type { CampaignValidator, StoredCampaign } from './validator.js';

const ORDER_COLUMNS: Record<string, string> = {
  id: 'c.id',
  name: 'lower(c.name)',
  status: 'c.status',
  created_at: 'c.created_at',
  updated_at: 'c.updated_at',
  send_at: 'c.send_at',
};

/** What the campaign service needs from outside its module. */
export interface CampaignServiceDeps {
  db: Db;
  repo: CampaignRepo;
  templates: TemplateRepo;
  validator: CampaignValidator;
  /** Tells the delivery engine to look for work now. */
  onStarted: () => void;
  now?: () => Date;
}

/** The stored, writable state of a campaign as read from the API row (what requests merge into). */
export function storedOf(c: Campaign): StoredCampaign {
  const record: CampaignRecord = {
    name: c.name,
    subject: c.subject,
    from_email: c.from_email,
    body: c.body,
    body_source: c.body_source,
    altbody: c.altbody,
    content_type: c.content_type,
    send_at: c.send_at === null ? null : new Date(c.send_at),
    headers: c.headers,
    attribs: c.attribs,
    tags: c.tags,
    type: c.type,
    messenger: c.messenger,
    template_id: c.template_id,
    archive: c.archive,
    archive_slug: c.archive_slug,
    archive_template_id: c.archive_template_id,
    archive_meta: c.archive_meta,
  };
  return { record, listIds: c.lists.flatMap((l) => (l.id === null ? [] : [l.id])) };
}

/** Campaigns use cases. */
export class CampaignService {
  constructor(private readonly d: CampaignServiceDeps) {}

  /**
   * Throws 403 `Permission denied: campaigns:get|manage` unless `principal` may read (`get`) or change
   * (`manage`) campaign `id`: with `campaigns:get_all` / `campaigns:manage_all` (or `lists:*_all`), or
   * when the campaign targets a list its list role grants `list:get` / `list:manage` on (listmonk
   * checkCampaignPerm; issue 16). An unknown campaign passes (answered 404 later).
   */
  async authorize(id: number, need: 'get' | 'manage', principal: Principal | undefined): Promise<void> {
    const scope = campaignScope(principal, need);
    if (scope === null) return;
    if ((await this.d.repo.inScope(id, scope)) === false) throw new ForbiddenError(`Permission denied: campaigns:${need}`);
  }

  /**
   * Searches and pages campaigns (GET /api/campaigns): only those `principal` may read (see
   * {@link authorize}).
   */
  async query(q: CampaignQuery, principal?: Principal) {
    const page = pageRequest(q);
    const column = ORDER_COLUMNS[q.order_by ?? 'created_at'] ?? 'c.created_at';
    const dir = sortDirection(q.order, 'DESC');
    const filter = {
      search: likeTerm(q.query ?? ''), statuses: q.status ?? [], tags: q.tag ?? [], no_body: q.no_body ?? false, scope: campaignScope(principal, 'get'),
    };
    const { rows, total } = await this.d.repo.query(filter, `${column} ${dir} NULLS LAST, c.id ${dir}`, page.limit, page.offset);
    return { results: rows, query: q.query ?? '', search: '', total, per_page: page.perPage, page: page.page };
  }

  /** One campaign; 403 when `principal` may not read it, NotFoundError when unknown. */
  async get(id: number, principal?: Principal): Promise<Campaign> {
    await this.authorize(id, 'get', principal);
    const c = await this.d.repo.get(id);
    if (c === null) throw new NotFoundError(`campaign ${id} not found`);
    return c;
  }

  /**
   * Validates and creates a campaign in `draft` (spec 4.7; also with `send_at`, like listmonk). Lists
   * `principal` may not manage are left out; 403 `Permission denied: lists` when none is left.
   */
  async create(input: CampaignCreate, principal?: Principal): Promise<Campaign> {
    const allowed = input.lists === undefined ? input : { ...input, lists: manageableLists(principal, input.lists) };
    return this.d.db.tx(async (tx) => {
      const { record, listIds } = await this.d.validator.resolve(allowed, null, tx);
      const id = await this.d.repo.insert(record, listIds, tx);
      return (await this.d.repo.get(id, tx))!;
    });
  }

  /**
   * Updates a `draft`, `scheduled` or `paused` campaign (reference §7.4) and answers it. Omitted
   * fields keep their value (lists too). Clearing `send_at` of a scheduled campaign unschedules it
   * (back to `draft`). 400 in any other status; 404 for an unknown campaign. A bounded `principal` needs
   * manage access (see {@link authorize}); given `lists` are cut down to those it manages, and the
   * campaign's lists it does not manage stay.
   */
  async update(id: number, input: CampaignUpdate, principal?: Principal): Promise<Campaign> {
    await this.authorize(id, 'manage', principal);
    const manageable = listManageScope(principal);
    const given = input.lists === undefined ? undefined : manageableLists(principal, input.lists);
    return this.d.db.tx(async (tx) => {
      const status = await this.d.repo.lock(id, tx);
      if (status === null) throw new NotFoundError(`campaign ${id} not found`);
      if (!isEditable(status as CampaignStatus)) {
        throw new BadRequestError(`status: only draft, scheduled or paused campaigns can be edited; campaign ${id} is "${status}"`);
      }
      const stored = storedOf((await this.d.repo.get(id, tx))!);
      const kept = manageable === null ? [] : stored.listIds.filter((l) => !manageable.includes(l));
      const allowed = given === undefined ? input : { ...input, lists: [...given, ...kept] };
      const { record, listIds } = await this.d.validator.resolve(allowed, stored, tx);
      await this.d.repo.update(id, record, listIds, tx);
      return (await this.d.repo.get(id, tx))!;
    });
  }

  /**
   * Deletes a campaign. Only a scheduled campaign that has never started can be deleted (spec part 3
   * and part 7); any other is a 400 naming its status. 403 when `principal` may not manage it.
   */
  async remove(id: number, principal?: Principal): Promise<void> {
    await this.authorize(id, 'manage', principal);
    if (await this.d.repo.deleteScheduled(id)) return;
    const c = await this.get(id);
    throw new BadRequestError(`status: only a scheduled campaign that has not started can be deleted; campaign ${id} is "${c.status}"`);
  }

  /**
   * Sets the public-archive settings (any status, reference §7.10) and answers them: `archive_slug`
   * slugified (409 when another campaign uses it), `archive_template_id` a campaign template. 403 when
   * `principal` may not manage the campaign.
   */
  async setArchive(id: number, input: CampaignArchiveBody, principal?: Principal): Promise<CampaignArchive> {
    await this.authorize(id, 'manage', principal);
    const c = await this.get(id);
    const next: CampaignArchive = {
      archive: input.archive ?? c.archive,
      archive_slug: input.archive_slug !== undefined ? slugify(input.archive_slug) : c.archive_slug,
      archive_template_id: input.archive_template_id !== undefined ? input.archive_template_id : c.archive_template_id,
      archive_meta: input.archive_meta ?? c.archive_meta,
    };
    if (next.archive_template_id !== null) {
      const t = await this.d.templates.get(next.archive_template_id);
      if (t === null) throw new FieldError('archive_template_id', `template ${next.archive_template_id} not found`);
      if (t.type === 'tx') throw new FieldError('archive_template_id', `template ${t.id} is a "tx" template, not a campaign template`);
    }
    const saved = await this.d.repo.setArchive(id, next);
    if (saved === null) throw new NotFoundError(`campaign ${id} not found`);
    return saved;
  }

  /**
   * Progress of running campaigns: the requested ones that are running, or all running ones; only
   * those `principal` may read.
   */
  runningStats(ids: number[], principal?: Principal): Promise<RunningStat[]> {
    return this.d.repo.runningStats([...new Set(ids)], campaignScope(principal, 'get'));
  }

  /**
   * Moves a campaign along the status table of spec part 3 and answers it re-read. 400 naming the
   * current and requested status for any other move; 404 for an unknown campaign; 403 when
   * `principal` may not manage it.
   */
  async setStatus(id: number, to: RequestableStatus, principal?: Principal): Promise<Campaign> {
    await this.authorize(id, 'manage', principal);
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = await this.d.repo.status(id);
      if (current === null) throw new NotFoundError(`campaign ${id} not found`);
      const move = statusMove(current.status as CampaignStatus, to, current.send_at !== null);
      if (!move.ok) throw new BadRequestError(move.message);
      if (to === 'scheduled' && current.send_at!.getTime() <= (this.d.now?.() ?? new Date()).getTime()) {
        throw new FieldError('send_at', 'is in the past; set a future time before scheduling');
      }
      if (await this.d.repo.setStatus(id, current.status, to)) {
        if (to === 'running') this.d.onStarted();
        return this.get(id);
      }
      // The status changed between the read and the write (another request, or the engine); decide again.
    }
    throw new BadRequestError('status: the campaign is changing status concurrently; try again');
  }
}
