/**
 * Route table of the users and profile API (issue 16 "Identity" item 1; listmonk `cmd/handlers.go`:
 * the same paths, methods and permissions).
 */
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { UnauthorizedError } from '../../errors.js';
import type { App } from '../../http/types.js';
import { Envelope, errorResponses, IdParams, TrueEnvelope } from '../../http/schemas.js';
import type { AccountService, ProfileCaller } from './accounts.js';
import { ProfileUpdate, User, UserCreate, UserDeleteQuery, UserUpdate, UserWithToken } from './schemas.js';

const tags = ['users'];

/** Who calls a profile route: the principal set by the authentication hook. */
function caller(req: FastifyRequest): ProfileCaller {
  const p = req.principal;
  if (p === undefined) throw new UnauthorizedError('authentication required');
  return { userId: p.userId, sessionId: p.session?.id ?? null };
}

/** Registers the users and profile routes. */
export function userRoutes(app: App, accounts: AccountService): void {
  app.get('/api/users', {
    config: { permission: 'users:get' },
    schema: { tags, summary: 'All users and API users (not the MAILROOM_ADMIN_USER account)', response: { 200: Envelope(Type.Array(User)), ...errorResponses } },
  }, async () => ({ data: await accounts.list() }));

  app.get('/api/users/:id', {
    config: { permission: 'users:get' },
    schema: { tags, summary: 'Get one user', params: IdParams, response: { 200: Envelope(User), ...errorResponses } },
  }, async (req) => ({ data: await accounts.get(req.params.id) }));

  app.post('/api/users', {
    config: { permission: 'users:manage' },
    schema: { tags, summary: 'Create a user or an API user (an API user\'s token is answered once, in `password`)', body: UserCreate, response: { 200: Envelope(UserWithToken), ...errorResponses } },
  }, async (req) => ({ data: await accounts.create(req.body) }));

  app.put('/api/users/:id', {
    config: { permission: 'users:manage' },
    schema: { tags, summary: 'Update a user (`regenerate_token: true` gives an API user a new token, answered once)', params: IdParams, body: UserUpdate, response: { 200: Envelope(UserWithToken), ...errorResponses } },
  }, async (req) => ({ data: await accounts.update(req.params.id, req.body) }));

  app.delete('/api/users/:id', {
    config: { permission: 'users:manage' },
    schema: { tags, summary: 'Delete a user', params: IdParams, response: { 200: TrueEnvelope, ...errorResponses } },
  }, async (req) => {
    await accounts.delete(req.params.id);
    return { data: true as const };
  });

  app.delete('/api/users', {
    config: { permission: 'users:manage' },
    schema: { tags, summary: 'Delete several users (?id=1&id=2)', querystring: UserDeleteQuery, response: { 200: TrueEnvelope, ...errorResponses } },
  }, async (req) => {
    await accounts.deleteMany(req.query.id);
    return { data: true as const };
  });

  app.get('/api/profile', {
    config: { permission: 'authenticated' },
    schema: { tags, summary: 'The signed-in user', response: { 200: Envelope(User), ...errorResponses } },
  }, async (req) => ({ data: await accounts.profile(caller(req)) }));

  app.put('/api/profile', {
    config: { permission: 'authenticated' },
    schema: { tags, summary: 'Change the signed-in user\'s name, e-mail and password', body: ProfileUpdate, response: { 200: Envelope(User), ...errorResponses } },
  }, async (req) => ({ data: await accounts.updateProfile(caller(req), req.body) }));
}
