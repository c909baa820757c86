/**
 * Health and metrics endpoints. `/api/health` (authenticated, listmonk) and `/health` (public, for load
 * balancers and container health checks) answer `{"data": true}` when the database answers and no
 * messenger is failing, and 503 otherwise: `/api/health` with the reasons, `/health` with only
 * `unhealthy` (the reasons describe the installation: they stay behind authentication, issue 14
 * finding 6). `/metrics` (authenticated) serves Prometheus metrics.
 */
import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import { Envelope, errorResponses } from '../../http/schemas.js';
import { ServiceUnavailableError } from '../../errors.js';
import type { HealthMonitor, Metrics } from './monitor.js';

/** Registers the health and metrics routes, and the HTTP latency histogram. */
export function healthRoutes(app: App, deps: { health: HealthMonitor; metrics: Metrics }): void {
  const check = (withReasons: boolean) => async () => {
    const problems = await deps.health.problems();
    if (problems.length > 0) throw new ServiceUnavailableError(withReasons ? `unhealthy: ${problems.join('; ')}` : 'unhealthy');
    return { data: true as const };
  };
  const schema = { tags: ['health'], response: { 200: Envelope(Type.Literal(true)), ...errorResponses } };
  app.get('/api/health', { schema: { ...schema, summary: 'Health: database and messengers (503 with the reasons when unhealthy)' }, config: { permission: 'authenticated' } }, check(true));
  app.get('/health', { schema: { ...schema, summary: 'Health check for load balancers (no credentials; 503 "unhealthy" without the reasons)' }, config: { public: true } }, check(false));
  app.get('/metrics', {
    config: { permission: 'settings:get' },
    schema: { tags: ['health'], summary: 'Prometheus metrics (HTTP latency, messages sent/failed per messenger, campaign progress, process)', response: { 200: Type.String(), ...errorResponses } },
  }, async (_req, reply) => reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()));

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unknown';
    deps.metrics.httpDuration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
}
