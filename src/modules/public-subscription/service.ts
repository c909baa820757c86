/**
 * Public subscription and double opt-in confirmation (spec 4.1, part 3; reference §4.3, §17; issue 3
 * §3–4). Anyone may subscribe an address to public lists: a new address becomes a subscriber, an
 * existing one gains memberships, `unsubscribed` memberships become `unconfirmed` again, and double
 * opt-in lists get the opt-in e-mail. The answer never depends on whether the address already existed
 * (or is blocklisted), so the endpoint cannot be used to probe for subscribers. Confirmation needs the
 * subscriber's UUID (from the e-mail) and happens only on POST.
 */
import { checkDomain, NO_DOMAIN_RULES, type DomainRules } from '../subscribers/domains.js';
import type { Db } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';
import { FieldError, NotFoundError } from '../../errors.js';
import type { SubscriberRepo } from '../subscribers/repo.js';
import { validEmail, validName } from '../subscribers/service.js';
import { isUuid } from '../subscription-pages/service.js';
import { txWithRetry } from '../subscribers/retry.js';

const Q = loadQueries(new URL('./queries.sql', import.meta.url), [
  'public-lists',
  'public-lists-by-uuid',
  'subscriber-insert-if-new',
  'subscriber-by-email-for-update',
  'subscriptions-public-add',
  'optin-pending',
  'optin-confirm',
]);

/** A list as the public pages show it. */
export interface PublicList {
  uuid: string;
  name: string;
  optin: string;
}

/** A membership shown on the opt-in pages. */
export interface OptinListView {
  uuid: string;
  name: string;
  type: string;
}

/** A public subscription request (JSON or form). */
export interface SubscribeInput {
  email: string;
  name?: string | undefined;
  listUuids: string[];
  /** The honeypot field: people leave it empty, form-filling bots do not. */
  nonce?: string | undefined;
}

/** Collaborators and settings of the service. */
export interface PublicSubscriptionDeps {
  db: Db;
  subscribers: Pick<SubscriberRepo, 'getByUuid'>;
  /** Setting `app.enable_public_subscription_page`. */
  enabled: () => boolean;
  /** Setting `privacy.record_optin_ip`. */
  recordOptinIp: () => boolean;
  /** Queues the (throttled) opt-in e-mail when the setting allows it. */
  requestOptin: (subscriberId: number) => void;
  /** Called when the honeypot caught a request (for logs). */
  onHoneypot?: (email: string) => void;
  /** The e-mail domain rules now (privacy.domain_allowlist / _blocklist); none when absent. */
  domains?: () => DomainRules;
}

/** Keeps the syntactically valid UUIDs, lower-cased, without duplicates. */
export function validUuids(values: string[]): string[] {
  return [...new Set(values.map((v) => v.trim().toLowerCase()).filter(isUuid))];
}

/** Public subscription use cases. */
export class PublicSubscriptionService {
  constructor(private readonly deps: PublicSubscriptionDeps) {}

  /** Whether public subscription is offered. */
  get enabled(): boolean {
    return this.deps.enabled();
  }

  /** The public, active lists (GET /api/public/lists and the form). */
  lists(): Promise<PublicList[]> {
    return this.deps.db.run<PublicList>(Q['public-lists']);
  }

  /**
   * Subscribes an address to public lists. Returns whether any chosen list is double opt-in (so the
   * caller can say "check your inbox"); this depends on the lists only, never on the address.
   * NotFoundError when public subscription is off; FieldError for a bad e-mail or name, or when no
   * given uuid is a public list (`list_uuids`). A filled honeypot is answered as a success, doing nothing.
   */
  async subscribe(input: SubscribeInput): Promise<{ doubleOptin: boolean }> {
    if (!this.deps.enabled()) throw new NotFoundError('public subscription is not enabled');
    const email = validEmail(input.email);
    checkDomain(email, this.deps.domains?.() ?? NO_DOMAIN_RULES);
    const name = validName(input.name, email);
    const lists = await this.deps.db.run<{ id: number; optin: string }>(Q['public-lists-by-uuid'], { uuids: validUuids(input.listUuids) });
    if (lists.length === 0) throw new FieldError('list_uuids', 'no public list selected');
    const doubleOptin = lists.some((l) => l.optin === 'double');
    if ((input.nonce ?? '') !== '') {
      this.deps.onHoneypot?.(email);
      return { doubleOptin };
    }
    const optinFor = await txWithRetry(this.deps.db, async (tx) => {
      const [created] = await tx.run<{ id: number; status: string }>(Q['subscriber-insert-if-new'], { email, name });
      const sub = created ?? (await tx.run<{ id: number; status: string }>(Q['subscriber-by-email-for-update'], { email }))[0];
      if (sub === undefined || sub.status === 'blocklisted') return null;
      const written = await tx.run<{ list_id: number; status: string }>(Q['subscriptions-public-add'], { subscriber_id: sub.id, list_ids: lists.map((l) => l.id) });
      const doubles = new Set(lists.filter((l) => l.optin === 'double').map((l) => l.id));
      return written.some((m) => doubles.has(m.list_id)) ? sub.id : null;
    });
    if (optinFor !== null) this.deps.requestOptin(optinFor);
    return { doubleOptin };
  }

  /**
   * What the opt-in page offers to confirm for subscriber `uuid`, restricted to `listUuids` when given.
   * Null when the subscriber is unknown; FieldError (`l`) for a malformed list uuid.
   */
  async pending(uuid: string, listUuids: string[]): Promise<OptinListView[] | null> {
    const id = await this.subscriberId(uuid);
    if (id === null) return null;
    return this.deps.db.run<OptinListView>(Q['optin-pending'], { subscriber_id: id, uuids: checkedUuids(listUuids) });
  }

  /**
   * Confirms the pending memberships (POST /subscription/optin/:uuid); records `ip` in the
   * subscription meta when `privacy.record_optin_ip` is on. Returns the confirmed lists, or null when
   * the subscriber is unknown.
   */
  async confirm(uuid: string, listUuids: string[], ip: string): Promise<OptinListView[] | null> {
    const id = await this.subscriberId(uuid);
    if (id === null) return null;
    const meta = this.deps.recordOptinIp() ? { optin_ip: ip } : {};
    return this.deps.db.run<OptinListView>(Q['optin-confirm'], { subscriber_id: id, uuids: checkedUuids(listUuids), meta: JSON.stringify(meta) });
  }

  private async subscriberId(uuid: string): Promise<number | null> {
    if (!isUuid(uuid)) return null;
    return (await this.deps.subscribers.getByUuid(uuid.toLowerCase()))?.id ?? null;
  }
}

function checkedUuids(values: string[]): string[] {
  const bad = values.find((v) => !isUuid(v.trim()));
  if (bad !== undefined) throw new FieldError('l', 'is not a valid list uuid');
  return [...new Set(values.map((v) => v.trim().toLowerCase()))];
}
