/**
 * Issue 14 finding 10, several instances: the transaction that deletes a list pauses its running
 * campaigns before deleting it, and holds their rows until it commits. Another instance that tries to
 * finish such a campaign meanwhile (its remaining audience just emptied) waits for that commit and
 * then finds it paused: the campaign cannot end `finished` on the shrunken audience. On PostgreSQL the
 * two stores are two connection pools, as two instances have; the embedded store has one connection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/db.js';
import { openPostgres } from '../../src/db/pg-store.js';
import { ListRepo } from '../../src/modules/lists/repo.js';
import { CampaignStore, pauseCampaignsForDeletedLists } from '../../src/workers/campaign-store.js';
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

/** Polls until `check` holds; throws after `timeoutMs`. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('deleting a list while another instance finishes its campaign', () => {
  it('the finish waits for the deletion and then finds the campaign paused', async () => {
    const [list] = await t.db.sql<{ id: number }>("INSERT INTO lists (name, type, optin) VALUES ('Gone', 'private', 'single') RETURNING id");
    // A running campaign whose whole range is carved and done: finishIfComplete would finish it now.
    const [c] = await t.db.sql<{ id: number }>("INSERT INTO campaigns (name, subject, from_email, status, sent, to_send) VALUES ('c', 's', 'a@b.c', 'running', 10, 40) RETURNING id");
    await t.db.sql('INSERT INTO campaign_lists (campaign_id, list_id, list_name) VALUES ($1, $2, $3)', [c!.id, list!.id, 'Gone']);

    let paused!: () => void;
    const pausedNow = new Promise<void>((r) => (paused = r));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const deletion = new ListRepo(t.db).delete([list!.id], async (q) => {
      const out = await pauseCampaignsForDeletedLists(q, [list!.id]);
      paused();
      await gate;
      return out;
    });
    await pausedNow;
    const finish = new CampaignStore(other).finishIfComplete(c!.id);
    if (t.url !== null) {
      // The other instance's statement is waiting for the campaign row.
      await until('the finish to wait on the lock', async () => {
        const [row] = await other.sql<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
        return row!.n >= 1;
      });
    }
    release();
    const { deleted, before } = await deletion;
    expect(deleted).toEqual([list!.id]);
    expect(before).toEqual([{ id: c!.id, name: 'c', status_reason: `list "Gone" (id ${list!.id}) was deleted while the campaign was running (10 of 40 sent); its subscribers no longer receive it. Resume to send to the remaining lists, or cancel` }]);
    expect(await finish).toBeNull();
    const [after] = await t.db.sql<{ status: string }>('SELECT status FROM campaigns WHERE id = $1', [c!.id]);
    expect(after!.status).toBe('paused');
  });
});
