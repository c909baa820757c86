/**
 * The public pages behind the links in campaign e-mails (issue "Foundation" §11, reference §17):
 * unsubscribing (a confirmation page on GET; the change only on POST, including RFC 8058 one-click) and
 * the preferences page (`?manage=true`: change the name, leave single lists; private lists never shown).
 * The open-tracking pixel lives in the tracking module.
 */
import type { Db } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';
import { BadRequestError, FieldError } from '../../errors.js';
import type { SubscriberRepo, SubscriberRow } from '../subscribers/repo.js';
import type { PrivacySwitches } from '../tracking/settings.js';

const Q = loadQueries(new URL('./queries.sql', import.meta.url), [
  'campaign-by-uuid',
  'subscriber-lists-of-campaign',
  'unsubscribe-from-lists',
  'subscriber-public-memberships',
  'preferences-save',
]);

/** The answer to a preferences submission while `privacy.allow_preferences` is off (listmonk's `public.invalidFeature`). */
export const PREFERENCES_DISABLED = 'That feature is not available: managing preferences is turned off. Nothing was changed.';

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

/** A non-private membership shown on the preferences page. */
export interface PreferenceMembership {
  uuid: string;
  name: string;
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
    private readonly privacy: () => PrivacySwitches,
  ) {}

  /** Whether the preferences page is offered (`privacy.allow_preferences`). */
  get preferencesAllowed(): boolean {
    return this.privacy().allowPreferences;
  }

  /** The subscriber's memberships of non-private lists, for the preferences page. */
  preferences(ctx: UnsubscribeContext): Promise<PreferenceMembership[]> {
    return this.db.run<PreferenceMembership>(Q['subscriber-public-memberships'], { subscriber_id: ctx.subscriber.id });
  }

  /**
   * Saves preferences: the name (1–256 characters), and every non-private membership whose list UUID is
   * not in `keep` becomes unsubscribed (listmonk reference §17). Returns how many memberships were
   * unsubscribed. Throws BadRequestError, changing nothing, when `privacy.allow_preferences` is off —
   * checked here because it may have been turned off while the form was open (listmonk answers 400
   * "That feature is not available."); and FieldError for a bad name.
   */
  async savePreferences(ctx: UnsubscribeContext, name: string, keep: string[]): Promise<number> {
    if (!this.preferencesAllowed) throw new BadRequestError(PREFERENCES_DISABLED);
    const trimmed = name.trim();
    if (trimmed.length < 1 || [...trimmed].length > 256) throw new FieldError('name', 'must be 1 to 256 characters');
    const rows = await this.db.run(Q['preferences-save'], { subscriber_id: ctx.subscriber.id, name: trimmed, keep: keep.map((u) => u.toLowerCase()) });
    return rows.length;
  }

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
}
