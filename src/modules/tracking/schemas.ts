/**
 * Response shapes of the tracking API (listmonk reference §2.2, §7.10).
 */
import { Type, type Static } from 'typebox';
import { Timestamp } from '../../http/schemas.js';

/** Views, clicks or bounces of one campaign in one hour or day. */
export const CountBucket = Type.Object({ campaign_id: Type.Integer(), count: Type.Integer(), timestamp: Timestamp });
export type CountBucket = Static<typeof CountBucket>;

/** A tracked URL and its clicks. */
export const LinkCount = Type.Object({ url: Type.String(), count: Type.Integer() });
export type LinkCount = Static<typeof LinkCount>;

/** The dashboard counts, listmonk's shape (`by_status` lists only statuses that occur). */
export const DashboardCounts = Type.Object({
  subscribers: Type.Object({ total: Type.Integer(), blocklisted: Type.Integer(), orphans: Type.Integer() }),
  lists: Type.Object({ total: Type.Integer(), private: Type.Integer(), public: Type.Integer(), optin_single: Type.Integer(), optin_double: Type.Integer() }),
  campaigns: Type.Object({ total: Type.Integer(), by_status: Type.Record(Type.String(), Type.Integer()) }),
  messages: Type.Integer(),
});
export type DashboardCounts = Static<typeof DashboardCounts>;
