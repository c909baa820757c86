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

describe('carving batches', () => {
  it('tiles the audience without gap or overlap when two instances claim at the same time', async () => {
    const [list] = await t.db.sql<{ id: number }>("INSERT INTO lists (name, type, optin) VALUES ('Carve', 'private', 'single') RETURNING id");
    await t.db.sql(`INSERT INTO subscribers (email, name) SELECT 'carve' || g || '@example.org', 'Carve' FROM generate_series(1, 2500) g`);
    await t.db.sql("INSERT INTO subscriber_lists (subscriber_id, list_id, status) SELECT id, $1::int, 'confirmed' FROM subscribers WHERE email LIKE 'carve%'", [list!.id]);
    const id = await campaign('running', '2000-01-01T00:00:00Z');
    await t.db.sql('INSERT INTO campaign_lists (campaign_id, list_id, list_name) VALUES ($1, $2, $3)', [id, list!.id, 'Carve']);
    await t.db.sql('UPDATE campaigns SET run_no = run_no + 1 WHERE id = $1', [id]); // as starting it does
    await new CampaignStore(t.db).prepareRun(id);
    const [{ max_subscriber_id: max }] = (await t.db.sql<{ max_subscriber_id: number }>('SELECT max_subscriber_id FROM campaigns WHERE id = $1', [id])) as [{ max_subscriber_id: number }];

    // Eight claimers on two instances, each claiming until nothing is left.
    const stores = [new CampaignStore(t.db), new CampaignStore(other)];
    const batches: Array<{ first_id: number; last_id: number }> = [];
    await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        for (;;) {
          const b = await stores[i % 2]!.claimBatch(id, `owner-${i % 2}`, 30_000, 100);
          if (b === null) return;
          batches.push(b);
        }
      }),
    );
    batches.sort((a, b) => a.first_id - b.first_id);
    expect(batches.length).toBe(25); // 2,500 recipients in batches of 100
    expect(batches[0]!.first_id).toBe(0);
    expect(batches.at(-1)!.last_id).toBe(max);
    for (let i = 1; i < batches.length; i++) expect(batches[i]!.first_id).toBe(batches[i - 1]!.last_id);
  });
});
