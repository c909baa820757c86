/**
 * The database side of the delivery engine: claiming batches with leases, fetching their recipients,
 * checkpointing progress. Everything the runner knows about persistence goes through this class.
 */
import type { Db, Queryable } from '../db/db.js';
import { loadQueries } from '../db/queries.js';
import type { CampaignForMessage, SubscriberForMessage } from '../mail/campaign-message.js';

/**
 * Carve attempts per claim. An attempt fails only when another instance carved in between, which is
 * progress for the campaign; after this many the claim gives up until the runner's next tick.
 */
const CARVE_ATTEMPTS = 20;

const Q = loadQueries(new URL('./queries.sql', import.meta.url), [
  'scheduled-start-due',
  'running-campaigns',
  'campaign-statuses',
  'run-prepare',
  'batch-reclaim',
  'batch-cursor',
  'batch-carve',
  'batch-recipients',
  'batch-checkpoint',
  'batch-release-owned',
  'campaign-finish-if-complete',
  'campaign-pause-with-reason',
  'campaign-add-send-errors',
  'bounce-insert',
  'campaigns-pause-for-deleted-lists',
]);

/** A running campaign paused because lists it targets were being deleted. */
export interface PausedForDeletedLists {
  id: number;
  name: string;
  status_reason: string;
}

/**
 * Pauses every running campaign that targets one of `listIds`, with a `status_reason` naming the lists
 * and the progress (issue 14 finding 10). Call it inside the transaction that deletes the lists, before
 * the delete: the campaign rows stay locked until the deletion commits, so no instance can finish such
 * a campaign in between. Returns the campaigns it paused.
 */
export function pauseCampaignsForDeletedLists(q: Queryable, listIds: number[]): Promise<PausedForDeletedLists[]> {
  return q.run<PausedForDeletedLists>(Q['campaigns-pause-for-deleted-lists'], { list_ids: listIds });
}

/** A running campaign as the engine sees it. */
export interface RunningCampaign extends CampaignForMessage {
  run_no: number;
  /** Body of the campaign's template; null when it has none. */
  template_body: string | null;
}

/** A claimed unit of work: recipients with first_id < id <= last_id. */
export interface Batch {
  id: number;
  campaign_id: number;
  first_id: number;
  last_id: number;
  checkpoint_id: number;
  done_ids: number[];
}

/** Progress to record for a batch (see batch-checkpoint in queries.sql). */
export interface Checkpoint {
  checkpointId: number;
  doneIds: number[];
  /** Confirmed sends since the previous checkpoint. */
  sent: number;
  /** The whole batch is handled. */
  done: boolean;
  /** Give the batch up (pause, shutdown) so another run or instance continues it. */
  release: boolean;
}

/** Persistence for the delivery engine. Lease durations in milliseconds. */
export class CampaignStore {
  constructor(private readonly db: Db) {}

  /** Moves due scheduled campaigns to running; returns their ids. */
  async startDueScheduled(): Promise<number[]> {
    return (await this.db.run<{ id: number }>(Q['scheduled-start-due'])).map((r) => r.id);
  }

  /** Every running campaign. */
  runningCampaigns(): Promise<RunningCampaign[]> {
    return this.db.run<RunningCampaign>(Q['running-campaigns']);
  }

  /** Current status of each given campaign, by id (missing: deleted). */
  async statuses(ids: number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.run<{ id: number; status: string }>(Q['campaign-statuses'], { ids });
    return new Map(rows.map((r) => [r.id, r.status]));
  }

  /** Prepares the campaign's current run if not yet done (fixes to_send and the id range). */
  async prepareRun(campaignId: number): Promise<void> {
    await this.db.run(Q['run-prepare'], { id: campaignId });
  }

  /** Claims the next batch of a running campaign: a free open batch first, else a new one. Null when none. */
  async claimBatch(campaignId: number, owner: string, leaseMs: number, batchSize: number): Promise<Batch | null> {
    const [reclaimed] = await this.db.run<Batch>(Q['batch-reclaim'], { campaign_id: campaignId, owner, lease_ms: leaseMs });
    if (reclaimed) return reclaimed;
    // Another instance can move the cursor between the read and the carve; then read it again.
    for (let attempt = 0; attempt < CARVE_ATTEMPTS; attempt++) {
      const [cursor] = await this.db.run<{ last_subscriber_id: number; max_subscriber_id: number }>(Q['batch-cursor'], { campaign_id: campaignId });
      if (!cursor || cursor.last_subscriber_id >= cursor.max_subscriber_id) return null;
      const [carved] = await this.db.run<Batch>(Q['batch-carve'], {
        campaign_id: campaignId,
        after: cursor.last_subscriber_id,
        upto: cursor.max_subscriber_id,
        owner,
        lease_ms: leaseMs,
        batch_size: batchSize,
      });
      if (carved) return carved;
    }
    return null; // contended: the next tick tries again
  }

  /** The batch's recipients still to handle, in id order. */
  recipients(batch: Batch): Promise<SubscriberForMessage[]> {
    return this.db.run<SubscriberForMessage>(Q['batch-recipients'], {
      campaign_id: batch.campaign_id,
      after: batch.checkpoint_id,
      upto: batch.last_id,
      done_ids: batch.done_ids,
    });
  }

  /**
   * Records progress on a batch this instance owns and renews its lease. Returns the campaign's status,
   * or null when the batch is no longer ours (lease expired and taken over, or already closed).
   */
  async checkpoint(batch: Batch, owner: string, leaseMs: number, cp: Checkpoint): Promise<string | null> {
    const [row] = await this.db.run<{ status: string }>(Q['batch-checkpoint'], {
      batch_id: batch.id,
      owner,
      lease_ms: leaseMs,
      checkpoint_id: cp.checkpointId,
      done_ids: cp.doneIds,
      sent: cp.sent,
      done: cp.done,
      release: cp.release,
    });
    return row?.status ?? null;
  }

  /** Releases open batches held by `owner` (or by anyone) so they can be reclaimed at once. */
  async releaseOwned(owner: string, everyone: boolean): Promise<number> {
    return (await this.db.run(Q['batch-release-owned'], { owner, everyone })).length;
  }

  /**
   * Marks the campaign finished if all its work is done; its name and `sent` when this call did (only
   * one caller across instances gets them), null otherwise.
   */
  async finishIfComplete(campaignId: number): Promise<{ name: string; sent: number } | null> {
    const [row] = await this.db.run<{ name: string; sent: number }>(Q['campaign-finish-if-complete'], { id: campaignId });
    return row ?? null;
  }

  /** Pauses a running campaign and records why. */
  async pause(campaignId: number, reason: string): Promise<void> {
    await this.db.run(Q['campaign-pause-with-reason'], { id: campaignId, reason });
  }

  /**
   * Counts `n` send errors in the campaign's current run; pauses it (with a status_reason) once they
   * reach `max` (0: never). Returns the campaign's status afterwards, or null when it is gone.
   */
  async addSendErrors(
    campaignId: number,
    n: number,
    max: number,
    lastError: string,
  ): Promise<{ status: string; pausedNow: boolean; name: string; reason: string } | null> {
    const [row] = await this.db.run<{ status: string; paused_now: boolean; name: string; status_reason: string }>(Q['campaign-add-send-errors'], {
      id: campaignId, n, max, last_error: lastError.slice(0, 500),
    });
    return row ? { status: row.status, pausedNow: row.paused_now, name: row.name, reason: row.status_reason } : null;
  }

  /** Records a bounce for a subscriber of a campaign. */
  async recordBounce(subscriberId: number, campaignId: number, type: 'hard' | 'soft', meta: Record<string, unknown>): Promise<void> {
    await this.db.run(Q['bounce-insert'], { subscriber_id: subscriberId, campaign_id: campaignId, type, source: 'smtp', meta: JSON.stringify(meta) });
  }
}
