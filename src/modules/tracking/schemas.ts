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
