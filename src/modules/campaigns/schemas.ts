/**
 * Schemas of the campaigns API (spec 2 "Campaign", 4.7; reference §7).
 */
import { Type, type Static } from 'typebox';
import { Id, NullableTimestamp, Order, PageQuery, Tags, Timestamp, Uuid } from '../../http/schemas.js';
import { CAMPAIGN_STATUSES, REQUESTABLE_STATUSES } from './status.js';

export const CAMPAIGN_TYPES = ['regular', 'optin'] as const;
export const CONTENT_TYPES = ['richtext', 'html', 'markdown', 'plain', 'visual'] as const;
export const CAMPAIGN_ORDER_FIELDS = ['id', 'name', 'status', 'created_at', 'updated_at', 'send_at'] as const;

/** Mail headers as listmonk stores them: a list of single-key objects, `[{"X-Foo": "bar"}]`. */
export const Headers = Type.Array(Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Type.String({ maxLength: 2000 })), { maxItems: 50 });

/** A campaign as the API answers it (reference §7.1 key set, plus `status_reason`). */
export const Campaign = Type.Object({
  id: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
  views: Type.Integer(),
  clicks: Type.Integer(),
  bounces: Type.Integer(),
  lists: Type.Array(Type.Object({ id: Type.Union([Type.Integer(), Type.Null()]), name: Type.String() })),
  media: Type.Array(Type.Object({ id: Type.Integer(), filename: Type.String() })),
  started_at: NullableTimestamp,
  to_send: Type.Integer(),
  sent: Type.Integer(),
  uuid: Uuid,
  type: Type.String(),
  name: Type.String(),
  subject: Type.String(),
  from_email: Type.String(),
  body: Type.String(),
  body_source: Type.Union([Type.String(), Type.Null()]),
  altbody: Type.Union([Type.String(), Type.Null()]),
  send_at: NullableTimestamp,
  status: Type.String(),
  status_reason: Type.String(),
  content_type: Type.String(),
  tags: Type.Array(Type.String()),
  headers: Headers,
  attribs: Type.Record(Type.String(), Type.Unknown()),
  template_id: Type.Union([Type.Integer(), Type.Null()]),
  messenger: Type.String(),
  archive: Type.Boolean(),
  archive_slug: Type.Union([Type.String(), Type.Null()]),
  archive_template_id: Type.Union([Type.Integer(), Type.Null()]),
  archive_meta: Type.Record(Type.String(), Type.Unknown()),
});
export type Campaign = Static<typeof Campaign>;

export const CampaignQuery = Type.Object({
  query: Type.Optional(Type.String({ maxLength: 2000 })),
  status: Type.Optional(Type.Array(Type.Enum(CAMPAIGN_STATUSES), { maxItems: 10 })),
  tag: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 50 })),
  order_by: Type.Optional(Type.Enum(CAMPAIGN_ORDER_FIELDS)),
  order: Type.Optional(Order),
  no_body: Type.Optional(Type.Boolean()),
  ...PageQuery,
});
export type CampaignQuery = Static<typeof CampaignQuery>;

/**
 * POST /api/campaigns (spec 4.7). `type`, `content_type` and `body` are marked required by the spec;
 * like listmonk, they default to `regular`, `richtext` and '' when omitted.
 */
export const CampaignCreate = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 2000 }),
  subject: Type.String({ minLength: 1, maxLength: 5000 }),
  lists: Type.Array(Id, { minItems: 1, maxItems: 1000 }),
  from_email: Type.Optional(Type.String({ maxLength: 2000 })),
  type: Type.Optional(Type.Enum(CAMPAIGN_TYPES)),
  content_type: Type.Optional(Type.Enum(CONTENT_TYPES)),
  body: Type.Optional(Type.String({ maxLength: 5 * 1024 * 1024 })),
  altbody: Type.Optional(Type.Union([Type.String({ maxLength: 5 * 1024 * 1024 }), Type.Null()])),
  send_at: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
  messenger: Type.Optional(Type.String({ maxLength: 200 })),
  template_id: Type.Optional(Type.Union([Id, Type.Null()])),
  tags: Type.Optional(Tags),
  headers: Type.Optional(Headers),
  attribs: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type CampaignCreate = Static<typeof CampaignCreate>;

export const CampaignStatusBody = Type.Object({ status: Type.Enum(REQUESTABLE_STATUSES) });
export type CampaignStatusBody = Static<typeof CampaignStatusBody>;
