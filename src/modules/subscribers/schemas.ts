/**
 * Request and response schemas of the subscribers API (spec 2 "Subscriber", 4.1; reference §4; issue 3
 * §1 and §5).
 */
import { Type, type Static } from 'typebox';
import { Id, Order, PageQuery, Timestamp, Uuid } from '../../http/schemas.js';

export const SUBSCRIBER_STATUSES = ['enabled', 'disabled', 'blocklisted'] as const;
export const SUBSCRIPTION_STATUSES = ['unconfirmed', 'confirmed', 'unsubscribed'] as const;
export const SUBSCRIBER_ORDER_FIELDS = ['id', 'email', 'name', 'status', 'created_at', 'updated_at'] as const;
export const LIST_ACTIONS = ['add', 'remove', 'unsubscribe'] as const;

/** Largest `attribs` object accepted, serialised as JSON (64 KiB). */
export const MAX_ATTRIBS_BYTES = 64 * 1024;
/** Longest subscriber name, in characters. */
export const MAX_NAME_CHARS = 2000;
/** Most ids one bulk request may name (`ids`, `?id=`, `list_id`, `target_list_ids`). */
export const MAX_BULK_IDS = 10_000;

export const SubscriberStatus = Type.Enum(SUBSCRIBER_STATUSES);
export const SubscriptionStatus = Type.Enum(SUBSCRIPTION_STATUSES);
const Attribs = Type.Record(Type.String(), Type.Unknown());
const Email = Type.String({ maxLength: 1000 });
// Length is checked by the service (characters, not UTF-16 units) so the message matches every path.
const Name = Type.String();
const ListIds = Type.Array(Id, { maxItems: 1000 });
const BulkIds = Type.Array(Id, { maxItems: MAX_BULK_IDS });

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
  /** Present (true) when the reader may not read this list: its name is then `*Unknown` (issue 16, reference §3.2). */
  restricted: Type.Optional(Type.Boolean()),
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

/** A subscriber as read (GET, PUT, PATCH): `lists` holds membership objects. */
export const Subscriber = Type.Object({ ...subscriberFields, lists: Type.Array(Membership) });
export type Subscriber = Static<typeof Subscriber>;

/** A subscriber as the create answer shows it: `lists` holds list ids (spec 4.1). */
export const CreatedSubscriber = Type.Object({ ...subscriberFields, lists: Type.Array(Type.Integer()) });
export type CreatedSubscriber = Static<typeof CreatedSubscriber>;

/** Filters shared by GET /api/subscribers, GET /api/subscribers/lists/:id and the CSV export. */
const filterQuery = {
  query: Type.Optional(Type.String({ maxLength: 10_000 })),
  search: Type.Optional(Type.String({ maxLength: 1000 })),
  list_id: Type.Optional(ListIds),
  subscription_status: Type.Optional(SubscriptionStatus),
};

export const SubscriberQuery = Type.Object({
  ...filterQuery,
  order_by: Type.Optional(Type.Enum(SUBSCRIBER_ORDER_FIELDS)),
  order: Type.Optional(Order),
  ...PageQuery,
});
export type SubscriberQuery = Static<typeof SubscriberQuery>;

/** GET /api/subscribers/export: the same filters, plus `id` to export only those subscribers. */
export const SubscriberExportQuery = Type.Object({ ...filterQuery, id: Type.Optional(BulkIds) });
export type SubscriberExportQuery = Static<typeof SubscriberExportQuery>;

/** POST /api/subscribers. `name` and `status` may be omitted (listmonk derives/defaults them). */
export const SubscriberCreate = Type.Object({
  email: Email,
  name: Type.Optional(Name),
  status: Type.Optional(SubscriberStatus),
  lists: Type.Optional(ListIds),
  attribs: Type.Optional(Attribs),
  preconfirm_subscriptions: Type.Optional(Type.Boolean()),
});
export type SubscriberCreate = Static<typeof SubscriberCreate>;

/**
 * PUT /api/subscribers/:id: a full replacement (spec 4.1). `email` is required; omitted `lists` removes
 * every membership and omitted `attribs` clears them; an omitted or blank `name` or omitted `status`
 * keeps the stored value (reference §4.4).
 */
export const SubscriberUpdate = SubscriberCreate;
export type SubscriberUpdate = SubscriberCreate;

/** PATCH /api/subscribers/:id (listmonk v6.1): only the fields sent change; `attribs` are merged. */
export const SubscriberPatch = Type.Partial(SubscriberCreate);
export type SubscriberPatch = Static<typeof SubscriberPatch>;

export const SubscriberDeleteQuery = Type.Object({ id: Type.Array(Id, { minItems: 1, maxItems: MAX_BULK_IDS }) });

/** PUT /api/subscribers/blocklist: `{"ids": [..]}` (reference §4.6). */
export const BlocklistBody = Type.Object({ ids: Type.Array(Id, { minItems: 1, maxItems: MAX_BULK_IDS }) });

const membershipChange = {
  action: Type.Enum(LIST_ACTIONS),
  target_list_ids: Type.Array(Id, { minItems: 1, maxItems: 1000 }),
  status: Type.Optional(SubscriptionStatus),
};

/**
 * PUT /api/subscribers/lists (reference §4.7). `status` applies to `add`; without it new memberships are
 * `unconfirmed` and existing ones keep their status (listmonk; issue 15 item 3).
 */
export const ListsChangeBody = Type.Object({ ids: Type.Array(Id, { minItems: 1, maxItems: MAX_BULK_IDS }), ...membershipChange });
export type ListsChangeBody = Static<typeof ListsChangeBody>;

/** PUT /api/subscribers/lists/:id: the path names the one subscriber; body `ids` is optional and ignored. */
export const OneListsChangeBody = Type.Object({ ids: Type.Optional(BulkIds), ...membershipChange });
export type OneListsChangeBody = Static<typeof OneListsChangeBody>;

const queryTarget = {
  query: Type.Optional(Type.String({ maxLength: 10_000 })),
  search: Type.Optional(Type.String({ maxLength: 1000 })),
  list_ids: Type.Optional(ListIds),
  subscription_status: Type.Optional(SubscriptionStatus),
  all: Type.Optional(Type.Boolean()),
};

/** POST /api/subscribers/query/delete and PUT /api/subscribers/query/blocklist (reference §4.8). */
export const QueryTargetBody = Type.Object(queryTarget);
export type QueryTargetBody = Static<typeof QueryTargetBody>;

/** PUT /api/subscribers/query/lists: the target plus the membership change. */
export const QueryListsBody = Type.Object({ ...queryTarget, ...membershipChange });
export type QueryListsBody = Static<typeof QueryListsBody>;

/** The membership change of the three `lists` endpoints. */
export type MembershipChange = Pick<ListsChangeBody, 'action' | 'target_list_ids' | 'status'>;

/** GET /api/subscribers/:id/export: the subscriber's data (reference §4.10). */
export const SubscriberDataExport = Type.Object({
  profile: Type.Array(Type.Object(subscriberFields)),
  subscriptions: Type.Array(Type.Object({ subscription_status: Type.String(), name: Type.String(), type: Type.String(), created_at: Timestamp })),
  campaign_views: Type.Array(Type.Object({ campaign: Type.String(), views: Type.Integer() })),
  link_clicks: Type.Array(Type.Object({ url: Type.String(), clicks: Type.Integer() })),
});
export type SubscriberDataExport = Static<typeof SubscriberDataExport>;
