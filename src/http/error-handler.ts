/**
 * The one place where errors become HTTP answers (conventions §4): AppErrors keep their status and
 * message; Fastify's own errors (schema validation, malformed JSON, unsupported content type, body too
 * large) become 400/413/415 with a message naming the field; database constraint violations that slip
 * through become 409/400; a full disk (ENOSPC, or PostgreSQL's disk_full) is a 507; anything else is a
 * 500 whose message hides internals, logged with the request id.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { isConnectionError, isDbError, SqlState } from '../db/db.js';

interface ValidationIssue {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

const CONTEXT_NAMES: Record<string, string> = { body: 'body', querystring: 'query parameter', params: 'path parameter', headers: 'header' };

/** Turns an Ajv error list into one sentence naming the field, e.g. `email: must be string`. */
export function describeValidation(issues: ValidationIssue[], context: string | undefined): string {
  // Prefer the most specific issue: a required/type problem on a named field over union noise.
  const ranked = [...issues].sort((a, b) => rank(a) - rank(b));
  const issue = ranked[0];
  if (issue === undefined) return 'invalid request';
  const path = issue.instancePath.replace(/^\//u, '').replace(/\//gu, '.');
  const missing = issue.params.missingProperty;
  const field = typeof missing === 'string' ? (path ? `${path}.${missing}` : missing) : path;
  const where = CONTEXT_NAMES[context ?? 'body'] ?? context ?? 'body';
  if (issue.keyword === 'required') return `${field}: is required`;
  if (issue.keyword === 'enum' && Array.isArray(issue.params.allowedValues)) {
    return `${field || where}: must be one of ${(issue.params.allowedValues as unknown[]).join(', ')}`;
  }
  if (issue.keyword === 'additionalProperties' && typeof issue.params.additionalProperty === 'string') {
    return `${path ? `${path}.` : ''}${issue.params.additionalProperty}: is not a known field`;
  }
  const message = unionMessage(issues, issue) ?? issue.message ?? 'is invalid';
  return field === '' ? `${where}: ${message}` : `${field}: ${message}`;
}

function rank(issue: ValidationIssue): number {
  if (issue.keyword === 'required') return 0;
  if (issue.keyword === 'anyOf' || issue.keyword === 'oneOf') return 3;
  if (issue.keyword === 'const') return 2;
  return 1;
}

/** For `x | 'all'` style unions Ajv reports one issue per branch; merge them into one readable message. */
function unionMessage(issues: ValidationIssue[], first: ValidationIssue): string | null {
  const sameField = issues.filter((i) => i.instancePath === first.instancePath);
  const consts = sameField.filter((i) => i.keyword === 'const').map((i) => JSON.stringify(i.params.allowedValue));
  const others = sameField.filter((i) => i.keyword !== 'const' && i.keyword !== 'anyOf' && i.keyword !== 'oneOf');
  if (consts.length === 0 || others.length === 0) return null;
  return `${others.map((o) => o.message).join(', ')}, or ${consts.join(' or ')}`;
}

/** Maps an error to `[status, message]` without leaking internals. */
export function toHttpError(err: unknown): [number, string] {
  if (err instanceof AppError) return [err.statusCode, err.message];
  const fe = err as FastifyError & { validation?: ValidationIssue[]; validationContext?: string };
  if (Array.isArray(fe.validation)) return [400, describeValidation(fe.validation, fe.validationContext)];
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return [400, `body: malformed JSON (${cleanParseMessage(fe.message)})`];
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return [413, 'body: request body is too large'];
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return [415, `unsupported Content-Type; send application/json`];
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return [400, 'body: Content-Length does not match the body'];
    case 'FST_ERR_CTP_EMPTY_TYPE':
      return [415, 'missing Content-Type; send application/json'];
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_FILES_LIMIT':
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return [413, 'file: upload is too large'];
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return [415, 'this endpoint expects multipart/form-data'];
    default:
      break;
  }
  if (err instanceof SyntaxError && fe.statusCode === 400) return [400, `body: malformed JSON (${cleanParseMessage(fe.message)})`];
  if (isDbError(err, SqlState.uniqueViolation)) return [409, 'a record with the same unique value already exists'];
  // Text the database cannot store (a NUL byte that slipped past validation, or a bad encoding).
  if (isDbError(err, '22021') || isDbError(err, '22P05')) return [400, 'a text value contains characters that cannot be stored'];
  if (isConnectionError(err)) return [503, 'the database is unavailable; try again shortly'];
  // A full disk is the operator's to fix, and the client's to retry: 507 (RFC 4918) says so, where a 500
  // would hide it. Uploads remove what they wrote, and the database rolled the statement back.
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return [507, "the server's disk is full; the request was not completed. Try again once space is freed"];
  if (isDbError(err, SqlState.diskFull)) return [507, "the database server's disk is full; the request was not completed. Try again once space is freed"];
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return [fe.statusCode, fe.message];
  }
  return [500, 'internal server error'];
}

function cleanParseMessage(message: string): string {
  return message.replace(/^Body is not valid JSON but content-type is set to 'application\/json'\s*/u, '').slice(0, 200) || 'invalid JSON';
}

/**
 * True when a 401 should carry `WWW-Authenticate: Basic` (RFC 7235 §4.1): for API clients, not for the
 * admin pages' own scripts. A browser shows a password dialog for a 401 with that header even to a
 * `fetch` or htmx call, so an expired session would pop up a Basic prompt over the admin; such calls
 * carry the session cookie or a non-navigation `Sec-Fetch-Mode` (Fetch Metadata), which curl and API
 * libraries do not send.
 */
function invitesBasic(request: FastifyRequest): boolean {
  if (request.headers.authorization !== undefined) return true;
  if (request.cookies?.session !== undefined) return false;
  const mode = request.headers['sec-fetch-mode'];
  return mode === undefined || mode === 'navigate';
}

/** Installs the error handler and the JSON 404 handler for unknown routes on `app`. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const [status, message] = toHttpError(err);
    if (status >= 500) request.log.error({ err }, 'request failed');
    else request.log.info({ status, message }, 'request refused');
    if (status === 401 && invitesBasic(request)) reply.header('WWW-Authenticate', 'Basic realm="mailroom", charset="UTF-8"');
    void reply.status(status).type('application/json; charset=utf-8').send({ message });
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send({ message: `unknown endpoint: ${request.method} ${request.url.split('?')[0]}` });
  });
}
