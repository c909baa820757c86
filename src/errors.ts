/**
 * Every error Mailroom answers with, in one place. Services throw these; the single Fastify error
 * handler (src/http/error-handler.ts) turns them into `{"message": "..."}` with their HTTP status.
 * Messages are written for the API user: they name the field or the thing that was wrong and never
 * carry internals (SQL, stack traces, file paths). Source: spec part 7 and issue "Foundation" §4.
 */

/** Base class: an error with an HTTP status and a user-facing message. */
export class AppError extends Error {
  /** HTTP status code sent to the client. */
  readonly statusCode: number;
  /** Stable machine-readable code, for logs and tests. */
  readonly code: string;

  constructor(statusCode: number, code: string, message: string) {
    super(message);
    this.statusCode = statusCode;
    this.code = code;
    this.name = new.target.name;
  }
}

/** 400: the request is malformed or a field has a bad value. The message names the field. */
export class BadRequestError extends AppError {
  constructor(message: string) {
    super(400, 'BAD_REQUEST', message);
  }
}

/** 400 for one named field, formatted `<field>: <problem>`. */
export class FieldError extends BadRequestError {
  readonly field: string;

  constructor(field: string, problem: string) {
    super(`${field}: ${problem}`);
    this.field = field;
  }
}

/** 401: credentials missing or wrong. The handler adds `WWW-Authenticate: Basic realm="mailroom"`. */
export class UnauthorizedError extends AppError {
  constructor(message = 'authentication required') {
    super(401, 'UNAUTHORIZED', message);
  }
}

/** 404: an unknown id or route. `what` is the resource name, e.g. `list 12 not found`. */
export class NotFoundError extends AppError {
  constructor(message: string) {
    super(404, 'NOT_FOUND', message);
  }
}

/** 409: a uniqueness conflict, e.g. a duplicate subscriber e-mail. */
export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, 'CONFLICT', message);
  }
}

/** 413: a body or upload over its size limit. */
export class PayloadTooLargeError extends AppError {
  constructor(message = 'request body is too large') {
    super(413, 'PAYLOAD_TOO_LARGE', message);
  }
}

/** 415: a content type the route does not accept. */
export class UnsupportedMediaTypeError extends AppError {
  constructor(message: string) {
    super(415, 'UNSUPPORTED_MEDIA_TYPE', message);
  }
}

/** 429: too many requests from one client (rate limits on login and public subscription). */
export class TooManyRequestsError extends AppError {
  constructor(message = 'too many requests, try again later') {
    super(429, 'TOO_MANY_REQUESTS', message);
  }
}

/** 502: a server Mailroom relays to (an SMTP server, a postback endpoint) refused or failed the request. */
export class BadGatewayError extends AppError {
  constructor(message: string) {
    super(502, 'BAD_GATEWAY', message);
  }
}

/** 503: a dependency (database, messenger) is unavailable; the request can be retried. */
export class ServiceUnavailableError extends AppError {
  constructor(message: string) {
    super(503, 'SERVICE_UNAVAILABLE', message);
  }
}

/** Raised at start-up for a bad environment variable; main.ts prints it and exits non-zero. */
export class ConfigError extends Error {
  readonly variable: string;

  constructor(variable: string, problem: string) {
    super(`${variable}: ${problem}`);
    this.variable = variable;
    this.name = 'ConfigError';
  }
}

/**
 * 403: authenticated, but the principal lacks the permission (listmonk's `permission denied: <perm>`,
 * reference §1 "Permission failures"), or a cookie request without its CSRF token.
 */
export class ForbiddenError extends AppError {
  constructor(message = 'permission denied') {
    super(403, 'FORBIDDEN', message);
  }
}
