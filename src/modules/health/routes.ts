/**
 * Health endpoints: `/api/health` (authenticated, listmonk) and `/health` (public, for load balancers).
 * Both check the database answers and report 503 when it does not.
 */
import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import { Envelope, errorResponses } from '../../http/schemas.js';
import { ServiceUnavailableError } from '../../errors.js';
import type { Db } from '../../db/db.js';

/** Registers the health routes. */
export function healthRoutes(app: App, deps: { db: Db }): void {
  const check = async () => {
    try {
      await deps.db.ping();
    } catch {
      throw new ServiceUnavailableError('the database is unavailable');
    }
    return { data: true as const };
  };
  const schema = { tags: ['health'], response: { 200: Envelope(Type.Literal(true)), ...errorResponses } };
  app.get('/api/health', { schema: { ...schema, summary: 'Health check (authenticated)' } }, check);
  app.get('/health', { schema: { ...schema, summary: 'Health check for load balancers' }, config: { public: true } }, check);
}
