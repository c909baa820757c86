/**
 * Request and response schemas of the subscribers API (spec 2 "Subscriber", 4.1; reference §4).
 */
import { Type, type Static } from 'typebox';
import { Id, Order, PageQuery, Timestamp, Uuid } from '../../http/schemas.js';

export const SUBSCRIBER_STATUSES = ['enabled', 'disabled', 'blocklisted'] as const;
export const SUBSCRIPTION_STATUSES = ['unconfirmed', 'confirmed', 'unsubscribed'] as const;
export const SUBSCRIBER_ORDER_FIELDS = ['id', 'email', 'name', 'status', 'created_at', 'updated_at'] as const;

/** Largest `attribs` object accepted, serialised as JSON (64 KiB). */
export const MAX_ATTRIBS_BYTES = 64 * 1024;
/** Longest subscriber name, in characters. */
export const MAX_NAME_CHARS = 2000;

export const SubscriberStatus = Type.Enum(SUBSCRIBER_STATUSES);
export const SubscriptionStatus = Type.Enum(SUBSCRIPTION_STATUSES);
const Attribs = Type.Record(Type.String(), Type.Unknown());

/** A list-membership object inside a subscriber read (spec 2). */
export const Membership = Type.Object({
  subscription_status: Type.String(),
  subscription_created_at: Timestamp,
  subscription_updated_at: Timestamp,
  id: Type.Integer(),
  uuid: Uuid,
  name: Type.String(),
  type: Type.String(),
  optin: Type.String(),
  status: Type.String(),
  tags: Type.Array(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Membership = Static<typeof Membership>;

const subscriberFields = {
  id: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
  uuid: Uuid,
  email: Type.String(),
  name: Type.String(),
  attribs: Attribs,
  status: Type.String(),
};

/** A subscriber as read (GET): `lists` holds membership objects. */
export const Subscriber = Type.Object({ ...subscriberFields, lists: Type.Array(Membership) });
export type Subscriber = Static<typeof Subscriber>;

/** A subscriber as the create answer shows it: `lists` holds list ids (spec 4.1). */
export const CreatedSubscriber = Type.Object({ ...subscriberFields, lists: Type.Array(Type.Integer()) });
export type CreatedSubscriber = Static<typeof CreatedSubscriber>;

export const SubscriberQuery = Type.Object({
  query: Type.Optional(Type.String({ maxLength: 10_000 })),
  search: Type.Optional(Type.String({ maxLength: 1000 })),
  list_id: Type.Optional(Type.Array(Id, { maxItems: 1000 })),
  subscription_status: Type.Optional(SubscriptionStatus),
  order_by: Type.Optional(Type.Enum(SUBSCRIBER_ORDER_FIELDS)),
  order: Type.Optional(Order),
  ...PageQuery,
});
export type SubscriberQuery = Static<typeof SubscriberQuery>;

/** POST /api/subscribers. `name` and `status` may be omitted (listmonk derives/defaults them). */
export const SubscriberCreate = Type.Object({
  email: Type.String({ maxLength: 1000 }),
  name: Type.Optional(Type.String()),
  status: Type.Optional(SubscriberStatus),
  lists: Type.Optional(Type.Array(Id, { maxItems: 1000 })),
  attribs: Type.Optional(Attribs),
  preconfirm_subscriptions: Type.Optional(Type.Boolean()),
});
export type SubscriberCreate = Static<typeof SubscriberCreate>;

export const SubscriberDeleteQuery = Type.Object({
  id: Type.Array(Id, { minItems: 1, maxItems: 10_000 }),
});
