/**
 * Reading form bodies that arrive as `multipart/form-data` (listmonk's admin UI sends some updates that
 * way, spec 4.2) into the same object shape as JSON, so one schema validates both.
 */
import type { FastifyRequest } from 'fastify';
import { AppError, BadRequestError } from '../errors.js';

/** Limits for form fields read in memory: at most 100 fields of 64 KiB each, no files. */
const FIELD_LIMITS = { fields: 100, fieldSize: 64 * 1024, files: 0, parts: 101 };

/**
 * Reads every field of a multipart body. Repeated fields, and fields named in `arrays`, become arrays of
 * strings; others are strings. Files are refused (400 naming the field).
 */
export async function readMultipartFields(request: FastifyRequest, arrays: readonly string[] = []): Promise<Record<string, unknown>> {
  try {
    return await readFields(request, arrays);
  } catch (err) {
    throw asMultipartError(err);
  }
}

/**
 * Turns a multipart parsing failure into a 400 (truncated or malformed body); errors that already carry
 * an HTTP status (size limits: 413, our own 400s) pass through.
 */
export function asMultipartError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  const status = (err as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return err;
  const detail = err instanceof Error ? err.message.slice(0, 100) : 'unreadable';
  return new BadRequestError(`body: malformed multipart/form-data (${detail})`);
}

async function readFields(request: FastifyRequest, arrays: readonly string[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for await (const part of request.parts({ limits: FIELD_LIMITS })) {
    if (part.type === 'file') {
      part.file.resume();
      throw new BadRequestError(`${part.fieldname}: files are not accepted here`);
    }
    const value = String(part.value);
    const name = part.fieldname.replace(/\[\]$/u, '');
    const prev = out[name];
    if (Array.isArray(prev)) prev.push(value);
    else if (prev !== undefined) out[name] = [prev, value];
    else out[name] = arrays.includes(name) ? [value] : value;
  }
  return out;
}

/**
 * A preValidation hook that replaces a multipart body by its fields, so the route's JSON schema
 * validates it. JSON and url-encoded bodies pass through untouched.
 */
export function multipartAsBody(arrays: readonly string[] = []) {
  return async (request: FastifyRequest): Promise<void> => {
    if (request.isMultipart()) request.body = await readMultipartFields(request, arrays);
  };
}
