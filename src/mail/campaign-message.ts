/**
 * Builds campaign messages: the campaign body is compiled once as the template `content` inside its
 * template (`base`), then executed per subscriber (reference §16.1). Subjects, header values and the
 * plain-text alternative are rendered without HTML escaping. Every message carries the subscriber's
 * unsubscribe URL as `List-Unsubscribe` with RFC 8058 one-click, and a Message-ID derived from the
 * campaign and subscriber, so a message re-sent after a crash carries the same Message-ID.
 *
 * Content types (issue 4 §3): `richtext` and `html` are HTML as written; `markdown` is converted to
 * HTML first (src/mail/markdown.ts); `plain` is sent as text/plain and, like `visual` (a complete
 * document from a visual editor), is not wrapped in the campaign's template, which is HTML. HTML
 * messages get a text alternative: the campaign's `altbody` rendered as a text template, or, when it
 * has none, text generated from the HTML (src/mail/text-alternative.ts).
 */
import {
  CampaignMessageData, campaignView, compile, compileTextPart, subscriberView,
  type CampaignRecord, type CampaignView, type CompiledTemplate, type RenderEnv, type TemplateSource,
} from '../templating/index.js';
import { emailDomain, parseSender } from './address.js';
import { markdownToHtml } from './markdown.js';
import type { MessageContext, OutgoingMessage } from './messenger.js';
import { compileTextAlternative, htmlToText } from './text-alternative.js';

/**
 * The campaign fields a message needs. The optional fields of {@link CampaignRecord} (status,
 * counters, lists, archive settings, …) fill in the rest of `.Campaign` when the caller has them;
 * absent, they take listmonk's zero values.
 */
export interface CampaignForMessage extends CampaignRecord {
  /** The stored times as read from the database (the record also takes strings). */
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
  /** `privacy.individual_tracking`: false puts the zero UUID in the pixel instead of the subscriber's. */
  individualTracking?: boolean;
  /** `privacy.unsubscribe_header` (default true): add List-Unsubscribe and List-Unsubscribe-Post. */
  unsubscribeHeader?: boolean;
  /** `app.logo_url`, what `LogoURL` returns; default ''. */
  logoUrl?: string;
  /** `app.lang`, the language of `L`; default 'en'. */
  lang?: string;
}

const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

const BASE_PLACEHOLDER = '{{ template "content" . }}';

/** Converts a campaign body to the HTML the template language sees (markdown → HTML first). */
export function bodyAsHtml(body: string, contentType: string): string {
  return contentType === 'markdown' ? markdownToHtml(body) : body;
}

/** True when a campaign of this content type is wrapped in its template (not `plain`, not `visual`). */
export function usesTemplate(contentType: string): boolean {
  return contentType !== 'plain' && contentType !== 'visual';
}

/** Options of {@link CampaignMessageBuilder}. */
export interface BuilderOptions {
  /** Prepare the text alternative of HTML messages (default true; previews and web pages skip it). */
  textAlternative?: boolean;
}

/** How an HTML message gets its text alternative (for logs and tests). */
export type TextAlternativeMode = 'altbody' | 'template' | 'per-message' | 'none';

/** Tidies generated text: no trailing blanks, at most one empty line in a row (cheap per message). */
function tidyText(text: string): string {
  return text.replace(/[ \t]+\n/gu, '\n').replace(/\n{3,}/gu, '\n\n').trim();
}

/** The subscriber's unsubscribe URL: `/subscription/:campaignUUID/:subscriberUUID` (reference §16.3). */
export function unsubscribeUrl(rootUrl: string, campaignUuid: string, subscriberUuid: string): string {
  return `${rootUrl}/subscription/${campaignUuid}/${subscriberUuid}`;
}

/** The text alternative of an HTML campaign: its altbody, else text converted from the HTML sources. */
function prepareText(altbody: string | null, sources: TemplateSource[]): [CompiledTemplate | null, TextAlternativeMode] {
  if (altbody) return [compileTextPart('altbody', altbody), 'altbody'];
  const converted = compileTextAlternative(sources);
  return converted === null ? [null, 'per-message'] : [converted, 'template'];
}

/** A campaign compiled for sending: call {@link render} once per subscriber. */
export class CampaignMessageBuilder {
  private readonly body: CompiledTemplate;
  private readonly subject: CompiledTemplate;
  /** The text alternative as a template (altbody, or text converted from the HTML sources). */
  private readonly text: CompiledTemplate | null;
  /** How the text alternative is made. */
  readonly textMode: TextAlternativeMode;
  private readonly headers: Array<[string, CompiledTemplate]>;
  private readonly view: CampaignView;
  private readonly domain: string;
  private readonly env: RenderEnv;
  private readonly textEnv: RenderEnv;
  private readonly isPlain: boolean;

  /**
   * Compiles the campaign inside `templateBody` (null: the body is the whole message; ignored for
   * `plain` and `visual` campaigns). Throws TemplateSyntaxError when the body, subject, altbody or a
   * header does not parse.
   */
  constructor(
    private readonly campaign: CampaignForMessage,
    templateBody: string | null,
    private readonly urls: MessageUrls,
    opts: BuilderOptions = {},
  ) {
    this.isPlain = campaign.content_type === 'plain';
    const sources: TemplateSource[] = [
      { name: 'base', source: usesTemplate(campaign.content_type) ? (templateBody ?? BASE_PLACEHOLDER) : BASE_PLACEHOLDER },
      { name: 'content', source: bodyAsHtml(campaign.body, campaign.content_type) },
    ];
    this.body = compile(sources, { mode: this.isPlain ? 'text' : 'html' });
    this.subject = compileTextPart('subject', campaign.subject);
    [this.text, this.textMode] = this.isPlain || opts.textAlternative === false ? [null, 'none'] : prepareText(campaign.altbody, sources);
    this.headers = campaign.headers.flatMap((h) =>
      Object.entries(h).map(([k, v]): [string, CompiledTemplate] => [k, compileTextPart(`header ${k}`, v, { shorthands: false })]),
    );
    this.view = campaignView(campaign);
    this.domain = emailDomain(parseSender(campaign.from_email)?.address ?? 'mailroom@localhost');
    this.env = this.makeEnv();
    // The text alternative has no tracking pixel.
    this.textEnv = { ...this.env, trackView: () => '' };
  }

  private makeEnv(): RenderEnv {
    const { rootUrl } = this.urls;
    const c = this.campaign;
    const subUuid = (root: unknown): string => (root as { Subscriber: { UUID: string } }).Subscriber.UUID;
    return {
      rootUrl,
      logoUrl: this.urls.logoUrl ?? '',
      lang: this.urls.lang ?? 'en',
      unsubscribeUrl: (root) => unsubscribeUrl(rootUrl, c.uuid, subUuid(root)),
      manageUrl: (root) => `${unsubscribeUrl(rootUrl, c.uuid, subUuid(root))}?manage=true`,
      optinUrl: (root) => `${rootUrl}/subscription/optin/${subUuid(root)}?`,
      messageUrl: (root) => `${rootUrl}/campaign/${c.uuid}/${subUuid(root)}`,
      archiveUrl: () => `${rootUrl}/archive`,
      trackView: (root) =>
        this.urls.trackViews
          ? `<img src="${rootUrl}/campaign/${c.uuid}/${this.urls.individualTracking === false ? ZERO_UUID : subUuid(root)}/px.png" width="1" height="1" style="display:none;max-height:0;max-width:0;opacity:0" alt="">`
          : '',
      trackLink: (url, root) => (this.urls.trackLink ? this.urls.trackLink(url, subUuid(root)) : url),
    };
  }

  /** URLs passed to TrackLink as literals (body and text alternative), for registration before sending. */
  trackedUrls(): string[] {
    return [...new Set([...this.body.trackedUrls(), ...(this.text?.trackedUrls() ?? [])])];
  }

  /** The data templates see for one subscriber: listmonk's CampaignMessage (`.Subscriber`, `.Campaign`, `.Subject`, …). */
  private data(sub: SubscriberForMessage): CampaignMessageData {
    return new CampaignMessageData(this.view, subscriberView(sub));
  }

  /** Renders the subject into `data` first, as listmonk does, so the body's `.Subject` is the rendered one. */
  private subjectOf(data: CampaignMessageData): string {
    const subject = this.subject.execute(data, this.env).replace(/[\r\n]+/gu, ' ');
    CampaignMessageData.record(data, 'subject', subject);
    return subject;
  }

  /**
   * Renders only the body for one subscriber: HTML, or text for `plain` campaigns (previews, "view in
   * browser", the archive). Throws TemplateExecError when the template (subject or body) fails for them.
   */
  renderBody(sub: SubscriberForMessage): { html?: string; text?: string } {
    const data = this.data(sub);
    this.subjectOf(data);
    const body = this.body.execute(data, this.env);
    return this.isPlain ? { text: body } : { html: body };
  }

  /** Renders the subject for one subscriber (text, one line). */
  renderSubject(sub: SubscriberForMessage): string {
    return this.subjectOf(this.data(sub));
  }

  /** Renders the message for one subscriber. Throws TemplateExecError when the template fails for them. */
  render(sub: SubscriberForMessage): OutgoingMessage {
    const data = this.data(sub);
    const subject = this.subjectOf(data);
    const body = this.body.execute(data, this.env);
    CampaignMessageData.record(data, 'body', body);
    const alternative = this.isPlain ? {} : this.textAlternative(data, body);
    if (alternative.text !== undefined) CampaignMessageData.record(data, 'altBody', alternative.text);
    const unsub = unsubscribeUrl(this.urls.rootUrl, this.campaign.uuid, sub.uuid);
    const headers: Array<[string, string]> = [];
    if (this.urls.unsubscribeHeader !== false) {
      headers.push(['List-Unsubscribe', `<${unsub}>`], ['List-Unsubscribe-Post', 'List-Unsubscribe=One-Click']);
    }
    headers.push(
      ['X-Mailroom-Campaign', this.campaign.uuid],
      ['X-Mailroom-Subscriber', sub.uuid],
      ['X-Listmonk-Campaign', this.campaign.uuid],
      ['X-Listmonk-Subscriber', sub.uuid],
    );
    for (const [name, tpl] of this.headers) headers.push([name, tpl.execute(data, this.env).replace(/[\r\n]+/gu, ' ')]);
    return {
      from: this.campaign.from_email,
      to: { name: sub.name, address: sub.email },
      subject,
      ...(this.isPlain ? { text: body } : { html: body, ...alternative }),
      headers,
      messageId: `${this.campaign.uuid}.${sub.uuid}@${this.domain}`,
      context: this.context(sub),
    };
  }

  /** Recipient and campaign fields for postback messengers (listmonk reference §18.2). */
  private context(sub: SubscriberForMessage): MessageContext {
    const c = this.campaign;
    return {
      contentType: c.content_type,
      recipient: { uuid: sub.uuid, email: sub.email, name: sub.name, attribs: sub.attribs, status: sub.status },
      campaign: { uuid: c.uuid, name: c.name, from_email: c.from_email, headers: c.headers, tags: c.tags },
    };
  }

  private textAlternative(data: unknown, html: string): { text?: string } {
    switch (this.textMode) {
      case 'altbody':
        return { text: this.text!.execute(data, this.textEnv) };
      case 'template':
        return { text: tidyText(this.text!.execute(data, this.textEnv)) };
      case 'per-message':
        return { text: tidyText(htmlToText(html)) };
      default:
        return {};
    }
  }
}
