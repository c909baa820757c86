/**
 * Rules for campaigns (spec 4.7 and part 3, reference §7): validation on create, the status machine,
 * and searching. The delivery itself is the campaign runner's (src/workers).
 */
import type { Db } from '../../db/db.js';
import { BadRequestError, FieldError, NotFoundError } from '../../errors.js';
import { pageRequest, sortDirection } from '../../http/pagination.js';
import { formatSender, parseSender } from '../../mail/address.js';
import type { MessengerRegistry } from '../../mail/messenger.js';
import { compile, TemplateSyntaxError } from '../../templating/index.js';
import type { ListRepo } from '../lists/repo.js';
import { likeTerm, normaliseTags } from '../lists/service.js';
import type { TemplateRepo } from '../templates/repo.js';
import type { CampaignRepo } from './repo.js';
import type { Campaign, CampaignCreate, CampaignQuery } from './schemas.js';
import { statusMove, type CampaignStatus, type RequestableStatus } from './status.js';

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
  lists: ListRepo;
  templates: TemplateRepo;
  messengers: MessengerRegistry;
  /** Default `from_email` (settings `app.from_email`). */
  defaultFrom: () => string;
  /** Tells the delivery engine to look for work now. */
  onStarted: () => void;
  now?: () => Date;
}

/**
 * Parses `send_at`: ISO 8601 with or without offset (spec format `YYYY-MM-DDTHH:MM:SS` is read as UTC).
 * Throws FieldError for unparseable values.
 */
export function parseSendAt(value: string): Date {
  const text = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/u.test(value.trim()) ? `${value.trim()}Z` : value.trim();
  const ms = /^\d{4}-\d{2}-\d{2}T/u.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) throw new FieldError('send_at', 'must be a date-time like 2026-12-01T09:00:00Z');
  return new Date(ms);
}

/** Checks a template-language source compiles; FieldError with line and column when it does not. */
function checkCompiles(field: string, source: string, mode: 'html' | 'text'): void {
  try {
    compile([{ name: field, source }], { mode });
  } catch (err) {
    if (err instanceof TemplateSyntaxError) throw new FieldError(field, `template error at line ${err.line}, column ${err.column}: ${err.message}`);
    throw err;
  }
}

/** Campaigns use cases. */
export class CampaignService {
  constructor(private readonly d: CampaignServiceDeps) {}

  /** Searches and pages campaigns (GET /api/campaigns). */
  async query(q: CampaignQuery) {
    const page = pageRequest(q);
    const column = ORDER_COLUMNS[q.order_by ?? 'created_at'] ?? 'c.created_at';
    const dir = sortDirection(q.order, 'DESC');
    const filter = { search: likeTerm(q.query ?? ''), statuses: q.status ?? [], tags: q.tag ?? [], no_body: q.no_body ?? false };
    const { rows, total } = await this.d.repo.query(filter, `${column} ${dir} NULLS LAST, c.id ${dir}`, page.limit, page.offset);
    return { results: rows, query: q.query ?? '', search: '', total, per_page: page.perPage, page: page.page };
  }

  /** One campaign; NotFoundError when unknown. */
  async get(id: number): Promise<Campaign> {
    const c = await this.d.repo.get(id);
    if (c === null) throw new NotFoundError(`campaign ${id} not found`);
    return c;
  }

  /** Validates and creates a campaign in `draft` (spec 4.7). */
  async create(input: CampaignCreate): Promise<Campaign> {
    const name = nonBlank('name', input.name);
    const subject = nonBlank('subject', input.subject);
    const fromEmail = this.fromEmail(input.from_email);
    const sendAt = input.send_at ? parseSendAt(input.send_at) : null;
    if (sendAt !== null && sendAt.getTime() <= (this.d.now?.() ?? new Date()).getTime()) {
      throw new FieldError('send_at', 'must be in the future');
    }
    const messenger = input.messenger?.trim() || 'email';
    if (this.d.messengers.get(messenger) === undefined) {
      throw new FieldError('messenger', `unknown messenger "${messenger}"; configured: ${this.d.messengers.names().join(', ')}`);
    }
    const type = input.type ?? 'regular';
    const contentType = input.content_type ?? 'richtext';
    const body = input.body ?? '';
    checkCompiles('body', body, contentType === 'plain' ? 'text' : 'html');
    checkCompiles('subject', subject, 'text');
    if (input.altbody) checkCompiles('altbody', input.altbody, 'text');
    const listIds = [...new Set(input.lists)];
    return this.d.db.tx(async (tx) => {
      const lists = await this.d.lists.getMany(listIds, tx);
      const missing = listIds.filter((id) => !lists.some((l) => l.id === id));
      if (missing.length > 0) throw new FieldError('lists', `unknown list id(s): ${missing.join(', ')}`);
      if (type === 'optin' && !lists.some((l) => l.optin === 'double')) {
        throw new FieldError('lists', 'an opt-in campaign needs at least one double opt-in list');
      }
      const templateId = await this.templateId(input.template_id ?? null, tx);
      const id = await this.d.repo.insert(
        {
          name, subject, from_email: fromEmail, body, altbody: input.altbody || null, content_type: contentType,
          send_at: sendAt, headers: input.headers ?? [], attribs: input.attribs ?? {}, tags: normaliseTags(input.tags ?? []),
          type, messenger, template_id: templateId,
        },
        listIds,
        tx,
      );
      return (await this.d.repo.get(id, tx))!;
    });
  }

  private fromEmail(input: string | undefined): string {
    if (input === undefined || input.trim() === '') return this.d.defaultFrom();
    const sender = parseSender(input);
    if (sender === null) throw new FieldError('from_email', 'must be `Name <address>` or an e-mail address');
    return formatSender(sender);
  }

  private async templateId(requested: number | null, tx: Parameters<TemplateRepo['get']>[1]): Promise<number | null> {
    if (requested === null) return (await this.d.templates.getDefault(tx))?.id ?? null;
    const t = await this.d.templates.get(requested, tx);
    if (t === null) throw new FieldError('template_id', `template ${requested} not found`);
    if (t.type !== 'campaign' && t.type !== 'campaign_visual') {
      throw new FieldError('template_id', `template ${requested} is a "${t.type}" template, not a campaign template`);
    }
    return t.id;
  }

  /**
   * Moves a campaign along the status table of spec part 3 and answers it re-read. 400 naming the
   * current and requested status for any other move; 404 for an unknown campaign.
   */
  async setStatus(id: number, to: RequestableStatus): Promise<Campaign> {
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

function nonBlank(field: string, value: string): string {
  const v = value.trim();
  if (v === '') throw new FieldError(field, 'must not be blank');
  return v;
}
