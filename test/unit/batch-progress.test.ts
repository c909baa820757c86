import { describe, expect, it } from 'vitest';
import { BatchProgress } from '../../src/workers/batch-progress.js';

describe('BatchProgress', () => {
  it('checkpoints the contiguous settled prefix and lists settled ids above it', () => {
    const p = new BatchProgress([11, 12, 13, 14, 15], 10);
    for (let i = 0; i < 5; i++) p.dispatchNext();
    p.settle(1, 'sent');
    p.settle(3, 'bounced');
    expect(p.snapshot()).toMatchObject({ checkpointId: 10, doneIds: [12, 14], sent: 1, complete: false });
    p.settle(0, 'sent');
    expect(p.snapshot()).toMatchObject({ checkpointId: 12, doneIds: [14], sent: 2 });
  });

  it('counts only unwritten sends and bounds what a crash could repeat', () => {
    const p = new BatchProgress([1, 2, 3], 0);
    p.dispatchNext();
    p.dispatchNext();
    expect(p.unpersisted()).toBe(2);
    p.settle(0, 'sent');
    const snap = p.snapshot();
    p.commit(snap);
    expect(p.unpersisted()).toBe(1);
    expect(p.settledUnpersisted()).toBe(0);
    p.settle(1, 'skipped');
    expect(p.snapshot()).toMatchObject({ checkpointId: 2, sent: 0 });
    p.dispatchNext();
    p.settle(2, 'sent');
    expect(p.snapshot()).toMatchObject({ checkpointId: 3, doneIds: [], sent: 1, complete: true });
  });

  it('keeps ids handled by an earlier run until the watermark passes them', () => {
    const p = new BatchProgress([5, 7], 4, [6, 9]);
    p.dispatchNext();
    p.settle(0, 'sent');
    expect(p.snapshot()).toMatchObject({ checkpointId: 5, doneIds: [6, 9] });
    p.dispatchNext();
    p.settle(1, 'sent');
    expect(p.snapshot()).toMatchObject({ checkpointId: 7, doneIds: [9], complete: true });
  });

  it('refuses to settle a recipient twice', () => {
    const p = new BatchProgress([1], 0);
    p.dispatchNext();
    p.settle(0, 'sent');
    expect(() => p.settle(0, 'sent')).toThrow(/twice/);
  });

  it('is complete at once for an empty batch', () => {
    expect(new BatchProgress([], 3).snapshot()).toMatchObject({ checkpointId: 3, complete: true, sent: 0 });
  });
});
