/**
 * Views, clicks and their analytics (listmonk reference §7.10, §17).
 * Privacy switches are read on every request, so changing them takes effect at once.
 */
import type { Db } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';
import { FieldError, ForbiddenError } from '../../errors.js';
import type { Principal } from '../../http/access.js';
import { campaignScope } from '../../http/list-scope.js';
import { ZERO_UUID } from './links.js';
import type { CountBucket, LinkCount } from './schemas.js';
import type { PrivacySwitches } from './settings.js';

const Q = loadQueries(new URL('./queries.sql', import.meta.url), [
  'view-insert',
  'click-target',
  'click-insert',
  'analytics-views',
  'analytics-clicks',
  'analytics-bounces',
  'analytics-links',
  'analytics-campaigns-outside-scope',
]);

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/iu;

/** True for a syntactically valid UUID. */
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/** Analytics kinds of GET /api/campaigns/analytics/:type. */
export type AnalyticsType = 'views' | 'clicks' | 'bounces' | 'links';

const DAY_MS = 86_400_000;

/**
 * Parses an analytics bound: a date (`2024-05-01`, whole day; `to` includes that day) or an RFC 3339
 * timestamp. Throws FieldError naming `field`.
 */
export function parseBound(value: string, field: 'from' | 'to'): Date {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/u.test(value);
  const t = Date.parse(dateOnly ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(t) || !/^\d{4}-\d{2}-\d{2}/u.test(value)) throw new FieldError(field, 'must be a date (YYYY-MM-DD) or an RFC 3339 timestamp');
  return new Date(dateOnly && field === 'to' ? t + DAY_MS : t);
}

/** Tracking use cases. */
export class TrackingService {
  constructor(
    private readonly db: Db,
    private readonly privacy: () => PrivacySwitches,
  ) {}

  /** Records an open (ignored with tracking disabled, for zero or malformed UUIDs and unknown campaigns). */
  async recordView(campaignUuid: string, subscriberUuid: string): Promise<void> {
    const p = this.privacy();
    if (p.disableTracking || !isUuid(campaignUuid) || !isUuid(subscriberUuid) || campaignUuid === ZERO_UUID) return;
    await this.db.run(Q['view-insert'], { campaign_uuid: campaignUuid.toLowerCase(), subscriber_uuid: subscriberUuid.toLowerCase(), individual: p.individualTracking });
  }

  /**
   * Resolves a tracking URL to its target and records the click. Null (no redirect) when the link is
   * unknown or the campaign did not register it; a zero campaign UUID (previews) redirects unrecorded.
   */
  async click(linkUuid: string, campaignUuid: string, subscriberUuid: string): Promise<string | null> {
    if (!isUuid(linkUuid) || !isUuid(campaignUuid) || !isUuid(subscriberUuid)) return null;
    const [t] = await this.db.run<{ link_id: number; url: string; campaign_id: number | null; registered: boolean }>(Q['click-target'], {
      link_uuid: linkUuid.toLowerCase(),
      campaign_uuid: campaignUuid.toLowerCase(),
    });
    if (t === undefined) return null;
    if (campaignUuid === ZERO_UUID) return t.url;
    if (!t.registered) return null;
    const p = this.privacy();
    if (!p.disableTracking) {
      await this.db.run(Q['click-insert'], { campaign_id: t.campaign_id, link_id: t.link_id, subscriber_uuid: subscriberUuid.toLowerCase(), individual: p.individualTracking });
    }
    return t.url;
  }

  /**
   * Analytics of the given campaigns between `from` and `to` (listmonk §7.10). 403 `Permission denied:
   * campaigns:get` when one of them is outside what `principal` may read (issue 16, src/http/list-scope.ts).
   */
  async analytics(type: AnalyticsType, ids: number[], from: Date, to: Date, principal?: Principal): Promise<CountBucket[] | LinkCount[]> {
    if (to.getTime() <= from.getTime()) throw new FieldError('to', 'must be after from');
    const scope = campaignScope(principal, 'get');
    if (scope !== null && ids.length > 0) {
      const [denied] = await this.db.run<{ id: number }>(Q['analytics-campaigns-outside-scope'], { ids: [...new Set(ids)], scope });
      if (denied !== undefined) throw new ForbiddenError('Permission denied: campaigns:get');
    }
    const params = {
      ids: [...new Set(ids)],
      from,
      to,
      bucket: to.getTime() - from.getTime() >= 7 * DAY_MS ? 'day' : 'hour',
      unique: this.privacy().individualTracking,
    };
    if (type === 'links') return this.db.run<LinkCount>(Q['analytics-links'], { ids: params.ids, from, to });
    if (type === 'bounces') return this.db.run<CountBucket>(Q['analytics-bounces'], { ids: params.ids, from, to, bucket: params.bucket });
    return this.db.run<CountBucket>(Q[type === 'views' ? 'analytics-views' : 'analytics-clicks'], params);
  }
}
