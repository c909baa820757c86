/**
 * listmonk's template data, field by field (issue 15 item 8; listmonk `models/campaigns.go`,
 * `models/lists.go`, `models/messages.go`, `internal/manager/message.go`, `cmd/subscribers.go`):
 *
 * - campaign messages (sends, previews, test sends, "view in browser", the archive):
 *   {@link CampaignMessageData} — `.Campaign`, `.Subscriber` and the methods `.Subject`, `.Body`,
 *   `.AltBody` of listmonk's `CampaignMessage`;
 * - `.Campaign`: {@link CampaignView}, every exported field of listmonk's `models.Campaign`
 *   (with its embedded `Base` and `CampaignMeta`);
 * - lists (`.Lists` of the opt-in e-mail): {@link ListView}, listmonk's `models.List`;
 * - transactional messages: `.Tx` is {@link TxView}, listmonk's `models.TxMessage`;
 * - the double opt-in e-mail: {@link optinData}, listmonk's `subOptin` (the subscriber's fields
 *   promoted to the top, as Go promotes an embedded struct's).
 *
 * Class instances behave as Go structs: an unknown field is an execution error
 * (`can't evaluate field X in type CampaignView`), as in listmonk. Nullable columns are listmonk's
 * null.v6 types (go-null.ts). Where Go would print a `[]byte` (`ArchiveMeta`, `Body`), the text is
 * given instead; fields that hold compiled Go templates in listmonk (`Tpl`, `SubjectTpl`, …) are nil.
 */
import { NullInt, NullString, NullTime } from './go-null.js';
import { SubscriberView } from './subscriber-view.js';

/** A campaign as stored (snake_case columns); optional fields default as listmonk's zero values. */
export interface CampaignRecord {
  id: number;
  uuid: string;
  name: string;
  subject: string;
  from_email: string;
  body: string;
  altbody: string | null;
  content_type: string;
  headers: Array<Record<string, string>>;
  tags: string[];
  attribs: Record<string, unknown>;
  template_id: number | null;
  messenger: string;
  type: string;
  send_at: Date | string | null;
  started_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  status?: string;
  body_source?: string | null;
  views?: number;
  clicks?: number;
  bounces?: number;
  /** `[{id, name}]` of the campaign's lists, or that JSON as text. */
  lists?: unknown;
  /** `[{id, filename}]` of the campaign's media, or that JSON as text. */
  media?: unknown;
  to_send?: number;
  sent?: number;
  archive?: boolean;
  archive_slug?: string | null;
  archive_template_id?: number | null;
  archive_meta?: unknown;
  /** Body of the template the campaign renders in (listmonk joins it in as `template_body`). */
  template_body?: string | null;
  archive_template_body?: string | null;
}

/** listmonk's JSONText/json.RawMessage columns: the JSON text (what Go's JSONText.String prints). */
function jsonText(v: unknown, absent: string): string {
  if (v === undefined || v === null) return absent;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** `.Campaign`: listmonk's models.Campaign, every exported field in its declaration order. */
export class CampaignView {
  // Base
  readonly ID: number;
  readonly CreatedAt: NullTime;
  readonly UpdatedAt: NullTime;
  // CampaignMeta
  readonly CampaignID: number;
  readonly Views: number;
  readonly Clicks: number;
  readonly Bounces: number;
  readonly Lists: string;
  readonly Media: string;
  readonly StartedAt: NullTime;
  readonly ToSend: number;
  readonly Sent: number;
  // Campaign
  readonly UUID: string;
  readonly Type: string;
  readonly Name: string;
  readonly Subject: string;
  readonly FromEmail: string;
  readonly Body: string;
  readonly BodySource: NullString;
  readonly AltBody: NullString;
  readonly SendAt: NullTime;
  readonly Status: string;
  readonly ContentType: string;
  readonly Tags: string[];
  readonly Headers: Array<Record<string, string>>;
  readonly Attribs: Record<string, unknown>;
  readonly TemplateID: NullInt;
  readonly Messenger: string;
  readonly Archive: boolean;
  readonly ArchiveSlug: NullString;
  readonly ArchiveTemplateID: NullInt;
  readonly ArchiveMeta: string;
  readonly TemplateBody: string;
  readonly ArchiveTemplateBody: string;
  readonly Tpl: null = null;
  readonly SubjectTpl: null = null;
  readonly AltBodyTpl: null = null;
  readonly HeaderTpls: null = null;
  readonly MediaIDs: number[];
  readonly Attachments: unknown[] = [];
  readonly Total: number = 0;

  constructor(c: CampaignRecord) {
    this.ID = c.id;
    this.CreatedAt = new NullTime(c.created_at);
    this.UpdatedAt = new NullTime(c.updated_at);
    this.CampaignID = c.id;
    this.Views = c.views ?? 0;
    this.Clicks = c.clicks ?? 0;
    this.Bounces = c.bounces ?? 0;
    this.Lists = jsonText(c.lists, '');
    this.Media = jsonText(c.media, '');
    this.StartedAt = new NullTime(c.started_at);
    this.ToSend = c.to_send ?? 0;
    this.Sent = c.sent ?? 0;
    this.UUID = c.uuid;
    this.Type = c.type;
    this.Name = c.name;
    this.Subject = c.subject;
    this.FromEmail = c.from_email;
    this.Body = c.body;
    this.BodySource = new NullString(c.body_source);
    this.AltBody = new NullString(c.altbody);
    this.SendAt = new NullTime(c.send_at);
    this.Status = c.status ?? '';
    this.ContentType = c.content_type;
    this.Tags = c.tags;
    this.Headers = c.headers;
    this.Attribs = c.attribs;
    this.TemplateID = new NullInt(c.template_id);
    this.Messenger = c.messenger;
    this.Archive = c.archive ?? false;
    this.ArchiveSlug = new NullString(c.archive_slug);
    this.ArchiveTemplateID = new NullInt(c.archive_template_id);
    this.ArchiveMeta = jsonText(c.archive_meta, '{}');
    this.TemplateBody = c.template_body ?? '';
    this.ArchiveTemplateBody = c.archive_template_body ?? '';
    this.MediaIDs = Array.isArray(c.media) ? c.media.flatMap((m) => (typeof (m as { id?: unknown })?.id === 'number' ? [(m as { id: number }).id] : [])) : [];
  }
}

/** Builds `.Campaign` from a campaign record. */
export function campaignView(c: CampaignRecord): CampaignView {
  return new CampaignView(c);
}

/**
 * The data of one campaign message (listmonk's `CampaignMessage`): `.Campaign`, `.Subscriber`, and
 * the methods `.Subject` (the subject as rendered so far: the campaign's subject while the subject
 * itself renders, the rendered one afterwards), `.Body` and `.AltBody` (the rendered parts, '' until
 * rendered; Go returns them as byte slices). One instance per message and recipient.
 */
export class CampaignMessageData {
  readonly Campaign: CampaignView;
  readonly Subscriber: SubscriberView;
  #subject: string;
  #body = '';
  #altBody = '';

  constructor(campaign: CampaignView, subscriber: SubscriberView) {
    this.Campaign = campaign;
    this.Subscriber = subscriber;
    this.#subject = campaign.Subject;
  }

  Subject(): string {
    return this.#subject;
  }

  Body(): string {
    return this.#body;
  }

  AltBody(): string {
    return this.#altBody;
  }

  /** Records a rendered part, so later parts see it (static: not reachable from templates). */
  static record(d: CampaignMessageData, part: 'subject' | 'body' | 'altBody', value: string): void {
    if (part === 'subject') d.#subject = value;
    else if (part === 'body') d.#body = value;
    else d.#altBody = value;
  }
}

/** A list row as the opt-in e-mail and list views need it (snake_case columns; optional ones default). */
export interface ListRecord {
  id: number;
  uuid: string;
  name: string;
  type: string;
  optin: string;
  tags?: string[] | null;
  description?: string | null;
  status?: string;
  created_at?: Date | string | null;
  updated_at?: Date | string | null;
  subscriber_count?: number;
  subscriber_statuses?: Record<string, number>;
  subscription_status?: string;
  subscription_created_at?: Date | string | null;
  subscription_updated_at?: Date | string | null;
}

/** A list: listmonk's models.List, every exported field. */
export class ListView {
  readonly ID: number;
  readonly CreatedAt: NullTime;
  readonly UpdatedAt: NullTime;
  readonly UUID: string;
  readonly Name: string;
  readonly Type: string;
  readonly Optin: string;
  readonly Status: string;
  readonly Tags: string[];
  readonly Description: string;
  readonly SubscriberCount: number;
  readonly SubscriberCounts: Record<string, number>;
  readonly SubscriberID: number = 0;
  readonly SubscriptionStatus: string;
  readonly SubscriptionCreatedAt: NullTime;
  readonly SubscriptionUpdatedAt: NullTime;
  readonly Total: number = 0;

  constructor(l: ListRecord) {
    this.ID = l.id;
    this.CreatedAt = new NullTime(l.created_at);
    this.UpdatedAt = new NullTime(l.updated_at);
    this.UUID = l.uuid;
    this.Name = l.name;
    this.Type = l.type;
    this.Optin = l.optin;
    this.Status = l.status ?? 'active';
    this.Tags = l.tags ?? [];
    this.Description = l.description ?? '';
    this.SubscriberCount = l.subscriber_count ?? 0;
    this.SubscriberCounts = l.subscriber_statuses ?? {};
    this.SubscriptionStatus = l.subscription_status ?? '';
    this.SubscriptionCreatedAt = new NullTime(l.subscription_created_at);
    this.SubscriptionUpdatedAt = new NullTime(l.subscription_updated_at);
  }
}

/** A transactional request as the tx API received it (snake_case; optional ones default). */
export interface TxRecord {
  subscriber_mode?: string;
  subscriber_emails?: string[];
  subscriber_ids?: number[];
  subscriber_email?: string;
  subscriber_id?: number;
  template_id?: number;
  data?: Record<string, unknown>;
  from_email?: string;
  headers?: Array<Record<string, string>>;
  content_type?: string;
  messenger?: string;
  subject?: string;
  altbody?: string;
}

/** `.Tx`: listmonk's models.TxMessage, every exported field. */
export class TxView {
  readonly SubscriberMode: string;
  readonly SubscriberEmails: string[];
  readonly SubscriberIDs: number[];
  readonly SubscriberEmail: string;
  readonly SubscriberID: number;
  readonly TemplateID: number;
  readonly Data: Record<string, unknown>;
  readonly FromEmail: string;
  readonly Headers: Array<Record<string, string>>;
  readonly ContentType: string;
  readonly Messenger: string;
  readonly Subject: string;
  readonly AltBody: string;
  readonly Attachments: unknown[] = [];
  readonly Body: string = '';
  readonly Tpl: null = null;
  readonly SubjectTpl: null = null;

  constructor(t: TxRecord) {
    this.SubscriberMode = t.subscriber_mode ?? 'default';
    this.SubscriberEmails = t.subscriber_emails ?? [];
    this.SubscriberIDs = t.subscriber_ids ?? [];
    this.SubscriberEmail = t.subscriber_email ?? '';
    this.SubscriberID = t.subscriber_id ?? 0;
    this.TemplateID = t.template_id ?? 0;
    this.Data = t.data ?? {};
    this.FromEmail = t.from_email ?? '';
    this.Headers = t.headers ?? [];
    this.ContentType = t.content_type ?? '';
    this.Messenger = t.messenger ?? '';
    this.Subject = t.subject ?? '';
    this.AltBody = t.altbody ?? '';
  }
}

/**
 * The data of the double opt-in e-mail (listmonk's `subOptin`): `.Subscriber`, the subscriber's
 * fields and methods promoted to the top (`.Name`, `.Email`, `.FirstName`, … as Go promotes an
 * embedded struct's), `.Lists` (the lists to confirm), `.OptinURL` and `.UnsubURL`.
 */
export class OptinData {
  readonly Subscriber: SubscriberView;
  readonly ID: number;
  readonly CreatedAt: NullTime;
  readonly UpdatedAt: NullTime;
  readonly UUID: string;
  readonly Email: string;
  readonly Name: string;
  readonly Attribs: Record<string, unknown>;
  readonly Status: string;
  readonly Lists: ListView[];
  readonly OptinURL: string;
  readonly UnsubURL: string;

  constructor(sub: SubscriberView, lists: ListView[], optinUrl: string, unsubUrl: string) {
    this.Subscriber = sub;
    this.ID = sub.ID;
    this.CreatedAt = sub.CreatedAt;
    this.UpdatedAt = sub.UpdatedAt;
    this.UUID = sub.UUID;
    this.Email = sub.Email;
    this.Name = sub.Name;
    this.Attribs = sub.Attribs;
    this.Status = sub.Status;
    this.Lists = lists;
    this.OptinURL = optinUrl;
    this.UnsubURL = unsubUrl;
  }

  get FirstName(): string {
    return this.Subscriber.FirstName;
  }

  get LastName(): string {
    return this.Subscriber.LastName;
  }
}
