/**
 * Session API routes (issue 16 "Sign-in"): listmonk's `POST /api/logout`, which ends the caller's
 * session (the admin UI's sign-out; with a cookie it needs the CSRF token like every state change).
 */
import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import { errorResponses, TrueEnvelope } from '../../http/schemas.js';
import { SESSION_COOKIE, type SessionService } from './sessions.js';

const tags = ['auth'];

/** Registers the session routes. */
export function authRoutes(app: App, sessions: SessionService): void {
  app.post('/api/logout', {
    config: { permission: 'authenticated' },
    schema: { tags, summary: 'End the current session (sign out)', body: Type.Optional(Type.Object({ _csrf: Type.Optional(Type.String()) })), response: { 200: TrueEnvelope, ...errorResponses } },
  }, async (req, reply) => {
    const token = req.cookies[SESSION_COOKIE];
    if (token) await sessions.end(token);
    void reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return { data: true as const };
  });
}
