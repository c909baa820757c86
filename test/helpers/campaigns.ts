/**
 * Campaign helpers for tests that drive the delivery engine.
 */
import type { TestApp } from './app.js';

/** Polls GET /api/campaigns/:id until it reaches `status`; returns it. Throws with the last state on timeout. */
export async function waitForCampaign(t: Pick<TestApp, 'api'>, id: number, status: string, timeoutMs = 60_000): Promise<Record<string, any>> {
  const until = Date.now() + timeoutMs;
  let last: Record<string, any> = {};
  while (Date.now() < until) {
    last = (await t.api('GET', `/api/campaigns/${id}`)).body.data;
    if (last.status === status) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`campaign ${id} did not reach ${status}: ${JSON.stringify({ status: last.status, sent: last.sent, to_send: last.to_send, reason: last.status_reason })}`);
}
