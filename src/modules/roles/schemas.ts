/**
 * Request and response schemas of the roles API (issue 16 "Identity" item 2; listmonk reference §3.4,
 * `internal/auth/models.go` Role and ListRole). Permission names are checked by the service against
 * the catalogue (src/http/access.ts), so a 400 names the unknown permission.
 */
import { Type, type Static } from 'typebox';
import { Id, Timestamp } from '../../http/schemas.js';

/** A user role as the API answers it. */
export const UserRole = Type.Object({
  id: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
  type: Type.String(),
  name: Type.String(),
  permissions: Type.Array(Type.String()),
});
export type UserRole = Static<typeof UserRole>;

/** A list role as the API answers it: the lists it grants, each with `list:get` / `list:manage`. */
export const ListRole = Type.Object({
  id: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
  name: Type.String(),
  lists: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), permissions: Type.Array(Type.String()) })),
});
export type ListRole = Static<typeof ListRole>;

/** POST /api/roles/users and PUT /api/roles/users/:id (listmonk's body; PUT replaces both fields). */
export const UserRoleBody = Type.Object({
  name: Type.String(),
  permissions: Type.Optional(Type.Array(Type.String(), { maxItems: 200 })),
});
export type UserRoleBody = Static<typeof UserRoleBody>;

/** One list of a list role's body. */
export const ListGrantBody = Type.Object({
  id: Id,
  permissions: Type.Array(Type.String(), { maxItems: 10 }),
});
export type ListGrantBody = Static<typeof ListGrantBody>;

/** POST /api/roles/lists and PUT /api/roles/lists/:id (the lists replace the role's lists). */
export const ListRoleBody = Type.Object({
  name: Type.String(),
  lists: Type.Optional(Type.Array(ListGrantBody, { maxItems: 10_000 })),
});
export type ListRoleBody = Static<typeof ListRoleBody>;
