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
import type { Logger } from 'pino';
import { CampaignMessageBuilder, type MessageUrls } from '../mail/campaign-message.js';
import { SendError, type Messenger, type OutgoingMessage } from '../mail/messenger.js';
import { BatchProgress, type Outcome } from './batch-progress.js';
import type { Batch, CampaignStore, RunningCampaign } from './campaign-store.js';
import { Semaphore, sleep } from './semaphore.js';

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
}

/** Why a job stopped. */
export type StopReason = 'status' | 'shutdown' | 'error';

/** Delivers one campaign in this instance. */
export class CampaignJob {
  private readonly abort = new AbortController();
  private stopReason: StopReason | null = null;
  private readonly builder: CampaignMessageBuilder;

  /** Throws TemplateSyntaxError when the campaign or its template does not compile. */
  constructor(
    readonly campaign: RunningCampaign,
    private readonly messenger: Messenger,
    private readonly store: CampaignStore,
    private readonly slots: Semaphore,
    private readonly opts: EngineOptions,
    urls: MessageUrls,
    private readonly log: Logger,
    private readonly beforeSend: () => Promise<void> = async () => undefined,
  ) {
    this.builder = new CampaignMessageBuilder(campaign, campaign.template_body, urls);
  }

  /** Asks the job to stop: no new sends; in-flight ones settle; progress is written; the batch is released. */
  stop(reason: StopReason): void {
    if (this.stopReason === null) this.stopReason = reason;
    this.abort.abort();
  }

  get stopped(): boolean {
    return this.stopReason !== null;
  }

  /** Runs until the campaign has no more work here or the job is stopped. */
  async run(): Promise<void> {
    const id = this.campaign.id;
    while (!this.stopped) {
      const batch = await this.store.claimBatch(id, this.opts.owner, this.opts.leaseMs, this.opts.batchSize);
      if (batch === null) {
        if (await this.store.finishIfComplete(id)) this.log.info({ campaign_id: id }, 'campaign finished');
        return;
      }
      await this.processBatch(batch);
    }
  }

  private async processBatch(batch: Batch): Promise<void> {
    const recipients = await this.store.recipients(batch);
    const progress = new BatchProgress(recipients.map((r) => r.id), batch.checkpoint_id, batch.done_ids);
    const flusher = new Flusher(this, batch, progress);
    const inflight = new Set<Promise<void>>();
    const settled = new Notifier();
    const timer = setInterval(() => void flusher.flush(), this.opts.checkpointMs);
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
          message = this.builder.render(sub);
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
      await Promise.all(inflight);
    } finally {
      clearInterval(timer);
    }
    await flusher.final();
  }

  /** Sends with retries; resolves to the outcome, or null when the job stopped before it settled. */
  private async deliver(message: OutgoingMessage, subscriberId: number, campaignId: number): Promise<Outcome | null> {
    let holding = true;
    for (let attempt = 0; ; attempt++) {
      try {
        if (!holding) await this.slots.acquire();
        holding = true;
        if (this.stopped) return null;
        await this.beforeSend();
        await this.messenger.push(message);
        return 'sent';
      } catch (err) {
        const e = err instanceof SendError ? err : new SendError('transient', String(err));
        if (e.kind === 'permanent') {
          await this.recordBounce(subscriberId, campaignId, e);
          return 'bounced';
        }
        this.log.warn({ campaign_id: campaignId, subscriber_id: subscriberId, attempt, err: e.message }, 'transient send failure; retrying');
      } finally {
        if (holding) this.slots.release();
        holding = false;
      }
      if (this.stopped) return null;
      await sleep(Math.min(this.opts.retryBaseMs * 2 ** attempt, this.opts.retryMaxMs), this.abort.signal);
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

  constructor(
    private readonly job: CampaignJob,
    private readonly batch: Batch,
    private readonly progress: BatchProgress,
  ) {}

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
      this.job.onCheckpoint(status, this.batch.id);
    } catch (err) {
      if (done || release) throw err;
      this.failures += 1;
      log.warn({ err, batch_id: this.batch.id }, 'checkpoint failed; sending pauses until it succeeds');
    }
  }
}
