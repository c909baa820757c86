/**
 * Builds campaign messages: the campaign body is compiled once as the template `content` inside its
 * template (`base`), then executed per subscriber (reference §16.1). Subjects, header values and the
 * plain-text alternative are rendered without HTML escaping. Every message carries the subscriber's
 * unsubscribe URL as `List-Unsubscribe` with RFC 8058 one-click, and a Message-ID derived from the
 * campaign and subscriber, so a message re-sent after a crash carries the same Message-ID.
 */
import MarkdownIt from 'markdown-it';
import { compile, subscriberView, type CompiledTemplate, type RenderEnv } from '../templating/index.js';
import { emailDomain, parseSender } from './address.js';
import type { OutgoingMessage } from './messenger.js';

/** The campaign fields a message needs. */
export interface CampaignForMessage {
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
  send_at: Date | null;
  started_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The subscriber fields a message needs (a subscribers row). */
export interface SubscriberForMessage {
  id: number;
  uuid: string;
  email: string;
  name: string;
  status: string;
  attribs: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

/** Public URLs used inside messages. */
export interface MessageUrls {
  /** Public base URL without trailing slash. */
  rootUrl: string;
  /** Whether TrackView emits the tracking pixel. */
  trackViews: boolean;
  /** Resolves a TrackLink URL for a subscriber; identity when link tracking is off. */
  trackLink?: (url: string, subscriberUuid: string) => string;
}

const BASE_PLACEHOLDER = '{{ template "content" . }}';
const markdown = new MarkdownIt({ html: true, linkify: false, typographer: false });

/** Converts a campaign body to the HTML the template language sees (markdown → HTML first). */
export function bodyAsHtml(body: string, contentType: string): string {
  return contentType === 'markdown' ? markdown.render(body) : body;
}

/** The subscriber's unsubscribe URL: `/subscription/:campaignUUID/:subscriberUUID` (reference §16.3). */
export function unsubscribeUrl(rootUrl: string, campaignUuid: string, subscriberUuid: string): string {
  return `${rootUrl}/subscription/${campaignUuid}/${subscriberUuid}`;
}

function campaignView(c: CampaignForMessage) {
  return {
    ID: c.id,
    UUID: c.uuid,
    Name: c.name,
    Subject: c.subject,
    FromEmail: c.from_email,
    Tags: c.tags,
    Headers: c.headers,
    Attribs: c.attribs,
    TemplateID: c.template_id ?? 0,
    Messenger: c.messenger,
    Type: c.type,
    SendAt: c.send_at,
    StartedAt: c.started_at,
    CreatedAt: c.created_at,
    UpdatedAt: c.updated_at,
  };
}

/** A campaign compiled for sending: call {@link render} once per subscriber. */
export class CampaignMessageBuilder {
  private readonly body: CompiledTemplate;
  private readonly subject: CompiledTemplate;
  private readonly altbody: CompiledTemplate | null;
  private readonly headers: Array<[string, CompiledTemplate]>;
  private readonly view: ReturnType<typeof campaignView>;
  private readonly domain: string;
  private readonly env: RenderEnv;

  /**
   * Compiles the campaign inside `templateBody` (null: the body is the whole message).
   * Throws TemplateSyntaxError when the body, subject, altbody or a header does not parse.
   */
  constructor(
    private readonly campaign: CampaignForMessage,
    templateBody: string | null,
    private readonly urls: MessageUrls,
  ) {
    const isPlain = campaign.content_type === 'plain';
    const content = bodyAsHtml(campaign.body, campaign.content_type);
    this.body = compile(
      [
        { name: 'base', source: templateBody ?? BASE_PLACEHOLDER },
        { name: 'content', source: content },
      ],
      { mode: isPlain ? 'text' : 'html' },
    );
    this.subject = compile([{ name: 'subject', source: campaign.subject }], { mode: 'text' });
    this.altbody = !isPlain && campaign.altbody ? compile([{ name: 'altbody', source: campaign.altbody }], { mode: 'text' }) : null;
    this.headers = campaign.headers.flatMap((h) =>
      Object.entries(h).map(([k, v]): [string, CompiledTemplate] => [k, compile([{ name: `header ${k}`, source: v }], { mode: 'text' })]),
    );
    this.view = campaignView(campaign);
    this.domain = emailDomain(parseSender(campaign.from_email)?.address ?? 'mailroom@localhost');
    this.env = this.makeEnv();
  }

  private makeEnv(): RenderEnv {
    const { rootUrl } = this.urls;
    const c = this.campaign;
    const subUuid = (root: unknown): string => (root as { Subscriber: { UUID: string } }).Subscriber.UUID;
    return {
      rootUrl,
      unsubscribeUrl: (root) => unsubscribeUrl(rootUrl, c.uuid, subUuid(root)),
      manageUrl: (root) => `${unsubscribeUrl(rootUrl, c.uuid, subUuid(root))}?manage=true`,
      optinUrl: (root) => `${rootUrl}/subscription/optin/${subUuid(root)}?`,
      messageUrl: (root) => `${rootUrl}/campaign/${c.uuid}/${subUuid(root)}`,
      archiveUrl: () => `${rootUrl}/archive`,
      trackView: (root) =>
        this.urls.trackViews
          ? `<img src="${rootUrl}/campaign/${c.uuid}/${subUuid(root)}/px.png" width="1" height="1" alt="" style="display:none;border:0;">`
          : '',
      trackLink: (url, root) => (this.urls.trackLink ? this.urls.trackLink(url, subUuid(root)) : url),
    };
  }

  /** URLs passed to TrackLink as literals, for registration before sending. */
  trackedUrls(): string[] {
    return this.body.trackedUrls();
  }

  /** Renders the message for one subscriber. Throws TemplateExecError when the template fails for them. */
  render(sub: SubscriberForMessage): OutgoingMessage {
    const data = { Subscriber: subscriberView(sub), Campaign: this.view };
    const body = this.body.execute(data, this.env);
    const unsub = unsubscribeUrl(this.urls.rootUrl, this.campaign.uuid, sub.uuid);
    const headers: Array<[string, string]> = [
      ['List-Unsubscribe', `<${unsub}>`],
      ['List-Unsubscribe-Post', 'List-Unsubscribe=One-Click'],
      ['X-Mailroom-Campaign', this.campaign.uuid],
      ['X-Mailroom-Subscriber', sub.uuid],
      ['X-Listmonk-Campaign', this.campaign.uuid],
      ['X-Listmonk-Subscriber', sub.uuid],
    ];
    for (const [name, tpl] of this.headers) headers.push([name, tpl.execute(data, this.env).replace(/[\r\n]+/gu, ' ')]);
    const isPlain = this.campaign.content_type === 'plain';
    return {
      from: this.campaign.from_email,
      to: { name: sub.name, address: sub.email },
      subject: this.subject.execute(data, this.env).replace(/[\r\n]+/gu, ' '),
      ...(isPlain ? { text: body } : { html: body }),
      ...(this.altbody ? { text: this.altbody.execute(data, this.env) } : {}),
      headers,
      messageId: `${this.campaign.uuid}.${sub.uuid}@${this.domain}`,
    };
  }
}
