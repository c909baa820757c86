/**
 * Tracked links (listmonk reference §16.3, §17): every URL a campaign passes to `TrackLink` is stored in
 * `links` (one row per URL) and attached to the campaign in `campaign_links` before a message carrying
 * it is sent, so the click endpoint can redirect only to URLs a campaign registered (no open redirect).
 * URLs known when the campaign compiles (`trackedUrls()`) are registered when its job starts; URLs
 * computed per subscriber (`{{ TrackLink .Subscriber.Attribs.url }}`) are collected during rendering and
 * registered before that message is sent (the job renders it again). http(s) and mailto URLs are tracked.
 */
import type { Db } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';

const Q = loadQueries(new URL('./links.sql', import.meta.url), ['links-register']);

/** The zero UUID listmonk puts in tracking URLs instead of the subscriber's without individual tracking. */
export const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

/** Most URLs remembered per process (uuid by URL); older entries are dropped first. */
const CACHE_LIMIT = 20_000;
/** Longest URL that is tracked; longer ones are left as they are. */
const MAX_URL_LENGTH = 2048;

/**
 * True for a URL that can be tracked: http, https or mailto, of sane length. As listmonk, `mailto:`
 * links and URLs with spaces are tracked too (issue 15 item 10); the click redirect percent-encodes
 * what a Location header cannot carry (see {@link locationOf}).
 */
export function isTrackable(url: string): boolean {
  return url.length <= MAX_URL_LENGTH && /^(?:https?:\/\/[^\s]|mailto:[^\s])/iu.test(url);
}

/**
 * A stored link as a Location header value: spaces, controls and non-ASCII characters
 * percent-encoded as UTF-8 (existing `%XX` escapes are kept), so any registered URL redirects.
 */
export function locationOf(url: string): string {
  return url.replace(/[^\x21-\x7e]/gu, (c) => [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
}

/** Registers and resolves tracked links; one per process, shared by every campaign job. */
export class LinkRegistry {
  private readonly uuids = new Map<string, string>();
  /** Links known to be attached to a campaign: `${campaignId} ${url}`. */
  private readonly attached = new Set<string>();

  constructor(private readonly db: Db) {}

  /** The link UUID of a URL already registered for the campaign, or undefined. */
  uuidFor(campaignId: number, url: string): string | undefined {
    return this.attached.has(`${campaignId} ${url}`) ? this.uuids.get(url) : undefined;
  }

  /** Registers `urls` (trackable ones) for the campaign. Idempotent; safe across instances. */
  async register(campaignId: number, urls: Iterable<string>): Promise<void> {
    const todo = [...new Set(urls)].filter((u) => isTrackable(u) && !this.attached.has(`${campaignId} ${u}`));
    if (todo.length === 0) return;
    // Two attempts: a URL inserted concurrently by another instance is invisible to the first statement.
    for (let attempt = 0; attempt < 2; attempt++) {
      const rows = await this.db.run<{ uuid: string; url: string }>(Q['links-register'], { campaign_id: campaignId, urls: todo });
      for (const r of rows) this.remember(campaignId, r.url, r.uuid);
      if (todo.every((u) => this.attached.has(`${campaignId} ${u}`))) return;
    }
  }

  private remember(campaignId: number, url: string, uuid: string): void {
    if (this.uuids.size >= CACHE_LIMIT) {
      this.uuids.clear();
      this.attached.clear();
    }
    this.uuids.set(url, uuid);
    this.attached.add(`${campaignId} ${url}`);
  }
}

/**
 * One campaign's view of the registry for rendering: `trackLink` resolves registered URLs and notes
 * unregistered trackable ones in `missing` (the caller registers them and renders again).
 */
export class CampaignLinks {
  readonly missing = new Set<string>();

  constructor(
    private readonly registry: LinkRegistry,
    private readonly campaign: { id: number; uuid: string },
    private readonly rootUrl: string,
    private readonly individual: boolean,
  ) {}

  /** The tracked URL for `url` and this subscriber; the URL itself when it is not (yet) registered. */
  trackLink(url: string, subscriberUuid: string): string {
    if (!isTrackable(url)) return url;
    const uuid = this.registry.uuidFor(this.campaign.id, url);
    if (uuid === undefined) {
      this.missing.add(url);
      return url;
    }
    return `${this.rootUrl}/link/${uuid}/${this.campaign.uuid}/${this.individual ? subscriberUuid : ZERO_UUID}`;
  }

  /** Registers `urls` for this campaign (the literals of its templates, before the first send). */
  async registerAll(urls: Iterable<string>): Promise<void> {
    await this.registry.register(this.campaign.id, urls);
  }

  /** Registers the URLs noted as missing; returns true when there were any. */
  async registerMissing(): Promise<boolean> {
    if (this.missing.size === 0) return false;
    const urls = [...this.missing];
    this.missing.clear();
    await this.registry.register(this.campaign.id, urls);
    return true;
  }
}
