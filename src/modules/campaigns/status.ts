/**
 * The campaign status machine of spec part 3, as a pure function. Only the moves in the table are
 * allowed through `PUT /api/campaigns/:id/status`; `finished` is reached only by the delivery engine.
 *
 * | from      | requested   | to        |
 * |-----------|-------------|-----------|
 * | draft     | scheduled   | scheduled |  (needs send_at)
 * | scheduled | draft       | draft     |  ("saved as draft": unschedules)
 * | draft     | running     | running   |
 * | paused    | running     | running   |
 * | running   | paused      | paused    |
 * | running   | cancelled   | cancelled |
 */

export const CAMPAIGN_STATUSES = ['draft', 'scheduled', 'running', 'paused', 'cancelled', 'finished'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/** Statuses a client may request (spec 4.7 plus `draft` for "saved as draft"). */
export const REQUESTABLE_STATUSES = ['draft', 'scheduled', 'running', 'paused', 'cancelled'] as const;
export type RequestableStatus = (typeof REQUESTABLE_STATUSES)[number];

const ALLOWED: Record<RequestableStatus, readonly CampaignStatus[]> = {
  scheduled: ['draft'],
  draft: ['scheduled'],
  running: ['draft', 'paused'],
  paused: ['running'],
  cancelled: ['running'],
};

/** Outcome of a requested move: allowed, or refused with a message naming both statuses. */
export type StatusMove = { ok: true } | { ok: false; message: string };

/**
 * Decides whether a campaign in `from` may move to `to`. `hasSendAt` tells whether the campaign has a
 * schedule time (required to schedule it).
 */
export function statusMove(from: CampaignStatus, to: RequestableStatus, hasSendAt: boolean): StatusMove {
  const allowedFrom = ALLOWED[to];
  if (!allowedFrom.includes(from)) {
    const need = allowedFrom.map((s) => `"${s}"`).join(' or ');
    return { ok: false, message: `status: cannot change a "${from}" campaign to "${to}"; only a ${need} campaign can be` };
  }
  if (to === 'scheduled' && !hasSendAt) {
    return { ok: false, message: 'status: the campaign needs send_at to be scheduled' };
  }
  return { ok: true };
}

/** True for statuses in which a campaign's content and settings may be edited (reference §7.4). */
export function isEditable(status: CampaignStatus): boolean {
  return status === 'draft' || status === 'scheduled' || status === 'paused';
}
