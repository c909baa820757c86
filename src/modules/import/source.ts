/**
 * The uploaded import file (spec 4.6, reference §6): a CSV, or a ZIP holding one (the first `.csv`
 * entry is used, as listmonk does). ZIPs are recognised by their signature, not their name. Every
 * entry name is checked (absolute paths, `..` segments and backslashes are refused: nothing is ever
 * extracted, but such an archive is hostile). The CSV's declared inflated size must be within the
 * import limit, and while inflating, yauzl stops at the declared size (`validateEntrySizes`) and a
 * counter stops at the limit: a ZIP bomb fails after at most the limit's worth of bytes.
 */
import type { EventEmitter } from 'node:events';
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { Transform, type Readable } from 'node:stream';
import yauzl from 'yauzl';
import { FieldError, PayloadTooLargeError } from '../../errors.js';
import { formatBytes } from '../../util/bytes.js';

/** An identified upload. */
export interface ImportSource {
  kind: 'csv' | 'zip';
  /** The uploaded file on disk. */
  path: string;
  /** For a ZIP, the name of the CSV entry. */
  entry: string | null;
  /** Size of the CSV in bytes (for a ZIP, as declared by the archive). */
  bytes: number;
}

/** A failure while reading the file during an import (the import fails with this message). */
export class SourceError extends Error {}

const ZIP_SIGNATURES = ['504b0304', '504b0506'];
const UNSAFE_NAME = /^(invalid relative path|absolute path|invalid characters in fileName)/u;

/**
 * Marks an emitter's `error` events as handled from the moment it exists (issue 14 finding 2): an
 * `error` emitted while nothing listens ends the whole process, every campaign and request with it.
 * A stream that fails is destroyed with its error all the same, so whoever reads it (an async
 * iterator, `pipeline`) still gets the error, however late it starts or stops listening. Returns
 * `emitter`.
 */
export function owned<T extends EventEmitter>(emitter: T): T {
  emitter.on('error', ignoreError);
  return emitter;
}

function ignoreError(): void {
  // The error reaches the stream's reader through its destroyed state (see owned).
}

/** Opens a ZIP file with yauzl, its `error` events owned (a failing close of the file emits one). */
async function openZip(path: string): Promise<yauzl.ZipFile> {
  return owned(await yauzl.openPromise(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true }));
}

async function firstBytes(path: string, n: number): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

function isCsvEntry(name: string): boolean {
  return /\.csv$/iu.test(name) && !name.endsWith('/') && !/(^|\/)(__MACOSX\/|\._)/u.test(name);
}

/**
 * Decides what the upload is. Throws FieldError('file') for an empty file, a damaged ZIP, a ZIP with
 * an unsafe entry name or without a usable CSV; PayloadTooLargeError when the CSV in a ZIP declares
 * more than `maxBytes`.
 */
export async function identify(path: string, uploadName: string, maxBytes: number): Promise<ImportSource> {
  const size = (await stat(path)).size;
  if (size === 0) throw new FieldError('file', 'is empty');
  const signature = (await firstBytes(path, 4)).toString('hex');
  if (!ZIP_SIGNATURES.includes(signature)) {
    if (/\.zip$/iu.test(uploadName)) throw new FieldError('file', 'is named .zip but is not a ZIP file');
    return { kind: 'csv', path, entry: null, bytes: size };
  }
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(path);
  } catch (err) {
    throw new FieldError('file', `is not a readable ZIP file (${(err as Error).message})`);
  }
  let chosen: yauzl.Entry | null = null;
  try {
    for await (const entry of zip.eachEntry()) {
      if (chosen === null && isCsvEntry(entry.fileName)) chosen = entry;
    }
  } catch (err) {
    const message = (err as Error).message;
    if (UNSAFE_NAME.test(message)) throw new FieldError('file', `the ZIP file has an unsafe entry name (${message})`);
    throw new FieldError('file', `is not a readable ZIP file (${message})`);
  } finally {
    zip.close();
  }
  if (chosen === null) throw new FieldError('file', 'the ZIP file holds no .csv file');
  if (chosen.isEncrypted()) throw new FieldError('file', `the ZIP entry ${chosen.fileName} is encrypted`);
  if (chosen.compressionMethod !== 0 && chosen.compressionMethod !== 8) {
    throw new FieldError('file', `the ZIP entry ${chosen.fileName} uses an unsupported compression method (${chosen.compressionMethod})`);
  }
  if (chosen.uncompressedSize > maxBytes) {
    throw new PayloadTooLargeError(`file: ${chosen.fileName} inflates to ${formatBytes(chosen.uncompressedSize)}, over the ${formatBytes(maxBytes)} import limit (setting import.max_file_size)`);
  }
  return { kind: 'zip', path, entry: chosen.fileName, bytes: chosen.uncompressedSize };
}

/** Passes bytes through, failing once more than `max` went by. */
function byteLimit(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > max) done(new SourceError(`the CSV inflates beyond ${formatBytes(max)} (a ZIP bomb or a damaged ZIP file)`));
      else done(null, chunk);
    },
  });
}

/**
 * Opens `entry`'s inflated bytes into `into`: the entry stream's errors are handled from the callback
 * that creates it (before any byte is read), a size lie becoming a SourceError that fails `into`.
 */
function inflateInto(zip: yauzl.ZipFile, entry: yauzl.Entry, into: Transform): Promise<void> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, inflated) => {
      if (err !== null) return reject(err);
      inflated.on('error', (e: Error) => {
        into.destroy(/too many bytes|too few bytes/u.test(e.message) ? new SourceError(`the CSV inflates beyond its declared size (a ZIP bomb or a damaged ZIP file): ${e.message}`) : e);
      });
      into.on('close', () => inflated.destroy());
      inflated.pipe(into);
      resolve();
    });
  });
}

/**
 * Opens the CSV bytes of an identified source. Every stream made here (the file read, the ZIP file,
 * its entry's inflate stream, the byte limit) has its errors handled from the moment it exists (see
 * {@link owned}); a failure anywhere destroys the returned stream with it. For a ZIP, reading fails
 * with SourceError when the entry inflates beyond its declared size or `maxBytes`. The caller must
 * read the stream to its end or destroy it (that closes the file).
 */
export async function openCsv(src: ImportSource, maxBytes: number): Promise<Readable> {
  if (src.kind === 'csv') return owned(createReadStream(src.path, { highWaterMark: 256 * 1024 }));
  const zip = await openZip(src.path);
  try {
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName !== src.entry) continue;
      const limited = owned(byteLimit(Math.min(maxBytes, src.bytes)));
      limited.on('close', () => zip.close());
      await inflateInto(zip, entry, limited);
      return limited;
    }
  } catch (err) {
    zip.close();
    throw err;
  }
  zip.close();
  throw new SourceError(`the ZIP entry ${src.entry} is gone`);
}
