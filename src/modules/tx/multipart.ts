/**
 * The multipart form of POST /api/tx (spec 4.4, reference §9): the message as JSON in the field
 * `data` and one `file` part per attachment. A preValidation hook turns the form into the JSON body
 * (so the route schema validates both forms alike) and keeps the attachments for the handler.
 */
import type { FastifyRequest } from 'fastify';
import { AppError, FieldError, PayloadTooLargeError } from '../../errors.js';
import { parseJsonDocument } from '../../http/json-body.js';
import { asMultipartError } from '../../http/form.js';
import { formatBytes } from '../../util/bytes.js';

/** One attachment as received. */
export interface Attachment {
  filename: string;
  content: Buffer;
  contentType: string;
}

/** Most attachments in one request. */
export const MAX_ATTACHMENTS = 20;
/** Largest `data` field (the JSON message), in bytes. */
const MAX_DATA_BYTES = 1024 * 1024;

const received = new WeakMap<FastifyRequest, Attachment[]>();

/** The attachments read from a multipart request ([] for JSON requests). */
export function attachmentsOf(request: FastifyRequest): Attachment[] {
  return received.get(request) ?? [];
}

/** A file name safe for a MIME header: no control characters, at most 255 characters. */
function attachmentName(name: string): string {
  const clean = name.replace(/\p{Cc}/gu, '').trim().slice(0, 255);
  return clean === '' ? 'attachment' : clean;
}

/** The part's content type when it is a plain `type/subtype`, else application/octet-stream. */
function attachmentType(mimetype: string): string {
  return /^[A-Za-z0-9][\w.+-]*\/[A-Za-z0-9][\w.+-]*$/u.test(mimetype) ? mimetype.toLowerCase() : 'application/octet-stream';
}

/**
 * A preValidation hook: for multipart requests, reads `data` (JSON) into `request.body` and every
 * `file` part into memory, at most `maxBytes()` in total (413 past it) and {@link MAX_ATTACHMENTS} files.
 */
export function txMultipart(maxBytes: () => number) {
  return async (request: FastifyRequest): Promise<void> => {
    if (!request.isMultipart()) return;
    try {
      await readTxForm(request, maxBytes());
    } catch (err) {
      throw asMultipartError(err); // a truncated or malformed form is a 400; our own errors pass through
    }
  };
}

/** Reads the `data` field into the body and the `file` parts into the attachments of `request`. */
async function readTxForm(request: FastifyRequest, max: number): Promise<void> {
  const files: Attachment[] = [];
  let total = 0;
  let data: string | undefined;
  const tooLarge = () => new PayloadTooLargeError(`file: attachments are larger than the ${formatBytes(max)} limit (setting tx.max_attachments_size)`);
  const parts = request.parts({ limits: { files: MAX_ATTACHMENTS, fileSize: max, fields: 20, fieldSize: MAX_DATA_BYTES, parts: MAX_ATTACHMENTS + 20 } });
  for await (const part of parts) {
    if (part.type === 'field') {
      if (part.valueTruncated) throw new PayloadTooLargeError(`${part.fieldname}: larger than ${formatBytes(MAX_DATA_BYTES)}`);
      if (part.fieldname === 'data') data = String(part.value);
      continue;
    }
    if (part.fieldname !== 'file') {
      part.file.resume();
      throw new FieldError(part.fieldname, 'attachments must be sent as `file` parts');
    }
    const chunks: Buffer[] = [];
    for await (const chunk of part.file as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > max) {
        part.file.resume();
        throw tooLarge();
      }
      chunks.push(chunk);
    }
    if (part.file.truncated) throw tooLarge();
    files.push({ filename: attachmentName(part.filename), content: Buffer.concat(chunks), contentType: attachmentType(part.mimetype) });
  }
  if (data === undefined) throw new FieldError('data', 'is required: the message as JSON');
  try {
    request.body = parseJsonDocument(data, 'data');
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new FieldError('data', `malformed JSON (${(err as Error).message.slice(0, 200)})`);
  }
  received.set(request, files);
}
