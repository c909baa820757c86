/**
 * Request and response schemas of the lists API (spec 2 "List", 4.2; reference §5).
 */
import { Type, type Static } from 'typebox';
import { Order, PageQuery, Tags, Timestamp, Uuid } from '../../http/schemas.js';

export const LIST_TYPES = ['public', 'private', 'temporary'] as const;
export const LIST_OPTINS = ['single', 'double'] as const;
export const LIST_STATUSES = ['active', 'archived'] as const;
export const LIST_ORDER_FIELDS = ['id', 'name', 'type', 'optin', 'status', 'created_at', 'updated_at', 'subscriber_count'] as const;

export const ListType = Type.Enum(LIST_TYPES);
export const ListOptin = Type.Enum(LIST_OPTINS);
export const ListStatus = Type.Enum(LIST_STATUSES);
const ListName = Type.String({ minLength: 1, maxLength: 2000 });
const Description = Type.String({ maxLength: 10_000 });

/** A list as the API answers it. `subscriber_count` counts every subscription, as listmonk does. */
export const List = Type.Object({
  id: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
  uuid: Uuid,
  name: Type.String(),
  type: Type.String(),
  optin: Type.String(),
  status: Type.String(),
  tags: Type.Array(Type.String()),
  description: Type.String(),
  subscriber_count: Type.Integer(),
  subscriber_statuses: Type.Record(Type.String(), Type.Integer()),
});
export type List = Static<typeof List>;

export const ListQuery = Type.Object({
  query: Type.Optional(Type.String({ maxLength: 2000 })),
  type: Type.Optional(ListType),
  optin: Type.Optional(ListOptin),
  status: Type.Optional(ListStatus),
  tag: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 50 })),
  minimal: Type.Optional(Type.Boolean()),
  order_by: Type.Optional(Type.Enum(LIST_ORDER_FIELDS)),
  order: Type.Optional(Order),
  ...PageQuery,
});
export type ListQuery = Static<typeof ListQuery>;

/**
 * POST /api/lists. The spec (4.2) marks `type` and `optin` required; like listmonk, Mailroom defaults
 * them (`private`, `single`) when omitted, which no spec-conforming client can notice.
 */
export const ListCreate = Type.Object({
  name: ListName,
  type: Type.Optional(ListType),
  optin: Type.Optional(ListOptin),
  status: Type.Optional(ListStatus),
  tags: Type.Optional(Tags),
  description: Type.Optional(Description),
});
export type ListCreate = Static<typeof ListCreate>;

/** PUT /api/lists/:id: every field optional; omitted fields keep their stored values. */
export const ListUpdate = Type.Partial(ListCreate);
export type ListUpdate = Static<typeof ListUpdate>;

export const ListDeleteQuery = Type.Object({
  id: Type.Array(Type.Integer({ minimum: 1, maximum: 2_147_483_647 }), { minItems: 1, maxItems: 1000 }),
});
