/**
 * Route table of the roles API (issue 16 "Identity" item 2; listmonk `cmd/handlers.go`: the same
 * paths, methods and permissions).
 */
import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import { Envelope, errorResponses, IdParams, TrueEnvelope } from '../../http/schemas.js';
import { ListRole, ListRoleBody, UserRole, UserRoleBody } from './schemas.js';
import type { RoleService } from './service.js';

const tags = ['roles'];

/** Registers the roles routes. */
export function roleRoutes(app: App, roles: RoleService): void {
  app.get('/api/roles/users', {
    config: { permission: 'roles:get' },
    schema: { tags, summary: 'All user roles', response: { 200: Envelope(Type.Array(UserRole)), ...errorResponses } },
  }, async () => ({ data: await roles.userRoles() }));

  app.post('/api/roles/users', {
    config: { permission: 'roles:manage' },
    schema: { tags, summary: 'Create a user role', body: UserRoleBody, response: { 200: Envelope(UserRole), ...errorResponses } },
  }, async (req) => ({ data: await roles.createUserRole(req.body) }));

  app.put('/api/roles/users/:id', {
    config: { permission: 'roles:manage' },
    schema: { tags, summary: 'Update a user role (not role 1, the Super Admin)', params: IdParams, body: UserRoleBody, response: { 200: Envelope(UserRole), ...errorResponses } },
  }, async (req) => ({ data: await roles.updateUserRole(req.params.id, req.body) }));

  app.get('/api/roles/lists', {
    config: { permission: 'roles:get' },
    schema: { tags, summary: 'All list roles with their lists', response: { 200: Envelope(Type.Array(ListRole)), ...errorResponses } },
  }, async () => ({ data: await roles.listRoles() }));

  app.post('/api/roles/lists', {
    config: { permission: 'roles:manage' },
    schema: { tags, summary: 'Create a list role', body: ListRoleBody, response: { 200: Envelope(ListRole), ...errorResponses } },
  }, async (req) => ({ data: await roles.createListRole(req.body) }));

  app.put('/api/roles/lists/:id', {
    config: { permission: 'roles:manage' },
    schema: { tags, summary: 'Update a list role (its lists are replaced)', params: IdParams, body: ListRoleBody, response: { 200: Envelope(ListRole), ...errorResponses } },
  }, async (req) => ({ data: await roles.updateListRole(req.params.id, req.body) }));

  app.delete('/api/roles/:id', {
    config: { permission: 'roles:manage' },
    schema: { tags, summary: 'Delete a user role (unless in use) or a list role (its users keep their accounts)', params: IdParams, response: { 200: TrueEnvelope, ...errorResponses } },
  }, async (req) => {
    await roles.delete(req.params.id);
    return { data: true as const };
  });
}
