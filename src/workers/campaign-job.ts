/**
 * One running campaign's delivery inside this instance: claim a batch, send to its recipients with
 * bounded concurrency, checkpoint confirmed progress, repeat until the campaign is done or stops.
 *
 * Guarantees (src/workers/README.md):
 * - nothing is skipped: a recipient counts as handled only after the messenger confirmed the message
 *   (or refused it permanently: a hard bounce); transient failures are retried with backoff while the
 *   campaign runs, and a batch given up (pause, shutdown, crash) is continued from its checkpoint;
 * - duplicates are bounded: at most `window` recipients per batch are ever dispatched without their
 *   outcome being written, so a crash re-sends at most `window` messages per batch in progress.
 */
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { CampaignMessageBuilder, type MessageUrls, type SubscriberForMessage } from '../mail/campaign-message.js';
import { SendError, type Messenger, type OutgoingMessage } from '../mail/messenger.js';
import type { CampaignLinks } from '../modules/tracking/links.js';
import { BatchProgress, type Outcome } from './batch-progress.js';
import type { Batch, CampaignStore, RunningCampaign } from './campaign-store.js';
import type { RateLimiter } from './rate-limiter.js';
import { Semaphore } from './semaphore.js';
import { sleep } from '../util/sleep.js';

/** Tunables of the engine. Durations in milliseconds. */
export interface EngineOptions {
  /** Instance id written as batch owner. */
  owner: string;
  /** Recipients per batch (listmonk `app.batch_size`, default 1000). */
  batchSize: number;
  /** Most recipients dispatched but not yet checkpointed, per batch (the duplicate bound). */
  window: number;
  /** How often progress is checkpointed (and the lease renewed). */
  checkpointMs: number;
  /** Lease length; a dead instance's batch is reclaimed after it. */
  leaseMs: number;
  /** First retry delay after a transient failure; doubles up to {@link retryMaxMs}. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Send errors in one run after which the campaign pauses (`app.max_send_errors`; 0: never). */
  maxSendErrors: number;
}

/** Sends an operator notification (subject, plain-text body); never throws (AdminNotifier.notify). */
export type Notify = (subject: string, body: string) => void;

/** What a job uses besides the store: its messenger (looked up at each send), permits, tracked links. */
export interface JobParts {
  /** The campaign's messenger now (settings may replace it while the job runs); undefined if gone. */
  messenger: () => Messenger | undefined;
  slots: Semaphore;
  limiter: RateLimiter;
  /** Tracked-link registration for this campaign; null when link tracking is off. */
  links: CampaignLinks | null;
  /** Operator notifications: sent by the one instance whose statement finished or paused the campaign. */
  notify: Notify;
}

/** A claimed batch with its recipients still to handle. */
interface Claimed {
  batch: Batch;
  recipients: SubscriberForMessage[];
}

/** Why a job stopped. */
export type StopReason = 'status' | 'shutdown' | 'error';

/** Delivers one campaign in this instance. */
export class CampaignJob {
  private readonly abort = new AbortController();
  private stopReason: StopReason | null = null;
  private readonly builder: CampaignMessageBuilder;

  private readonly slots: Semaphore;

  /** Throws TemplateSyntaxError when the campaign or its template does not compile. */
  constructor(
    readonly campaign: RunningCampaign,
    private readonly parts: JobParts,
    private readonly store: CampaignStore,
    private readonly opts: EngineOptions,
    urls: MessageUrls,
    private readonly log: Logger,
  ) {
    const links = parts.links;
    this.builder = new CampaignMessageBuilder(campaign, campaign.template_body, links ? { ...urls, trackLink: (u, s) => links.trackLink(u, s) } : urls);
    this.slots = parts.slots;
    // Every concurrent send waiting for a permit or a retry listens for the stop: many by design.
    setMaxListeners(0, this.abort.signal);
  }

  /** Asks the job to stop: no new sends; in-flight ones settle; progress is written; the batch is released. */
  stop(reason: StopReason): void {
    if (this.stopReason === null) this.stopReason = reason;
    this.abort.abort();
  }

  get stopped(): boolean {
    return this.stopReason !== null;
  }

  /**
   * Runs until the campaign has no more work here or the job is stopped. The next batch is claimed and
   * its recipients fetched while the current batch's last sends settle (so the database round trips
   * are off the sending path); its dispatching starts only after the current batch is written, so at
   * most one batch per campaign has unwritten outcomes (the duplicate bound is unchanged).
   */
  async run(): Promise<void> {
    const id = this.campaign.id;
    // Links known at compile time are registered before the first message that carries them.
    if (this.parts.links) await this.parts.links.registerAll(this.builder.trackedUrls());
    let next: Promise<Claimed | null> | null = this.claimNext();
    try {
      while (!this.stopped && next !== null) {
        const claimed = await next;
        next = null;
        if (claimed === null) {
          const finished = await this.store.finishIfComplete(id);
          if (finished !== null) {
            this.log.info({ campaign_id: id }, 'campaign finished');
            this.parts.notify(`Finished: ${finished.name}`, `The campaign "${finished.name}" (id ${id}) finished: ${finished.sent} messages sent.`);
          }
          return;
        }
        await this.processBatch(claimed, () => {
          if (!this.stopped) next = this.claimNext();
        });
        next ??= this.stopped ? null : this.claimNext();
      }
    } finally {
      // Stopped with a batch claimed ahead: give it back untouched.
      const left = await next?.catch(() => null);
      if (left) await this.store.checkpoint(left.batch, this.opts.owner, this.opts.leaseMs, { checkpointId: left.batch.checkpoint_id, doneIds: left.batch.done_ids, sent: 0, done: false, release: true });
    }
  }

  /** Claims the next batch and fetches its recipients; null when none is left. */
  private async claimNext(): Promise<Claimed | null> {
    const batch = await this.store.claimBatch(this.campaign.id, this.opts.owner, this.opts.leaseMs, this.opts.batchSize);
    return batch === null ? null : { batch, recipients: await this.store.recipients(batch) };
  }

  /** Sends one batch; calls `dispatched` once every recipient is dispatched (before they settle). */
  private async processBatch({ batch, recipients }: Claimed, dispatched: () => void): Promise<void> {
    const progress = new BatchProgress(recipients.map((r) => r.id), batch.checkpoint_id, batch.done_ids);
    const flusher = new Flusher(this, batch, progress);
    const inflight = new Set<Promise<void>>();
    const settled = new Notifier();
    const timer = setInterval(() => void flusher.tick(), this.opts.checkpointMs);
    try {
      for (const sub of recipients) {
        while (!this.stopped && progress.unpersisted() >= this.opts.window) {
          if (progress.settledUnpersisted() > 0) await flusher.flush();
          else await settled.wait(this.abort.signal);
        }
        if (this.stopped) break;
        const index = progress.dispatchNext();
        let message: OutgoingMessage;
        try {
          message = await this.render(sub);
        } catch (err) {
          this.log.error({ err, campaign_id: batch.campaign_id, subscriber_id: sub.id }, 'message could not be rendered; skipped');
          progress.settle(index, 'skipped');
          continue;
        }
        await this.slots.acquire();
        const p = this.deliver(message, sub.id, batch.campaign_id).then((outcome) => {
          if (outcome !== null) progress.settle(index, outcome);
          settled.notify();
        });
        inflight.add(p);
        void p.finally(() => inflight.delete(p));
      }
      dispatched();
      await Promise.all(inflight);
    } finally {
      clearInterval(timer);
    }
    await flusher.final();
  }

  /**
   * Renders a subscriber's message. A TrackLink URL computed for this subscriber that is not registered
   * yet is registered first and the message rendered again, so every tracked URL sent is registered.
   */
  private async render(sub: SubscriberForMessage): Promise<OutgoingMessage> {
    const message = this.builder.render(sub);
    if (this.parts.links === null || !(await this.parts.links.registerMissing())) return message;
    return this.builder.render(sub);
  }

  /**
   * Sends with retries; resolves to the outcome, or null when the job stopped before it settled.
   * A transient failure is retried with exponential backoff; after `maxRetries` retries the message is
   * deferred — one send error is counted, and it keeps being retried every `retryMaxMs` (each failure
   * then counts again) — so it is never lost and never counted as sent. A permanent failure is a hard
   * bounce and a send error. Past `app.max_send_errors` the campaign pauses; the unsent recipients stay
   * after the checkpoint and are sent when it resumes.
   */
  private async deliver(message: OutgoingMessage, subscriberId: number, campaignId: number): Promise<Outcome | null> {
    let holding = true;
    for (let attempt = 0; ; attempt++) {
      let error: SendError;
      const messenger = this.parts.messenger();
      try {
        if (!holding) await this.slots.acquire();
        holding = true;
        if (this.stopped) return null;
        if (!(await this.parts.limiter.take(this.abort.signal))) return null;
        if (messenger === undefined) throw new SendError('transient', `messenger "${this.campaign.messenger}" is not configured`);
        await messenger.push(message);
        return 'sent';
      } catch (err) {
        error = err instanceof SendError ? err : new SendError('transient', String(err));
      } finally {
        if (holding) this.slots.release();
        holding = false;
      }
      if (error.kind === 'permanent') {
        await this.recordBounce(subscriberId, campaignId, error);
        await this.countError(error);
        return 'bounced';
      }
      const retries = messenger?.maxRetries ?? 2;
      const deferred = attempt >= retries;
      this.log.warn({ campaign_id: campaignId, subscriber_id: subscriberId, attempt, deferred, err: error.detail }, 'transient send failure; retrying');
      if (deferred) await this.countError(error);
      if (this.stopped) return null;
      await sleep(deferred ? this.opts.retryMaxMs : Math.min(this.opts.retryBaseMs * 2 ** attempt, this.opts.retryMaxMs), this.abort.signal);
      if (this.stopped) return null;
    }
  }

  /** Counts one send error; stops the job when the campaign paused because of it. */
  private async countError(e: SendError): Promise<void> {
    const outcome = await this.store.addSendErrors(this.campaign.id, 1, this.opts.maxSendErrors, e.message);
    if (outcome?.status !== 'running') {
      if (outcome?.pausedNow) {
        this.log.warn({ campaign_id: this.campaign.id, err: e.detail }, 'campaign paused: too many send errors');
        this.parts.notify(`Paused: ${outcome.name}`, `The campaign "${outcome.name}" (id ${this.campaign.id}) was paused: ${outcome.reason}`);
      }
      this.stop('status');
    }
  }

  private async recordBounce(subscriberId: number, campaignId: number, e: SendError): Promise<void> {
    this.log.info({ campaign_id: campaignId, subscriber_id: subscriberId, code: e.responseCode }, 'permanent failure: hard bounce');
    await this.store.recordBounce(subscriberId, campaignId, 'hard', { code: e.responseCode, message: e.message });
  }

  /** Internal: a checkpoint's answer. Stops the job when the campaign left `running` or the batch was lost. */
  onCheckpoint(status: string | null, batchId: number): void {
    if (status === null) {
      this.log.warn({ campaign_id: this.campaign.id, batch_id: batchId }, 'batch lease lost; another instance continues it');
      this.stop('error');
    } else if (status !== 'running') this.stop('status');
  }

  /** Internal: store and options for the flusher. */
  get ctx() {
    return { store: this.store, opts: this.opts, log: this.log };
  }
}

/** Wakes waiters when something happens (a recipient settled). */
class Notifier {
  private waiters: Array<() => void> = [];

  /** Resolves at the next notify, or when `signal` aborts. */
  wait(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.waiters.push(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  notify(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const resolve of w) resolve();
  }
}

/** Writes checkpoints for one batch, one at a time; backs off while the database is unreachable. */
class Flusher {
  private running: Promise<void> | null = null;
  private failures = 0;
  private lastWrite = Date.now();

  constructor(
    private readonly job: CampaignJob,
    private readonly batch: Batch,
    private readonly progress: BatchProgress,
  ) {}

  /**
   * The periodic checkpoint: writes when recipients settled since the last write, or when a third of
   * the lease has passed (renewal). Idle ticks cost no database round trip.
   */
  async tick(): Promise<void> {
    const { opts } = this.job.ctx;
    if (this.progress.settledUnpersisted() === 0 && Date.now() - this.lastWrite < opts.leaseMs / 3) return;
    await this.flush();
  }

  /** Writes the current progress (after a failure, waits first: 0.1 s doubling up to 5 s). */
  async flush(): Promise<void> {
    if (this.running) return this.running;
    const delay = this.failures === 0 ? 0 : Math.min(100 * 2 ** this.failures, 5000);
    this.running = sleep(delay)
      .then(() => this.write(false, false))
      .finally(() => (this.running = null));
    await this.running;
  }

  /** Last write for the batch: closes it when complete, otherwise releases it for a later run. */
  async final(): Promise<void> {
    while (this.running) await this.running;
    const complete = this.progress.complete() && !this.job.stopped;
    for (let attempt = 0; attempt < 1000; attempt++) {
      try {
        await this.write(complete, !complete);
        return;
      } catch (err) {
        // The database is unreachable: keep trying, the outcome must be written before moving on.
        this.job.ctx.log.warn({ err, batch_id: this.batch.id }, 'could not write batch progress; retrying');
        await sleep(Math.min(500 * 2 ** Math.min(attempt, 6), 30_000));
      }
    }
  }

  private async write(done: boolean, release: boolean): Promise<void> {
    const snap = this.progress.snapshot();
    const { store, opts, log } = this.job.ctx;
    try {
      const status = await store.checkpoint(this.batch, opts.owner, opts.leaseMs, {
        checkpointId: done ? this.batch.last_id : snap.checkpointId,
        doneIds: done ? [] : snap.doneIds,
        sent: snap.sent,
        done,
        release,
      });
      if (status !== null) this.progress.commit(snap);
      this.failures = 0;
      this.lastWrite = Date.now();
      this.job.onCheckpoint(status, this.batch.id);
    } catch (err) {
      if (done || release) throw err;
      this.failures += 1;
      log.warn({ err, batch_id: this.batch.id }, 'checkpoint failed; sending pauses until it succeeds');
    }
  }
}
