/**
 * Campaign messages outside the delivery engine (spec 4.7, reference §7.7, §7.8): previews for a
 * sample subscriber, and test sends to given subscribers. Nothing here changes a campaign: test sends
 * are not counted in `sent` and leave the status alone.
 */
import { BadGatewayError, FieldError, NotFoundError } from '../../errors.js';
import { parseEmail } from '../../mail/address.js';
import { CampaignMessageBuilder, usesTemplate, type CampaignForMessage, type MessageUrls } from '../../mail/campaign-message.js';
import { SendError, type MessengerRegistry, type OutgoingMessage } from '../../mail/messenger.js';
import { sampleSubscriber, untrackedUrls } from '../../mail/sample-data.js';
import type { Db } from '../../db/db.js';
import type { RenderedBody } from '../../http/rendered.js';
import { TemplateExecError, TemplateSyntaxError } from '../../templating/index.js';
import type { TemplateRepo } from '../templates/repo.js';
import { describeTemplateError } from '../templates/validate.js';
import type { CampaignRepo } from './repo.js';
import type { Campaign, CampaignPreviewBody, CampaignTest } from './schemas.js';
import { storedOf } from './service.js';
import type { CampaignValidator } from './validator.js';

/** What previews and test sends need. */
export interface CampaignMessagesDeps {
  db: Db;
  repo: CampaignRepo;
  templates: TemplateRepo;
  validator: CampaignValidator;
  messengers: MessengerRegistry;
  /** Public base URL (setting `app.root_url`). */
  rootUrl: () => string;
  /** URLs of real messages (tracking as configured), the same the delivery engine uses. */
  urls: () => MessageUrls;
  /** Receives the full detail of a failure the API shows only generically (issue 14 finding 10). */
  logDetail?: (email: string, detail: string) => void;
}

// Which request field a template error belongs to, by the name it was compiled under.
const FIELD_OF_SOURCE: Record<string, string> = { base: 'template_id', content: 'body', subject: 'subject', altbody: 'altbody' };

/** Runs `fn`; template-language errors become a 400 on the field they belong to. */
function templateErrors<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof TemplateSyntaxError || err instanceof TemplateExecError) {
      throw new FieldError(FIELD_OF_SOURCE[err.template] ?? 'body', describeTemplateError(err));
    }
    throw err;
  }
}

/** A campaign row as the message builder needs it, with `fields` overriding stored values. */
function forMessage(c: Campaign, fields: Partial<CampaignForMessage> = {}): CampaignForMessage {
  return {
    ...c,
    send_at: c.send_at === null ? null : new Date(c.send_at),
    started_at: c.started_at === null ? null : new Date(c.started_at),
    created_at: new Date(c.created_at),
    updated_at: new Date(c.updated_at),
    ...fields,
  };
}

/** Previews and test sends. */
export class CampaignMessages {
  constructor(private readonly d: CampaignMessagesDeps) {}

  private async campaign(id: number): Promise<Campaign> {
    const c = await this.d.repo.get(id);
    if (c === null) throw new NotFoundError(`campaign ${id} not found`);
    return c;
  }

  /**
   * The body of the template a campaign renders in: `templateId`, else its own, else the default;
   * null for `plain`/`visual` campaigns. 400 naming `template_id` for a missing or tx template.
   */
  private async templateBody(contentType: string, templateId: number | null): Promise<string | null> {
    if (!usesTemplate(contentType)) return null;
    const t = templateId === null ? await this.d.templates.getDefault() : await this.d.templates.get(templateId);
    if (t === null) {
      if (templateId === null) return null;
      throw new FieldError('template_id', `template ${templateId} not found`);
    }
    if (t.type === 'tx') throw new FieldError('template_id', `template ${t.id} is a "tx" template, not a campaign template`);
    return t.type === 'campaign_visual' ? null : t.body;
  }

  /**
   * Renders a campaign for the sample subscriber (GET/POST /api/campaigns/:id/preview): HTML, or
   * text for `plain` campaigns. `override` (POST) replaces body, content type and template for this
   * render only. Tracking is off. 400 with line and column for template errors.
   */
  async preview(id: number, override: CampaignPreviewBody = {}): Promise<RenderedBody> {
    const c = await this.campaign(id);
    const contentType = override.content_type ?? c.content_type;
    const posted = override.template_id;
    const templateId = posted === undefined || posted === null || posted === '' || Number(posted) === 0 ? c.template_id : Number(posted);
    const body = override.body ?? c.body;
    const templateBody = await this.templateBody(contentType, templateId);
    return templateErrors(() => {
      const builder = new CampaignMessageBuilder(forMessage(c, { body, content_type: contentType }), templateBody, untrackedUrls(this.d.rootUrl()), { textAlternative: false });
      return builder.renderBody(sampleSubscriber());
    });
  }

  /**
   * Sends the campaign, with the posted fields overriding the stored ones (nothing is saved), to each
   * of `input.subscribers` (e-mail addresses of existing subscribers). Every message is rendered
   * before any is sent, so a template error sends nothing. 400 naming unknown addresses; 502 naming
   * the addresses the messenger refused. Counters and status are not touched.
   */
  async testSend(id: number, input: CampaignTest, queryTemplateId?: number): Promise<void> {
    const c = await this.campaign(id);
    const { subscribers: addresses, ...fields } = input;
    if (fields.template_id === undefined && queryTemplateId !== undefined) fields.template_id = queryTemplateId;
    const resolved = await this.d.validator.resolve(fields, storedOf(c), this.d.db, false);
    const recipients = await this.recipients(addresses);
    const builder = templateErrors(() => new CampaignMessageBuilder(forMessage(c, resolved.record), resolved.templateBody, this.d.urls()));
    const messages = recipients.map((s) => templateErrors(() => builder.render(s)));
    await this.send(resolved.record.messenger, messages);
  }

  /** The subscribers with these addresses; 400 naming the addresses that are invalid or unknown. */
  private async recipients(addresses: string[]) {
    const emails: string[] = [];
    for (const a of addresses) {
      const parsed = parseEmail(a);
      if (!parsed.ok) throw new FieldError('subscribers', `"${a}" ${parsed.reason}`);
      if (!emails.includes(parsed.email)) emails.push(parsed.email);
    }
    const found = await this.d.repo.subscribersByEmail(emails);
    const unknown = emails.filter((e) => !found.some((s) => s.email === e));
    if (unknown.length > 0) throw new FieldError('subscribers', `unknown subscriber(s): ${unknown.join(', ')}`);
    return emails.map((e) => found.find((s) => s.email === e)!);
  }

  private async send(messengerName: string, messages: OutgoingMessage[]): Promise<void> {
    const messenger = this.d.messengers.get(messengerName);
    if (messenger === undefined) throw new FieldError('messenger', `unknown messenger "${messengerName}"`);
    const results = await Promise.allSettled(messages.map((m) => messenger.push(m)));
    const failed = results.flatMap((r, i) => {
      if (r.status === 'fulfilled') return [];
      const why = r.reason instanceof SendError ? r.reason.message : String(r.reason);
      if (r.reason instanceof SendError && r.reason.detail !== why) this.d.logDetail?.(messages[i]!.to.address, r.reason.detail);
      return [`${messages[i]!.to.address} (${why})`];
    });
    if (failed.length > 0) {
      const sent = messages.length - failed.length;
      throw new BadGatewayError(`subscribers: messenger "${messengerName}" could not deliver the test to ${failed.join(', ')}${sent > 0 ? `; ${sent} other(s) were sent` : ''}`);
    }
  }
}
