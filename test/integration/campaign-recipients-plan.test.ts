/**
 * Carving a campaign batch reads only the batch's id range of subscribers, wherever the campaign has
 * got to (migration 0007). Before it, the join with subscribers walked the primary key from id 1, so
 * each batch cost time in proportion to the campaign's progress and a whole campaign was quadratic.
 * Measured in rows the database read (EXPLAIN ANALYZE), not in time, so a busy machine cannot fail it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDb, type TestDb } from '../helpers/db.js';

const SUBSCRIBERS = 20_000;
const BATCH = 500;

let t: TestDb;
let campaignId: number;
beforeAll(async () => {
  t = await openTestDb();
  const [list] = await t.db.sql<{ id: number }>("INSERT INTO lists (name, type, optin) VALUES ('Plan', 'private', 'single') RETURNING id");
  await t.db.sql(`INSERT INTO subscribers (email, name) SELECT 'plan' || g || '@example.org', 'Plan ' || g FROM generate_series(1, $1::int) g`, [SUBSCRIBERS]);
  await t.db.sql("INSERT INTO subscriber_lists (subscriber_id, list_id, status) SELECT id, $1::int, 'confirmed' FROM subscribers", [list!.id]);
  const [c] = await t.db.sql<{ id: number }>(
    "INSERT INTO campaigns (name, subject, from_email, body, status) VALUES ('Plan', 'Plan', 'a@example.org', 'x', 'running') RETURNING id",
  );
  campaignId = c!.id;
  await t.db.sql('INSERT INTO campaign_lists (campaign_id, list_id, list_name) VALUES ($1, $2, $3)', [campaignId, list!.id, 'Plan']);
  await t.db.sql('ANALYZE');
}, 120_000);
afterAll(async () => {
  await t.destroy();
});

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/** Rows read from `relation` by every scan node of the plan. */
function rowsRead(node: PlanNode, relation: string): number {
  const own = node['Relation Name'] === relation ? (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1) : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child, relation), 0);
}

async function subscribersReadForBatchAfter(after: number): Promise<{ rows: number; lastId: number }> {
  const [plan] = await t.db.sql<Record<string, unknown>>(
    'EXPLAIN (ANALYZE, FORMAT JSON) SELECT max(r.subscriber_id) FROM campaign_recipients($1, $2, $3, $4) r',
    [campaignId, after, SUBSCRIBERS, BATCH],
  );
  const raw = Object.values(plan!)[0];
  const doc = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan: PlanNode }>;
  const [{ max }] = (await t.db.sql<{ max: number }>('SELECT max(r.subscriber_id) FROM campaign_recipients($1, $2, $3, $4) r', [campaignId, after, SUBSCRIBERS, BATCH])) as [{ max: number }];
  return { rows: rowsRead(doc[0]!.Plan, 'subscribers'), lastId: max };
}

describe('campaign_recipients() over a campaign in progress', () => {
  it('reads about one batch of subscribers, at the start, the middle and the end', async () => {
    for (const after of [0, SUBSCRIBERS / 2, SUBSCRIBERS - 2 * BATCH]) {
      const { rows, lastId } = await subscribersReadForBatchAfter(after);
      expect(lastId).toBe(after + BATCH); // the batch is right: the next BATCH ids
      expect(rows, `subscribers read for the batch after ${after}`).toBeLessThanOrEqual(2 * BATCH);
    }
  });
});
