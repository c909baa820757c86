/**
 * Receives POST /api/import/subscribers (spec 4.6): `multipart/form-data` with the `params` field (a
 * JSON string) and one `file` part, streamed to disk so memory stays flat whatever the size.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { FieldError, PayloadTooLargeError } from '../../errors.js';
import { asMultipartError } from '../../http/form.js';
import { formatBytes } from '../../util/bytes.js';

/** What the request carried. */
export interface ReceivedImport {
  /** The uploaded file's name as sent (shown as the import's `name`). */
  filename: string;
  /** The `params` field, or undefined when absent. */
  params: string | undefined;
}

/**
 * Reads the request, writing the file to `path`. Throws FieldError for a missing or extra file,
 * PayloadTooLargeError past `maxBytes`; the file is removed then.
 */
export async function receiveImport(request: FastifyRequest, path: string, maxBytes: number): Promise<ReceivedImport> {
  await mkdir(dirname(path), { recursive: true });
  let filename: string | undefined;
  let params: string | undefined;
  try {
    for await (const part of request.parts({ limits: { fileSize: maxBytes, files: 2, fields: 10, fieldSize: 64 * 1024, parts: 12 } })) {
      if (part.type === 'field') {
        if (part.fieldname === 'params') params = String(part.value);
        continue;
      }
      if (part.fieldname !== 'file' || filename !== undefined) {
        part.file.resume();
        throw new FieldError(part.fieldname, filename === undefined ? 'the import file must be sent as `file`' : 'send one file per import');
      }
      filename = part.filename || 'upload.csv';
      await pipeline(part.file, createWriteStream(path, { flags: 'wx' }));
      if (part.file.truncated) {
        throw new PayloadTooLargeError(`file: larger than the ${formatBytes(maxBytes)} import limit (setting import.max_file_size)`);
      }
    }
    if (filename === undefined) throw new FieldError('file', 'is required');
    return { filename, params };
  } catch (err) {
    await rm(path, { force: true });
    // File-system failures (they carry a syscall) are faults; anything else is a broken upload (400).
    throw (err as NodeJS.ErrnoException).syscall === undefined ? asMultipartError(err) : err;
  }
}
