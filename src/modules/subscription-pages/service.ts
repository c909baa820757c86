/**
 * The public pages behind the links in campaign e-mails (issue "Foundation" §11, reference §17):
 * unsubscribing (a confirmation page on GET; the change only on POST, including RFC 8058 one-click) and
 * the open-tracking pixel.
 */
import type { Db } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';
import type { SubscriberRepo, SubscriberRow } from '../subscribers/repo.js';

const Q = loadQueries(new URL('./queries.sql', import.meta.url), [
  'campaign-by-uuid',
  'subscriber-lists-of-campaign',
  'unsubscribe-from-lists',
  'view-insert',
]);

/** The all-zero UUID listmonk uses in links that belong to no campaign (opt-in mails, previews). */
export const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/iu;

/** True for a syntactically valid UUID. */
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/** A campaign as the public pages need it. */
export interface PublicCampaign {
  id: number;
  uuid: string;
  name: string;
  subject: string;
  list_ids: number[];
}

/** A membership shown on the unsubscribe page. */
export interface PageMembership {
  id: number;
  name: string;
  type: string;
  status: string;
}

/** What the unsubscribe page shows. Null campaign: a link from a non-campaign mail. */
export interface UnsubscribeContext {
  subscriber: SubscriberRow;
  campaign: PublicCampaign | null;
  memberships: PageMembership[];
}

/** Public subscription page use cases. */
export class SubscriptionPageService {
  constructor(
    private readonly db: Db,
    private readonly subscribers: SubscriberRepo,
    private readonly individualTracking: () => boolean,
  ) {}

  /** Loads what the unsubscribe page needs; null when the subscriber or campaign is unknown. */
  async unsubscribeContext(campaignUuid: string, subscriberUuid: string): Promise<UnsubscribeContext | null> {
    const subscriber = await this.subscribers.getByUuid(subscriberUuid);
    if (subscriber === null) return null;
    if (campaignUuid === ZERO_UUID) return { subscriber, campaign: null, memberships: [] };
    const [campaign] = await this.db.run<PublicCampaign>(Q['campaign-by-uuid'], { uuid: campaignUuid });
    if (campaign === undefined) return null;
    const memberships = await this.db.run<PageMembership>(Q['subscriber-lists-of-campaign'], {
      subscriber_id: subscriber.id,
      list_ids: campaign.list_ids,
    });
    return { subscriber, campaign, memberships };
  }

  /** Unsubscribes the subscriber from the campaign's lists; returns how many memberships changed. */
  async unsubscribe(ctx: UnsubscribeContext): Promise<number> {
    if (ctx.campaign === null) return 0;
    const rows = await this.db.run(Q['unsubscribe-from-lists'], { subscriber_id: ctx.subscriber.id, list_ids: ctx.campaign.list_ids });
    return rows.length;
  }

  /** Records an open of a campaign (ignored for unknown or zero UUIDs). */
  async recordView(campaignUuid: string, subscriberUuid: string): Promise<void> {
    if (!isUuid(campaignUuid) || !isUuid(subscriberUuid) || campaignUuid === ZERO_UUID) return;
    let subscriberId: number | null = null;
    if (this.individualTracking()) subscriberId = (await this.subscribers.getByUuid(subscriberUuid))?.id ?? null;
    await this.db.run(Q['view-insert'], { campaign_uuid: campaignUuid, subscriber_id: subscriberId });
  }
}
