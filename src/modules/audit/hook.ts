/**
 * The hooks that feed the audit log (issue 16 "Identity" item 5): every request a non-public route
 * answers to an unsafe method (POST, PUT, PATCH, DELETE) is recorded once its answer is sent, with who
 * (the request's principal), what (actions.ts), the resource id, the status and the client address.
 * Request bodies are never recorded (they carry passwords, tokens and subscriber data), nor the URL
 * with its query string: only the route's pattern.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { auditAction } from './actions.js';
import type { AuditService } from './service.js';

/** A value usable as a resource id: a non-empty string or a finite number, as text; else null. */
function idText(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && value !== '' && value.length <= 200) return value;
  return null;
}

/** Ids of resources created by admin form posts (their answer is a redirect, not `{data: {id}}`). */
const notedIds = new WeakMap<FastifyRequest, string>();

/**
 * Records `id` as the resource a create request made, for a route whose answer carries no
 * `data.id` (an admin form post answers a 303 redirect). Call it from the handler after the create.
 */
export function noteAuditResource(request: FastifyRequest, id: number | string): void {
  const text = idText(id);
  if (text !== null) notedIds.set(request, text);
}

/** The `:id` path parameter of a request, as text, or null. */
function paramId(request: FastifyRequest): string | null {
  const params = request.params as Record<string, unknown> | undefined;
  return params !== undefined && params !== null && typeof params === 'object' ? idText(params.id) : null;
}

/** True when `request` matched a route that is audited (not public, an unsafe method, not a read-only POST). */
function audited(request: FastifyRequest): boolean {
  const url = request.routeOptions.url;
  if (url === undefined || request.is404) return false;
  if ((request.routeOptions.config as { public?: boolean } | undefined)?.public === true) return false;
  return auditAction(request.method, url) !== null;
}

/**
 * Adds the audit hooks to `app`. A create (an audited route without `:id`) takes its resource id from
 * the answer's `data.id`, read before serialisation. Only requests with a principal (set by the
 * authentication hook, src/http/auth.ts) are recorded: one refused by authentication (401, or 429 from
 * the login throttle) identified nobody and changed nothing, and recording it would let anyone fill the
 * log without credentials. Everything authenticated is, failures included (a 400 or a 403 is who tried
 * what).
 */
export function installAuditHook(app: FastifyInstance, audit: AuditService): void {
  const createdIds = new WeakMap<FastifyRequest, string>();
  app.addHook('preSerialization', async (request, _reply, payload) => {
    if (!audited(request) || paramId(request) !== null) return payload;
    const data = (payload as { data?: unknown } | null)?.data;
    const id = data !== null && typeof data === 'object' ? idText((data as { id?: unknown }).id) : null;
    if (id !== null) createdIds.set(request, id);
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    if (!audited(request)) return;
    const status = reply.statusCode;
    const principal = request.principal;
    // No principal: authentication refused the request (401, 429 from the throttle, a redirect to
    // the login page); nobody was identified and nothing changed.
    if (principal === undefined) return;
    const url = request.routeOptions.url as string;
    const action = auditAction(request.method, url)!;
    audit.record({
      userId: principal.userId,
      username: principal.username,
      action: action.action,
      resourceType: action.resourceType,
      resourceId: paramId(request) ?? createdIds.get(request) ?? notedIds.get(request) ?? null,
      method: request.method,
      path: url,
      status,
      ip: request.ip ?? null,
    });
  });
}
