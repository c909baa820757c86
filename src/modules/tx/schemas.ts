/**
 * Schemas of the transactional API (spec 4.4, reference §9).
 */
import { Type, type Static } from 'typebox';
import { Id } from '../../http/schemas.js';

/** Most recipients in one request (listmonk has no limit; every message is rendered before any is sent). */
export const MAX_TX_RECIPIENTS = 1000;

export const SUBSCRIBER_MODES = ['default', 'fallback', 'external'] as const;
/** `richtext` is accepted as a synonym of `html` (listmonk sends anything but `plain` as HTML). */
export const TX_CONTENT_TYPES = ['html', 'markdown', 'plain', 'richtext'] as const;

/** POST /api/tx body (JSON, or the JSON in the `data` field of a multipart request). */
export const TxRequest = Type.Object({
  subscriber_email: Type.Optional(Type.String({ maxLength: 1000 })),
  subscriber_id: Type.Optional(Id),
  subscriber_emails: Type.Optional(Type.Array(Type.String({ maxLength: 1000 }), { maxItems: MAX_TX_RECIPIENTS })),
  subscriber_ids: Type.Optional(Type.Array(Id, { maxItems: MAX_TX_RECIPIENTS })),
  subscriber_mode: Type.Optional(Type.Enum(SUBSCRIBER_MODES)),
  template_id: Id,
  from_email: Type.Optional(Type.String({ maxLength: 2000 })),
  data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  headers: Type.Optional(Type.Array(Type.Record(Type.String(), Type.String({ maxLength: 2000 })), { maxItems: 50 })),
  messenger: Type.Optional(Type.String({ maxLength: 200 })),
  content_type: Type.Optional(Type.Enum(TX_CONTENT_TYPES)),
  subject: Type.Optional(Type.String({ maxLength: 5000 })),
  altbody: Type.Optional(Type.String({ maxLength: 1_000_000 })),
});
export type TxRequest = Static<typeof TxRequest>;
