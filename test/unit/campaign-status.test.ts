import { describe, expect, it } from 'vitest';
import { CAMPAIGN_STATUSES, REQUESTABLE_STATUSES, statusMove, type CampaignStatus, type RequestableStatus } from '../../src/modules/campaigns/status.js';

// The table of spec part 3, exactly: every other (from, to) pair is refused.
const ALLOWED: Array<[CampaignStatus, RequestableStatus]> = [
  ['draft', 'scheduled'],
  ['scheduled', 'draft'],
  ['draft', 'running'],
  ['paused', 'running'],
  ['running', 'paused'],
  ['running', 'cancelled'],
];

describe('statusMove', () => {
  for (const from of CAMPAIGN_STATUSES) {
    for (const to of REQUESTABLE_STATUSES) {
      const allowed = ALLOWED.some(([f, t]) => f === from && t === to);
      it(`${from} → ${to} is ${allowed ? 'allowed' : 'refused'}`, () => {
        const move = statusMove(from, to, true);
        expect(move.ok).toBe(allowed);
        if (!move.ok) {
          expect(move.message).toContain(`"${from}"`);
          expect(move.message).toContain(`"${to}"`);
        }
      });
    }
  }

  it('refuses scheduling without send_at', () => {
    const move = statusMove('draft', 'scheduled', false);
    expect(move).toEqual({ ok: false, message: 'status: the campaign needs send_at to be scheduled' });
  });
});
