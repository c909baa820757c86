/**
 * Public campaign pages (issue 4 §4, reference §17): "view in browser" (`/campaign/:c/:s`, the message
 * as that subscriber got it) and the public archive (campaigns marked `archive`, rendered with their
 * archive template for a placeholder subscriber built from `archive_meta`).
 */
import type { Db } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';
import { CampaignMessageBuilder, type CampaignForMessage, type MessageUrls, type SubscriberForMessage } from '../../mail/campaign-message.js';
import { placeholderSubscriber, untrackedUrls, ZERO_UUID } from '../../mail/sample-data.js';
import type { RenderedBody } from '../../http/rendered.js';

const Q = loadQueries(new URL('./queries.sql', import.meta.url), [
  'page-campaign-by-uuid',
  'page-recipient-by-uuid',
  'archive-query',
  'archive-get',
  'archive-count',
]);

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/iu;

/** A campaign as the pages load it. */
export interface PageCampaign extends CampaignForMessage {
  status: string;
  /** Messages sent so far. */
  sent: number;
  archive: boolean;
  archive_slug: string | null;
  archive_meta: Record<string, unknown>;
  template_body: string | null;
  archive_template_body: string | null;
}

/** An archived campaign with its publication time. */
export interface ArchivedCampaign extends PageCampaign {
  published_at: Date;
}

/** One archive entry, rendered. */
export interface ArchiveEntry {
  uuid: string;
  subject: string;
  url: string;
  published_at: Date;
  send_at: Date | null;
  created_at: Date;
  /** The rendered HTML (null when not asked for or when it failed to render). */
  html: string | null;
}

/** Outcome of "view in browser". */
export type ViewResult = { kind: 'rendered'; body: RenderedBody } | { kind: 'redirect'; url: string } | { kind: 'not-found' };

/** What the pages need from outside their module. */
export interface CampaignPageDeps {
  db: Db;
  rootUrl: () => string;
  /** URLs of real messages (tracking as configured), the same the delivery engine uses. */
  urls: () => MessageUrls;
  /** Setting `app.enable_public_archive`. */
  archiveEnabled: () => boolean;
  /** Setting `app.enable_public_archive_rss_content`. */
  rssContent: () => boolean;
}

/** Page size of the archive. */
export const ARCHIVE_PER_PAGE = 20;

/** Statuses in which a campaign has been (or is being) sent. */
const SENDING_STATUSES = ['running', 'paused', 'finished', 'cancelled'];

/**
 * Whether "view in browser" may show the campaign (issue 14 finding 10): it has been sent to someone
 * (a sending status and `sent` > 0). Drafts and scheduled campaigns are not shown, not even through a
 * test send's link.
 */
export function hasBeenSent(c: Pick<PageCampaign, 'status' | 'sent'>): boolean {
  return SENDING_STATUSES.includes(c.status) && c.sent > 0;
}

function isArchived(c: PageCampaign): boolean {
  return c.archive && c.type === 'regular' && ['running', 'paused', 'finished'].includes(c.status);
}

/** Public campaign pages. */
export class CampaignPageService {
  constructor(private readonly d: CampaignPageDeps) {}

  /** Whether the public archive is served. */
  get archiveEnabled(): boolean {
    return this.d.archiveEnabled();
  }

  /** Whether the RSS feed carries each message's HTML. */
  get rssContent(): boolean {
    return this.d.rssContent();
  }

  /** Public base URL. */
  get rootUrl(): string {
    return this.d.rootUrl();
  }

  /** The public URL of an archived campaign: `/archive/<slug or uuid>`. */
  archiveUrl(c: { archive_slug: string | null; uuid: string }): string {
    return `${this.d.rootUrl()}/archive/${c.archive_slug ?? c.uuid}`;
  }

  /**
   * Renders a campaign as the subscriber got it. The all-zero subscriber UUID (links in archived or
   * preview renders) redirects to the archive page of an archived campaign. Not found: unknown UUIDs,
   * a campaign not yet sent ({@link hasBeenSent}), and a subscriber the campaign does not go to (the
   * delivery engine's recipient rule: enabled, on one of its lists with a subscription that receives
   * mail), so a draft cannot be read, nor a campaign rendered with anyone's data, by whoever has a
   * subscriber UUID (issue 14 finding 10). Throws TemplateExecError when the message fails to render.
   */
  async viewInBrowser(campaignUuid: string, subscriberUuid: string): Promise<ViewResult> {
    if (!UUID_RE.test(campaignUuid) || !UUID_RE.test(subscriberUuid)) return { kind: 'not-found' };
    const [c] = await this.d.db.run<PageCampaign>(Q['page-campaign-by-uuid'], { uuid: campaignUuid.toLowerCase() });
    if (c === undefined) return { kind: 'not-found' };
    if (subscriberUuid === ZERO_UUID) return isArchived(c) ? { kind: 'redirect', url: this.archiveUrl(c) } : { kind: 'not-found' };
    if (!hasBeenSent(c)) return { kind: 'not-found' };
    const [sub] = await this.d.db.run<SubscriberForMessage>(Q['page-recipient-by-uuid'], { uuid: subscriberUuid.toLowerCase(), campaign_id: c.id });
    if (sub === undefined) return { kind: 'not-found' };
    const builder = new CampaignMessageBuilder(c, c.template_body, this.d.urls(), { textAlternative: false });
    return { kind: 'rendered', body: builder.renderBody(sub) };
  }

  /** One page (from 1) of the archive, newest first; `withHtml` renders each message too. */
  async archivePage(page: number, perPage = ARCHIVE_PER_PAGE, withHtml = false): Promise<{ entries: ArchiveEntry[]; total: number }> {
    const rows = await this.d.db.run<ArchivedCampaign & { total: number }>(Q['archive-query'], { limit: perPage, offset: (page - 1) * perPage });
    // Past the last page there is no row to carry the total.
    const total = rows[0]?.total ?? (page > 1 ? ((await this.d.db.run<{ total: number }>(Q['archive-count']))[0]?.total ?? 0) : 0);
    return { entries: rows.map((c) => this.entry(c, withHtml)), total };
  }

  /** One archived campaign by UUID or slug, rendered; `latest` is the newest. Null when not archived. */
  async archiveMessage(key: string): Promise<{ entry: ArchiveEntry; body: RenderedBody } | null> {
    const [c] = key === 'latest'
      ? await this.d.db.run<ArchivedCampaign>(Q['archive-query'], { limit: 1, offset: 0 })
      : await this.d.db.run<ArchivedCampaign>(Q['archive-get'], { key });
    if (c === undefined) return null;
    return { entry: this.entry(c, false), body: this.builder(c).renderBody(placeholderSubscriber(c.archive_meta)) };
  }

  private builder(c: PageCampaign): CampaignMessageBuilder {
    return new CampaignMessageBuilder(c, c.archive_template_body, untrackedUrls(this.d.rootUrl()), { textAlternative: false });
  }

  /** An archive entry; the subject is rendered for the placeholder subscriber (raw if that fails). */
  private entry(c: ArchivedCampaign, withHtml: boolean): ArchiveEntry {
    const sub = placeholderSubscriber(c.archive_meta);
    let subject = c.subject;
    let html: string | null = null;
    try {
      const builder = this.builder(c);
      subject = builder.renderSubject(sub);
      if (withHtml) {
        const body = builder.renderBody(sub);
        html = body.html ?? `<pre>${(body.text ?? '').replace(/[&<>]/gu, (ch) => `&#${ch.charCodeAt(0)};`)}</pre>`;
      }
    } catch {
      // A campaign that no longer renders is listed with its raw subject and without content.
    }
    return { uuid: c.uuid, subject, url: this.archiveUrl(c), published_at: c.published_at, send_at: c.send_at, created_at: c.created_at, html };
  }
}
