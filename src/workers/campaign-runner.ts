/**
 * The delivery engine's loop, one per process (unless API-only): every tick it starts due scheduled
 * campaigns, picks up running campaigns that have no job here, and stops jobs whose campaign left
 * `running`. Jobs of all campaigns share one pool of send slots (`concurrency`), so several campaigns
 * progress together. Shutdown stops claiming work, lets in-flight sends settle, writes progress and
 * releases batches, within a bound.
 */
import type { Logger } from 'pino';
import { isConnectionError } from '../db/db.js';
import type { MessageUrls } from '../mail/campaign-message.js';
import type { MessengerRegistry } from '../mail/messenger.js';
import { CampaignLinks, type LinkRegistry } from '../modules/tracking/links.js';
import { TemplateSyntaxError } from '../templating/index.js';
import { CampaignJob, type EngineOptions } from './campaign-job.js';
import type { CampaignStore, RunningCampaign } from './campaign-store.js';
import type { RateLimits } from './engine-settings.js';
import type { RateLimiter } from './rate-limiter.js';
import type { Notify } from './campaign-job.js';
import { Semaphore } from './semaphore.js';
import { sleep } from '../util/sleep.js';

/** What the runner reads from the settings for each new job: public URLs and privacy switches. */
export interface MessageSettings extends MessageUrls {
  /** `privacy.disable_tracking` off: TrackLink URLs are registered and rewritten. */
  trackLinks: boolean;
}

/** The runner's collaborators besides the store. */
export interface RunnerParts {
  messengers: MessengerRegistry;
  limiter: RateLimiter;
  links: LinkRegistry;
  /** Read when a job starts (a campaign's links and pixel follow the settings of its run). */
  messageSettings: () => MessageSettings;
  /** Operator notifications (`app.notify_emails`): campaign finished, paused on send errors. */
  notify?: Notify;
}

/** Runner settings. Durations in milliseconds. */
export interface RunnerOptions extends EngineOptions {
  /** Concurrent sends across all campaigns in this instance (listmonk `app.concurrency`). */
  concurrency: number;
  /** How often the database is polled for work. */
  tickMs: number;
  /** Release every open batch at start (embedded store: one process, so every lease is stale). */
  releaseAllAtStart: boolean;
}

/** Defaults: listmonk's batch size and concurrency; a 200-message duplicate bound; 30 s leases. */
export const DEFAULT_RUNNER_OPTIONS: Omit<RunnerOptions, 'owner' | 'releaseAllAtStart'> = {
  maxSendErrors: 1000,
  concurrency: 10,
  batchSize: 1000,
  window: 200,
  checkpointMs: 200,
  leaseMs: 30_000,
  retryBaseMs: 1000,
  retryMaxMs: 60_000,
  tickMs: 1000,
};

/** Runs campaign deliveries in this process. */
export class CampaignRunner {
  private readonly jobs = new Map<number, { job: CampaignJob; done: Promise<void> }>();
  private readonly slots: Semaphore;
  private loop: Promise<void> | null = null;
  private readonly abort = new AbortController();
  private wake: (() => void) | null = null;

  constructor(
    private readonly store: CampaignStore,
    private readonly parts: RunnerParts,
    private readonly opts: RunnerOptions,
    private readonly log: Logger,
  ) {
    this.slots = new Semaphore(opts.concurrency);
  }

  /** Starts the loop. Releases this instance's stale batches first. */
  async start(): Promise<void> {
    const released = await this.store.releaseOwned(this.opts.owner, this.opts.releaseAllAtStart);
    if (released > 0) this.log.info({ released }, 'released batches left by a previous run');
    this.loop = this.run();
  }

  /** Makes the loop look for work now (e.g. right after a campaign was started). */
  poke(): void {
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (!this.abort.signal.aborted) {
      try {
        await this.tick();
      } catch (err) {
        const level = isConnectionError(err) ? 'warn' : 'error';
        this.log[level]({ err }, 'campaign runner tick failed');
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        void sleep(this.opts.tickMs, this.abort.signal).then(resolve);
      });
      this.wake = null;
    }
  }

  /** One pass: start due schedules, start jobs for running campaigns, stop jobs of stopped ones. */
  async tick(): Promise<void> {
    const started = await this.store.startDueScheduled();
    if (started.length > 0) this.log.info({ campaign_ids: started }, 'scheduled campaigns started');
    const statuses = await this.store.statuses([...this.jobs.keys()]);
    for (const [id, { job }] of this.jobs) {
      if (statuses.get(id) !== 'running') job.stop('status');
    }
    if (this.abort.signal.aborted) return;
    for (const campaign of await this.store.runningCampaigns()) {
      if (!this.jobs.has(campaign.id)) await this.startJob(campaign);
    }
  }

  private async startJob(campaign: RunningCampaign): Promise<void> {
    const { messengers, limiter, links } = this.parts;
    if (messengers.get(campaign.messenger) === undefined) {
      await this.store.pause(campaign.id, `messenger "${campaign.messenger}" is not configured`);
      this.log.error({ campaign_id: campaign.id, messenger: campaign.messenger }, 'campaign paused: unknown messenger');
      return;
    }
    let job: CampaignJob;
    try {
      const ms = this.parts.messageSettings();
      const tracking = ms.trackLinks ? new CampaignLinks(links, campaign, ms.rootUrl, ms.individualTracking ?? false) : null;
      const parts = { messenger: () => messengers.get(campaign.messenger), slots: this.slots, limiter, links: tracking, notify: this.parts.notify ?? (() => undefined) };
      job = new CampaignJob(campaign, parts, this.store, this.opts, ms, this.log);
    } catch (err) {
      const why = err instanceof TemplateSyntaxError ? err.message : 'the campaign could not be prepared';
      await this.store.pause(campaign.id, `template error: ${why}`);
      this.log.error({ err, campaign_id: campaign.id }, 'campaign paused: template does not compile');
      return;
    }
    await this.store.prepareRun(campaign.id);
    const done = job
      .run()
      .catch((err: unknown) => this.log.error({ err, campaign_id: campaign.id }, 'campaign job failed; it will be picked up again'))
      .finally(() => this.jobs.delete(campaign.id));
    this.jobs.set(campaign.id, { job, done });
  }

  /**
   * Applies changed engine settings without a restart: concurrency takes effect as send slots are
   * released; batch size applies to batches carved from now on; the error limit at the next error;
   * rate limits at once.
   */
  configure(change: { concurrency?: number; batchSize?: number; maxSendErrors?: number; limits?: RateLimits }): void {
    if (change.concurrency !== undefined) {
      this.opts.concurrency = change.concurrency;
      this.slots.resize(change.concurrency);
    }
    if (change.batchSize !== undefined) this.opts.batchSize = change.batchSize;
    if (change.maxSendErrors !== undefined) this.opts.maxSendErrors = change.maxSendErrors;
    if (change.limits !== undefined) this.parts.limiter.configure(change.limits);
  }

  /** Number of campaigns being delivered by this instance. */
  get activeJobs(): number {
    return this.jobs.size;
  }

  /**
   * Stops claiming work, asks every job to stop, and waits (at most `timeoutMs`) for in-flight sends to
   * settle and progress to be written. Work not written is continued from the last checkpoint later.
   */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.abort.abort();
    for (const { job } of this.jobs.values()) job.stop('shutdown');
    const all = Promise.all([this.loop, ...[...this.jobs.values()].map((j) => j.done)]);
    await Promise.race([all, sleep(timeoutMs)]);
  }
}
