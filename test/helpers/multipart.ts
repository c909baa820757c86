/**
 * Builds `multipart/form-data` bodies for tests (RFC 7578), byte for byte as a browser or curl sends
 * them: text fields and file parts with a file name and content type.
 */
import { randomBytes } from 'node:crypto';

/** One part: a text field, or a file. */
export type Part = { name: string; value: string } | { name: string; filename: string; content: Buffer | string; type?: string };

/** A ready body with its Content-Type header (which carries the boundary). */
export interface MultipartBody {
  payload: Buffer;
  contentType: string;
}

/** Encodes `parts` as one multipart/form-data body. */
export function multipart(parts: Part[]): MultipartBody {
  const boundary = `----mailroom-test-${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"`;
    if ('filename' in p) head += `; filename="${p.filename.replace(/"/gu, '%22')}"\r\nContent-Type: ${p.type ?? 'application/octet-stream'}`;
    chunks.push(Buffer.from(`${head}\r\n\r\n`), Buffer.from('filename' in p ? p.content : p.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
