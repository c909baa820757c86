/**
 * Turns a campaign request (create, update, test send) into a validated {@link CampaignRecord}:
 * omitted fields come from the stored campaign (or defaults on create), every field is checked
 * (spec 4.7, reference §7.3, §13), and the body is compiled inside its template so template errors
 * are a 400 naming the field, line and column when saved, not a paused campaign later.
 */
import type { Queryable } from '../../db/db.js';
import { FieldError } from '../../errors.js';
import { CampaignMessageBuilder } from '../../mail/campaign-message.js';
import type { MessengerRegistry } from '../../mail/messenger.js';
import { sampleCampaign, untrackedUrls } from '../../mail/sample-data.js';
import { TemplateSyntaxError } from '../../templating/index.js';
import type { ListRef, ListRepo } from '../lists/repo.js';
import { normaliseTags } from '../lists/service.js';
import type { TemplateRepo } from '../templates/repo.js';
import type { Template } from '../templates/schemas.js';
import { checkSource, checkTextPart, describeTemplateError } from '../templates/validate.js';
import { checkHeaders, nonBlank, normaliseSender, optinCampaignBody, parseSendAt, slugify } from './fields.js';
import type { CampaignRecord } from './repo.js';
import type { CampaignUpdate } from './schemas.js';

/** What validation needs from outside the module. */
export interface ValidatorDeps {
  lists: ListRepo;
  templates: TemplateRepo;
  messengers: MessengerRegistry;
  /** Default `from_email` (setting `app.from_email`). */
  defaultFrom: () => string;
  now: () => Date;
}

/** A stored campaign to merge a request into. */
export interface StoredCampaign {
  record: CampaignRecord;
  listIds: number[];
}

/** A validated campaign: what to store, its lists, and the template body it renders in (null: none). */
export interface ResolvedCampaign {
  record: CampaignRecord;
  listIds: number[];
  lists: ListRef[];
  templateBody: string | null;
}

// Which request field a template-language error belongs to, by the name it was compiled under.
const FIELD_OF_SOURCE: Record<string, string> = { base: 'template_id', content: 'body', subject: 'subject', altbody: 'altbody' };

/** Validates campaign requests. */
export class CampaignValidator {
  constructor(private readonly d: ValidatorDeps) {}

  /**
   * Merges `input` into `stored` (null: a new campaign) and validates the result. `checkSendAt`:
   * a `send_at` given in the request must be in the future. Throws FieldError naming the field.
   */
  async resolve(input: CampaignUpdate, stored: StoredCampaign | null, q: Queryable, checkSendAt = true): Promise<ResolvedCampaign> {
    const record = this.merge(input, stored?.record ?? null, checkSendAt);
    this.checkMessenger(record.messenger);
    checkHeaders(record.headers);
    const listIds = [...new Set(input.lists ?? stored?.listIds ?? [])];
    const lists = await this.lists(listIds, record.type, q);
    if (record.type === 'optin' && record.body.trim() === '') {
      record.body = optinCampaignBody(lists);
      if (record.content_type !== 'html') record.content_type = 'richtext';
    }
    const template = await this.template(record, input.template_id !== undefined || stored === null, q);
    if (record.archive_template_id !== null) await this.campaignTemplate('archive_template_id', record.archive_template_id, q);
    if (record.content_type !== 'visual') record.body_source = null;
    this.checkOptinLink(record);
    this.compileAll(record, template?.body ?? null);
    return { record, listIds, lists, templateBody: template?.body ?? null };
  }

  /** The request's fields over the stored ones (or the defaults of a new campaign), each normalised. */
  private merge(input: CampaignUpdate, s: CampaignRecord | null, checkSendAt: boolean): CampaignRecord {
    const pick = <K extends keyof CampaignRecord>(k: K, d: CampaignRecord[K]): CampaignRecord[K] =>
      (input[k as keyof CampaignUpdate] !== undefined ? input[k as keyof CampaignUpdate] : (s?.[k] ?? d)) as CampaignRecord[K];
    return {
      name: nonBlank('name', pick('name', '')),
      subject: nonBlank('subject', pick('subject', '')),
      from_email: input.from_email !== undefined ? normaliseSender(input.from_email, this.d.defaultFrom()) : (s?.from_email ?? this.d.defaultFrom()),
      body: pick('body', ''),
      body_source: pick('body_source', null),
      altbody: input.altbody !== undefined ? input.altbody || null : (s?.altbody ?? null),
      content_type: pick('content_type', 'richtext'),
      send_at: input.send_at !== undefined ? this.sendAt(input.send_at, checkSendAt) : (s?.send_at ?? null),
      headers: pick('headers', []),
      attribs: pick('attribs', {}),
      tags: normaliseTags(pick('tags', [])),
      type: pick('type', 'regular'),
      messenger: input.messenger !== undefined ? input.messenger.trim() || 'email' : (s?.messenger ?? 'email'),
      template_id: pick('template_id', null),
      archive: pick('archive', false),
      archive_slug: input.archive_slug !== undefined ? slugify(input.archive_slug) : (s?.archive_slug ?? null),
      archive_template_id: pick('archive_template_id', null),
      archive_meta: pick('archive_meta', {}),
    };
  }

  private sendAt(value: string | null, mustBeFuture: boolean): Date | null {
    if (value === null || value.trim() === '') return null;
    const at = parseSendAt(value);
    if (mustBeFuture && at.getTime() <= this.d.now().getTime()) throw new FieldError('send_at', 'must be in the future');
    return at;
  }

  private checkMessenger(name: string): void {
    if (this.d.messengers.get(name) === undefined) {
      throw new FieldError('messenger', `unknown messenger "${name}"; configured: ${this.d.messengers.names().join(', ')}`);
    }
  }

  private async lists(ids: number[], type: string, q: Queryable): Promise<ListRef[]> {
    if (ids.length === 0) throw new FieldError('lists', 'must name at least one list');
    const lists = await this.d.lists.getMany(ids, q);
    const missing = ids.filter((id) => !lists.some((l) => l.id === id));
    if (missing.length > 0) throw new FieldError('lists', `unknown list id(s): ${missing.join(', ')}`);
    if (type === 'optin' && !lists.some((l) => l.optin === 'double')) {
      throw new FieldError('lists', 'an opt-in campaign needs at least one double opt-in list');
    }
    return lists;
  }

  /** A campaign template by id; FieldError on `field` when unknown or not a campaign template. */
  private async campaignTemplate(field: string, id: number, q: Queryable): Promise<Template> {
    const t = await this.d.templates.get(id, q);
    if (t === null) throw new FieldError(field, `template ${id} not found`);
    if (t.type === 'tx') throw new FieldError(field, `template ${id} is a "tx" template, not a campaign template`);
    return t;
  }

  /**
   * Resolves the campaign's template. Null `template_id` means the default template. A visual template
   * (`campaign_visual`) given explicitly is copied into the campaign as a `visual` body, as listmonk
   * does (reference §7.3). `plain` and `visual` campaigns render without a template.
   */
  private async template(record: CampaignRecord, explicit: boolean, q: Queryable): Promise<Template | null> {
    const t = record.template_id === null ? await this.d.templates.getDefault(q) : await this.campaignTemplate('template_id', record.template_id, q);
    if (t !== null && t.type === 'campaign_visual') {
      if (explicit) {
        record.content_type = 'visual';
        if (record.body.trim() === '') [record.body, record.body_source] = [t.body, t.body_source];
      }
      record.template_id = null;
      return null;
    }
    // A visual body is a whole document (reference §7.3: listmonk stores no template for it).
    record.template_id = record.content_type === 'visual' ? null : (t?.id ?? null);
    return record.content_type === 'plain' || record.content_type === 'visual' ? null : t;
  }

  private checkOptinLink(record: CampaignRecord): void {
    if (record.type === 'optin' && !/\bOptinURL\b/u.test(record.body)) {
      throw new FieldError('body', 'an opt-in campaign must contain the opt-in link {{ OptinURL }} (leave body empty to use the standard opt-in message)');
    }
  }

  /** Compiles subject, altbody, headers and the body inside its template; FieldError with line and column. */
  private compileAll(record: CampaignRecord, templateBody: string | null): void {
    checkTextPart('subject', record.subject);
    // Syntax errors first, on the text as written (markdown positions shift once converted to HTML).
    checkSource('body', record.body, 'text');
    if (record.altbody) checkTextPart('altbody', record.altbody);
    for (const h of record.headers) for (const v of Object.values(h)) checkTextPart('headers', v);
    try {
      new CampaignMessageBuilder(sampleCampaign(record), templateBody, untrackedUrls(''), { textAlternative: false });
    } catch (err) {
      if (!(err instanceof TemplateSyntaxError)) throw err;
      throw new FieldError(FIELD_OF_SOURCE[err.template] ?? 'body', describeTemplateError(err));
    }
  }
}
