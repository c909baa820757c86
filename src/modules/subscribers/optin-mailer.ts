/**
 * The double opt-in e-mail (spec part 3, issue 3 §3, reference §4.3, §16.2, §17): one message listing
 * the subscriber's unconfirmed memberships of double opt-in lists, with the confirmation link
 * `<root>/subscription/optin/<subscriber uuid>?l=<list uuid>&…`, rendered from the editable tx template
 * named by setting `app.optin_template_id` (the shipped "Opt-in confirmation" body when that template
 * is missing, not a tx template, or does not compile). Template data as listmonk's: `.Subscriber`,
 * `.Lists` (`.ID`, `.UUID`, `.Name`, `.Type`, `.Optin`, `.Tags`, `.Description`), `.OptinURL`, `.UnsubURL`.
 *
 * Automatic sends (create, update, list changes, public subscription) run in the background with
 * bounded concurrency, so a slow or failing mail server never fails or delays the request that caused
 * them and never loses the subscriber: failures are logged, transient ones retried twice, and
 * `POST /api/subscribers/:id/optin` sends again. Opt-in e-mails caused by public subscriptions are
 * throttled per subscriber (3 per hour), so the public form cannot be used to flood someone's inbox
 * from many addresses; the throttle is per instance.
 */
import type { Logger } from 'pino';
import { BadRequestError, ServiceUnavailableError } from '../../errors.js';
import { SendError, type MessengerRegistry } from '../../mail/messenger.js';
import { TemplateMessage } from '../../mail/template-message.js';
import { ListView, OptinData, subscriberView } from '../../templating/index.js';
import { sleep } from '../../util/sleep.js';
import { ZERO_UUID } from '../subscription-pages/service.js';
import type { TemplateRepo } from '../templates/repo.js';
import { defaultTemplateBody, SHIPPED_TEMPLATES } from '../templates/service.js';
import type { OptinList, SubscriberRepo, SubscriberRow } from './repo.js';

/** What the mailer reads from settings at each send. */
export interface OptinMailConfig {
  rootUrl: string;
  /** `app.logo_url`, what `LogoURL` returns in the template; default ''. */
  logoUrl?: string;
  /** `app.lang`, the language of `L` (and of the subject of the shipped template); default 'en'. */
  lang?: string;
  fromEmail: string;
  templateId: number | null;
}

/** Collaborators and tunables of the {@link OptinMailer}. */
export interface OptinMailerOptions {
  repo: Pick<SubscriberRepo, 'get' | 'optinLists'>;
  templates: Pick<TemplateRepo, 'get'>;
  messengers: MessengerRegistry;
  config: () => OptinMailConfig;
  logger: Logger;
  /** Background sends at once (default 4). */
  concurrency?: number;
  /** Throttled (public) sends: at most `max` opt-in e-mails to one subscriber per `windowMs` (default 3 per hour). */
  throttle?: { max: number; windowMs: number };
  /** Delays before the retries of a transient failure, ms (default 1 s, 5 s). */
  retryDelaysMs?: number[];
}

const SHIPPED = SHIPPED_TEMPLATES[3];
/** Most background sends waiting at once; more are dropped with a warning (re-send with the API). */
const MAX_QUEUE = 20_000;

/** The confirmation link of `lists` for subscriber `uuid` (listmonk's form, reference §15.4). */
export function optinUrl(rootUrl: string, uuid: string, lists: Array<{ uuid: string }>): string {
  return `${rootUrl.replace(/\/+$/u, '')}/subscription/optin/${uuid}?${lists.map((l) => `l=${l.uuid}`).join('&')}`;
}

/** Sends double opt-in e-mails. */
export class OptinMailer {
  private readonly queue: Array<{ id: number; throttle: boolean }> = [];
  /** When each subscriber was last sent an opt-in e-mail (ms timestamps within the throttle window). */
  private readonly sentAt = new Map<number, number[]>();
  private running = 0;
  private idle: Array<() => void> = [];
  private cached: { subject: string; body: string; message: TemplateMessage } | null = null;

  constructor(private readonly opts: OptinMailerOptions) {}

  /**
   * Sends the opt-in e-mail to subscriber `id` now. Returns false, sending nothing, when there is
   * nothing to confirm (unknown or blocklisted subscriber, no unconfirmed double opt-in membership).
   * Throws ServiceUnavailableError when no messenger is configured or the server failed for now, and
   * BadRequestError when the server refused the address for good.
   */
  async send(id: number): Promise<boolean> {
    const found = await this.opts.repo.get(id);
    if (found === null || found.status === 'blocklisted') return false;
    const { lists: _memberships, ...sub } = found;
    const lists = await this.opts.repo.optinLists(id);
    if (lists.length === 0) return false;
    const messenger = this.opts.messengers.get('email');
    if (messenger === undefined) throw new ServiceUnavailableError('no e-mail messenger is configured');
    const message = await this.render(sub, lists);
    try {
      await messenger.push(message);
    } catch (err) {
      if (err instanceof SendError && err.kind === 'permanent') throw new BadRequestError(`email: the mail server refused the opt-in e-mail: ${err.message}`);
      // The API gets the SendError's message (generic for connection failures); the log the detail.
      if (err instanceof SendError && err.detail !== err.message) this.opts.logger.warn({ subscriber_id: id, err: err.detail }, 'opt-in e-mail: could not reach the mail server');
      throw new ServiceUnavailableError(`could not send the opt-in e-mail: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.sentAt.set(id, [...this.recent(id), Date.now()]);
    return true;
  }

  /**
   * Queues a background send to subscriber `id`. With `throttle`, skips a subscriber who already got
   * the most opt-in e-mails allowed in the throttle window (public subscription). Never throws;
   * failures are logged.
   */
  enqueue(id: number, opts: { throttle?: boolean } = {}): void {
    if (this.queue.length >= MAX_QUEUE) {
      this.opts.logger.warn({ subscriber_id: id }, 'opt-in e-mail queue is full; not sending (re-send with POST /api/subscribers/:id/optin)');
      return;
    }
    this.queue.push({ id, throttle: opts.throttle === true });
    this.pump();
  }

  /** Resolves once every queued send has finished (graceful shutdown, tests). */
  drain(): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private pump(): void {
    while (this.running < (this.opts.concurrency ?? 4) && this.queue.length > 0) {
      const job = this.queue.shift()!;
      this.running += 1;
      void this.sendInBackground(job.id, job.throttle).finally(() => {
        this.running -= 1;
        this.pump();
        if (this.running === 0 && this.queue.length === 0) for (const done of this.idle.splice(0)) done();
      });
    }
  }

  private async sendInBackground(id: number, throttle: boolean): Promise<void> {
    if (throttle && this.recent(id).length >= this.limits().max) {
      this.opts.logger.info({ subscriber_id: id }, 'opt-in e-mail throttled: too many were sent to this subscriber recently');
      return;
    }
    const delays = this.opts.retryDelaysMs ?? [1000, 5000];
    for (let attempt = 0; ; attempt += 1) {
      try {
        if (await this.send(id)) this.opts.logger.info({ subscriber_id: id }, 'opt-in e-mail sent');
        break;
      } catch (err) {
        const retry = err instanceof ServiceUnavailableError && attempt < delays.length;
        this.opts.logger.warn({ err, subscriber_id: id, retry }, 'could not send the opt-in e-mail');
        if (!retry) break;
        await sleep(delays[attempt]!);
      }
    }
    this.forgetOld();
  }

  private limits(): { max: number; windowMs: number } {
    return this.opts.throttle ?? { max: 3, windowMs: 3_600_000 };
  }

  /** Send times of subscriber `id` within the throttle window. */
  private recent(id: number): number[] {
    const cutoff = Date.now() - this.limits().windowMs;
    return (this.sentAt.get(id) ?? []).filter((at) => at > cutoff);
  }

  /** Keeps the throttle memory bounded: drops subscribers with no send inside the window. */
  private forgetOld(): void {
    if (this.sentAt.size < 10_000) return;
    for (const id of [...this.sentAt.keys()]) if (this.recent(id).length === 0) this.sentAt.delete(id);
  }

  private async render(sub: SubscriberRow, lists: OptinList[]) {
    const cfg = this.opts.config();
    const data = new OptinData(
      subscriberView(sub),
      lists.map((l) => new ListView({ ...l, subscription_status: 'unconfirmed' })),
      optinUrl(cfg.rootUrl, sub.uuid, lists),
      `${cfg.rootUrl.replace(/\/+$/u, '')}/subscription/${ZERO_UUID}/${sub.uuid}`,
    );
    const envelope = {
      from: cfg.fromEmail,
      to: { name: sub.name, address: sub.email },
      headers: [['X-Mailroom-Subscriber', sub.uuid], ['X-Listmonk-Subscriber', sub.uuid]] as Array<[string, string]>,
    };
    const template = await this.template(cfg.templateId);
    try {
      return template.render(data, { rootUrl: cfg.rootUrl, logoUrl: cfg.logoUrl ?? '', lang: cfg.lang ?? 'en' }, envelope);
    } catch (err) {
      this.opts.logger.error({ err, template_id: cfg.templateId }, 'the opt-in template failed; using the shipped one');
      return this.compiled(SHIPPED.subject, defaultTemplateBody(SHIPPED.file), 'shipped opt-in template').render(data, { rootUrl: cfg.rootUrl, logoUrl: cfg.logoUrl ?? '', lang: cfg.lang ?? 'en' }, envelope);
    }
  }

  /** The configured opt-in template, compiled (cached while its text is unchanged), or the shipped one. */
  private async template(templateId: number | null): Promise<TemplateMessage> {
    const t = templateId === null ? null : await this.opts.templates.get(templateId);
    if (t !== null && t.type === 'tx') {
      try {
        return this.compiled(t.subject || SHIPPED.subject, t.body, `template ${t.id}`);
      } catch (err) {
        this.opts.logger.error({ err, template_id: t.id }, 'the opt-in template does not compile; using the shipped one');
      }
    } else {
      this.opts.logger.warn({ template_id: templateId }, 'app.optin_template_id names no transactional template; using the shipped one');
    }
    return this.compiled(SHIPPED.subject, defaultTemplateBody(SHIPPED.file), 'shipped opt-in template');
  }

  private compiled(subject: string, body: string, name: string): TemplateMessage {
    if (this.cached?.subject !== subject || this.cached.body !== body) {
      this.cached = { subject, body, message: new TemplateMessage({ subject, body, contentType: 'html', name }) };
    }
    return this.cached.message;
  }
}
