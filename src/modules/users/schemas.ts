/**
 * Request and response schemas of the users API (issue 16 "Identity" item 1; listmonk reference §3.3,
 * `internal/auth/models.go` User). Lengths, the user-name alphabet and e-mail rules are checked by the
 * service (src/modules/users/accounts.ts) after trimming, so their 400s name the field the way listmonk
 * checks it; the schemas fix the types.
 */
import { Type, type Static } from 'typebox';
import { Id, NullableTimestamp, Timestamp } from '../../http/schemas.js';

export const USER_TYPES = ['user', 'api'] as const;
export const USER_STATUSES = ['enabled', 'disabled'] as const;

/** A list a list role grants, with the per-list permissions (`list:get`, `list:manage`). */
export const ListGrant = Type.Object({ id: Type.Integer(), name: Type.String(), permissions: Type.Array(Type.String()) });

/** A user as the API answers it: listmonk's shape, never the password hash. */
export const User = Type.Object({
  id: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
  username: Type.String(),
  password_login: Type.Boolean(),
  email: Type.Union([Type.String(), Type.Null()]),
  name: Type.String(),
  type: Type.String(),
  status: Type.String(),
  avatar: Type.Union([Type.String(), Type.Null()]),
  twofa_type: Type.String(),
  loggedin_at: NullableTimestamp,
  user_role_id: Type.Integer(),
  list_role_id: Type.Union([Type.Integer(), Type.Null()]),
  user_role: Type.Object({ id: Type.Integer(), name: Type.String(), permissions: Type.Array(Type.String()) }),
  list_role: Type.Union([Type.Object({ id: Type.Integer(), name: Type.String(), lists: Type.Array(ListGrant) }), Type.Null()]),
});
export type User = Static<typeof User>;

/**
 * The answer to creating an API user (or regenerating its token): the user plus `password`, the plain
 * token, shown this once (listmonk returns it in the same field; only its SHA-256 is stored).
 */
export const UserWithToken = Type.Object({ ...User.properties, password: Type.Optional(Type.String()) });
export type UserWithToken = Static<typeof UserWithToken>;

/** POST /api/users (listmonk's body). `type` defaults to `user`, `status` to `enabled`. */
export const UserCreate = Type.Object({
  username: Type.String(),
  email: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  password: Type.Optional(Type.String()),
  password_login: Type.Optional(Type.Boolean()),
  type: Type.Optional(Type.Enum(USER_TYPES)),
  status: Type.Optional(Type.Enum(USER_STATUSES)),
  user_role_id: Id,
  list_role_id: Type.Optional(Type.Union([Id, Type.Null()])),
});
export type UserCreate = Static<typeof UserCreate>;

/**
 * PUT /api/users/:id: omitted fields keep their stored values (listmonk's client sends them all);
 * `list_role_id: null` removes the list role; an empty `password` keeps the stored one (listmonk).
 * `regenerate_token: true` gives an API user a new token, answered once in `password` (a Mailroom
 * addition: listmonk keeps an API user's token for life).
 */
export const UserUpdate = Type.Object({
  ...Type.Partial(UserCreate).properties,
  regenerate_token: Type.Optional(Type.Boolean()),
});
export type UserUpdate = Static<typeof UserUpdate>;

/** PUT /api/profile: the caller's own name, e-mail and password (listmonk's UpdateUserProfile). */
export const ProfileUpdate = Type.Object({
  name: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  password: Type.Optional(Type.String()),
});
export type ProfileUpdate = Static<typeof ProfileUpdate>;

/** DELETE /api/users?id=1&id=2. */
export const UserDeleteQuery = Type.Object({
  id: Type.Array(Id, { minItems: 1, maxItems: 1000 }),
});
export type UserDeleteQuery = Static<typeof UserDeleteQuery>;
