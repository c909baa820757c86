/**
 * Progress through one batch's recipients, kept so that what is persisted is always true: a subscriber
 * counts as handled only after the messenger confirmed (or permanently refused) their message.
 *
 * Recipients are dispatched in id order but settle in any order (concurrent sends, retries). The
 * checkpoint is the highest id below which everything is settled (the watermark); settled ids above it
 * are kept in `doneIds`. Both are written together, so after a crash exactly the unsettled and the
 * settled-but-not-yet-written recipients are sent again; {@link unpersisted} bounds that number and the
 * runner never lets it exceed its in-flight window.
 */

/** What {@link BatchProgress.snapshot} returns: the state to write, and how to mark it written. */
export interface ProgressSnapshot {
  checkpointId: number;
  doneIds: number[];
  /** Confirmed sends not yet written. */
  sent: number;
  /** Every recipient is settled. */
  complete: boolean;
  /** Number of settled recipients this snapshot covers (internal bookkeeping for commit). */
  settledCount: number;
}

/** How a recipient settled. `skipped`: not sendable (template error) — handled, not sent. */
export type Outcome = 'sent' | 'bounced' | 'skipped';

/** Tracks one batch. `ids` are the recipients still to handle, ascending. */
export class BatchProgress {
  private readonly outcomes: Array<Outcome | undefined>;
  private watermark = 0;
  private dispatched = 0;
  private settledTotal = 0;
  private persistedSettled = 0;
  private sentTotal = 0;
  private persistedSent = 0;

  /**
   * @param ids recipients to handle, ascending
   * @param checkpointId the batch's stored checkpoint (all ids <= it are handled)
   * @param previousDone ids handled in an earlier run, above the stored checkpoint (not in `ids`)
   */
  constructor(
    readonly ids: readonly number[],
    private readonly checkpointId: number,
    private readonly previousDone: readonly number[] = [],
  ) {
    this.outcomes = new Array<Outcome | undefined>(ids.length);
  }

  /** Number of recipients. */
  get size(): number {
    return this.ids.length;
  }

  /** Marks the next recipient as dispatched and returns its index. */
  dispatchNext(): number {
    return this.dispatched++;
  }

  /** Records the outcome of recipient `index`. Settling twice is an error. */
  settle(index: number, outcome: Outcome): void {
    if (this.outcomes[index] !== undefined) throw new Error(`recipient ${index} settled twice`);
    this.outcomes[index] = outcome;
    this.settledTotal += 1;
    if (outcome === 'sent') this.sentTotal += 1;
    while (this.watermark < this.ids.length && this.outcomes[this.watermark] !== undefined) this.watermark += 1;
  }

  /** Dispatched recipients whose outcome is not yet written: what a crash now could send twice. */
  unpersisted(): number {
    return this.dispatched - this.persistedSettled;
  }

  /** Settled recipients whose outcome is not yet written (a checkpoint would make progress). */
  settledUnpersisted(): number {
    return this.settledTotal - this.persistedSettled;
  }

  /** Dispatched recipients not yet settled. */
  inFlight(): number {
    return this.dispatched - this.settledTotal;
  }

  /** True when every recipient is settled. */
  complete(): boolean {
    return this.watermark === this.ids.length;
  }

  /** The state to persist now. */
  snapshot(): ProgressSnapshot {
    const checkpointId = this.watermark === 0 ? this.checkpointId : (this.ids[this.watermark - 1] as number);
    const doneIds = this.previousDone.filter((id) => id > checkpointId);
    for (let i = this.watermark; i < this.ids.length; i++) {
      if (this.outcomes[i] !== undefined) doneIds.push(this.ids[i] as number);
    }
    doneIds.sort((a, b) => a - b);
    return {
      checkpointId,
      doneIds,
      sent: this.sentTotal - this.persistedSent,
      complete: this.complete(),
      settledCount: this.settledTotal,
    };
  }

  /** Marks a snapshot as written. */
  commit(snapshot: ProgressSnapshot): void {
    this.persistedSettled = snapshot.settledCount;
    this.persistedSent += snapshot.sent;
  }
}
