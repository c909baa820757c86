/**
 * Scheduled campaigns start once, whichever instance sees them first (issue 4 §3 "several instances
 * never start it twice"), and the send-rate ring of migration 0004 records every increase of `sent`.
 * On PostgreSQL the two stores are two connection pools, as two instances have.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/db.js';
import { openPostgres } from '../../src/db/pg-store.js';
import { CampaignStore } from '../../src/workers/campaign-store.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
let other: Db;
beforeAll(async () => {
  t = await openTestDb();
  other = t.url === null ? t.db : await openPostgres(t.url, { maxConnections: 4 });
});
afterAll(async () => {
  if (other !== t.db) await other.close();
  await t.destroy();
});

async function campaign(status: string, sendAt: string): Promise<number> {
  const [row] = await t.db.sql<{ id: number }>(
    `INSERT INTO campaigns (name, subject, from_email, status, send_at) VALUES ('c', 's', 'a@b.c', $1, $2::timestamptz) RETURNING id`,
    [status, sendAt],
  );
  return row!.id;
}

describe('starting due scheduled campaigns', () => {
  it('starts each due campaign exactly once when two instances look at the same moment', async () => {
    const due: number[] = [];
    for (let i = 0; i < 3; i++) due.push(await campaign('scheduled', '2000-01-01T00:00:00Z'));
    const later = await campaign('scheduled', '2999-01-01T00:00:00Z');
    const draft = await campaign('draft', '2000-01-01T00:00:00Z');
    const [a, b] = await Promise.all([new CampaignStore(t.db).startDueScheduled(), new CampaignStore(other).startDueScheduled()]);
    expect([...a, ...b].sort((x, y) => x - y)).toEqual(due);
    const rows = await t.db.sql<{ id: number; status: string; run_no: number; started: boolean }>(
      'SELECT id, status, run_no, started_at IS NOT NULL AS started FROM campaigns ORDER BY id',
    );
    for (const r of rows) {
      if (due.includes(r.id)) expect(r).toMatchObject({ status: 'running', run_no: 1, started: true });
      else expect(r).toMatchObject({ status: r.id === later ? 'scheduled' : 'draft', run_no: 0, started: false });
    }
    expect(rows.map((r) => r.id)).toContain(draft);
  });
});

describe('the send-rate ring', () => {
  it('adds every increase of sent to the current 5-second bucket, and restarts a slot when it comes round again', async () => {
    const id = await campaign('running', '2000-01-01T00:00:00Z');
    await t.db.sql('UPDATE campaigns SET sent = sent + 7 WHERE id = $1', [id]);
    await other.sql('UPDATE campaigns SET sent = sent + 5 WHERE id = $1', [id]);
    await t.db.sql('UPDATE campaigns SET name = $2 WHERE id = $1', [id, 'renamed']);
    const [now] = await t.db.sql<{ n: number }>('SELECT sum(sent)::int AS n FROM campaign_send_rate WHERE campaign_id = $1', [id]);
    expect(now!.n).toBe(12);
    // A minute later the same slot comes round again: its old count is replaced, not added to.
    await t.db.sql(`UPDATE campaign_send_rate SET bucket = bucket - interval '60 seconds' WHERE campaign_id = $1`, [id]);
    await t.db.sql('UPDATE campaigns SET sent = sent + 1 WHERE id = $1', [id]);
    const [newest] = await t.db.sql<{ sent: number }>('SELECT sent FROM campaign_send_rate WHERE campaign_id = $1 ORDER BY bucket DESC LIMIT 1', [id]);
    expect(newest).toEqual({ sent: 1 });
    const [recent] = await t.db.sql<{ n: number }>(`SELECT sum(sent)::int AS n FROM campaign_send_rate WHERE campaign_id = $1 AND bucket > now() - interval '60 seconds'`, [id]);
    expect(recent!.n).toBe(1);
    await t.db.sql('DELETE FROM campaigns WHERE id = $1', [id]);
    expect(await t.db.sql('SELECT 1 FROM campaign_send_rate WHERE campaign_id = $1', [id])).toEqual([]);
  });
});
