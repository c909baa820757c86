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

const MAX_BODY = 5 * 1024 * 1024;

/** The fields of a campaign a client writes (create, update, test send), each optional here. */
const writable = {
  name: Type.String({ minLength: 1, maxLength: 2000 }),
  subject: Type.String({ minLength: 1, maxLength: 5000 }),
  lists: Type.Array(Id, { minItems: 1, maxItems: 1000 }),
  from_email: Type.String({ maxLength: 2000 }),
  type: Type.Enum(CAMPAIGN_TYPES),
  content_type: Type.Enum(CONTENT_TYPES),
  body: Type.String({ maxLength: MAX_BODY }),
  body_source: Type.Union([Type.String({ maxLength: MAX_BODY }), Type.Null()]),
  altbody: Type.Union([Type.String({ maxLength: MAX_BODY }), Type.Null()]),
  send_at: Type.Union([Type.String({ maxLength: 64 }), Type.Null()]),
  messenger: Type.String({ maxLength: 200 }),
  template_id: Type.Union([Id, Type.Null()]),
  tags: Tags,
  headers: Headers,
  attribs: Type.Record(Type.String(), Type.Unknown()),
  archive: Type.Boolean(),
  archive_slug: Type.Union([Type.String({ maxLength: 200 }), Type.Null()]),
  archive_template_id: Type.Union([Id, Type.Null()]),
  archive_meta: Type.Record(Type.String(), Type.Unknown()),
};

/** The writable fields, all optional (PUT /api/campaigns/:id). Omitted fields keep their value. */
export const CampaignUpdate = Type.Partial(Type.Object(writable));
export type CampaignUpdate = Static<typeof CampaignUpdate>;

/**
 * POST /api/campaigns (spec 4.7). `type`, `content_type` and `body` are marked required by the spec;
 * like listmonk, they default to `regular`, `richtext` and '' when omitted.
 */
export const CampaignCreate = Type.Intersect([
  Type.Object({ name: writable.name, subject: writable.subject, lists: writable.lists }),
  CampaignUpdate,
]);
export type CampaignCreate = Static<typeof CampaignCreate>;

/**
 * POST /api/campaigns/:id/test: campaign fields overriding the stored ones for this send (nothing is
 * saved), plus `subscribers`: e-mail addresses of existing subscribers.
 */
export const CampaignTest = Type.Intersect([
  CampaignUpdate,
  Type.Object({ subscribers: Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), { minItems: 1, maxItems: 100 }) }),
]);
export type CampaignTest = Static<typeof CampaignTest>;

/** `?template_id=` on a test send (listmonk reads it from the query string). */
export const CampaignTestQuery = Type.Object({ template_id: Type.Optional(Id) });
export type CampaignTestQuery = Static<typeof CampaignTestQuery>;

/**
 * POST /api/campaigns/:id/preview, JSON or form (listmonk's admin sends form fields): `body`,
 * `content_type`, `template_id` override the stored campaign for this render. Form values are text,
 * so `template_id` may be a numeric string (empty: the campaign's own template).
 */
export const CampaignPreviewBody = Type.Object({
  body: Type.Optional(writable.body),
  content_type: Type.Optional(writable.content_type),
  template_id: Type.Optional(Type.Union([Id, Type.Null(), Type.String({ pattern: '^[0-9]{0,9}$' })])),
});
export type CampaignPreviewBody = Static<typeof CampaignPreviewBody>;

/** PUT /api/campaigns/:id/archive (reference §7.10): the public-archive settings, any status. */
export const CampaignArchiveBody = Type.Object({
  archive: Type.Optional(writable.archive),
  archive_slug: Type.Optional(writable.archive_slug),
  archive_template_id: Type.Optional(writable.archive_template_id),
  archive_meta: Type.Optional(writable.archive_meta),
});
export type CampaignArchiveBody = Static<typeof CampaignArchiveBody>;

/** The archive settings as answered by PUT /api/campaigns/:id/archive (listmonk echoes them). */
export const CampaignArchive = Type.Object({
  archive: Type.Boolean(),
  archive_slug: Type.Union([Type.String(), Type.Null()]),
  archive_template_id: Type.Union([Type.Integer(), Type.Null()]),
  archive_meta: Type.Record(Type.String(), Type.Unknown()),
});
export type CampaignArchive = Static<typeof CampaignArchive>;

/** GET /api/campaigns/running/stats: `campaign_id` repeatable; absent: every running campaign. */
export const RunningStatsQuery = Type.Object({
  campaign_id: Type.Optional(Type.Array(Id, { maxItems: 1000 })),
});
export type RunningStatsQuery = Static<typeof RunningStatsQuery>;

/** Progress of a running campaign; `rate` and `net_rate` are messages per minute. */
export const RunningStat = Type.Object({
  id: Type.Integer(),
  status: Type.String(),
  to_send: Type.Integer(),
  sent: Type.Integer(),
  started_at: NullableTimestamp,
  updated_at: Timestamp,
  rate: Type.Number(),
  net_rate: Type.Number(),
});
export type RunningStat = Static<typeof RunningStat>;

export const CampaignStatusBody = Type.Object({ status: Type.Enum(REQUESTABLE_STATUSES) });
export type CampaignStatusBody = Static<typeof CampaignStatusBody>;
