/**
 * Media use cases (spec 4.5, reference §11): upload with extension and size checks, image decoding and
 * thumbnails, unique sanitised names, listing newest first, deletion of the file and its thumbnail,
 * and reading files back for /uploads/. The row is the source of truth: only files with a row are
 * served, and a name is reserved in the database (unique constraint) before any file is written.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rm, stat } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import { FieldError, NotFoundError, PayloadTooLargeError, ServiceUnavailableError } from '../../errors.js';
import { asMultipartError } from '../../http/form.js';
import { pageRequest } from '../../http/pagination.js';
import { formatBytes } from '../../util/bytes.js';
import { likeTerm } from '../lists/service.js';
import type { SettingsService } from '../settings/service.js';
import { IMAGE_EXTENSIONS, inspectImage } from './image.js';
import { checkExtension, contentTypeOf, joinName, randomSuffix, sanitiseFilename, type SafeName } from './names.js';
import type { MediaRepo, MediaRow } from './repo.js';
import type { Media, MediaQuery } from './schemas.js';
import type { MediaSettings } from './settings.js';
import type { FilesystemStore, MediaStore, StoredObject } from './store.js';
import { S3Store } from './s3-store.js';

/** An uploaded file as the multipart reader hands it over. */
export interface IncomingFile {
  filename: string;
  file: Readable & { truncated?: boolean };
}

/** A file to send back for /uploads/. */
export interface ServedFile extends StoredObject {
  contentType: string;
  filename: string;
}

/** What a stored file turned out to be. */
interface Inspected {
  contentType: string;
  meta: { width?: number; height?: number };
  thumbnail: Buffer | null;
}

/** Media use cases. */
export class MediaService {
  private s3: { key: string; store: S3Store } | null = null;

  constructor(
    private readonly repo: MediaRepo,
    private readonly fs: FilesystemStore,
    private readonly settings: SettingsService,
    private readonly defs: MediaSettings,
    private readonly rootUrl: () => string,
    private readonly log: Logger,
  ) {}

  /** The largest upload accepted now, in bytes (`upload.max_file_size`). */
  maxFileSize(): number {
    return this.settings.get(this.defs.maxFileSize);
  }

  /** Media of the current provider, newest first (GET /api/media). */
  async list(q: MediaQuery): Promise<Media[]> {
    const page = q.per_page === undefined ? { limit: null, offset: 0 } : pageRequest(q);
    const rows = await this.repo.list(this.settings.get(this.defs.provider), likeTerm(q.query ?? ''), page.limit, page.offset);
    return rows.map((r) => this.toMedia(r));
  }

  /** One media object; NotFoundError when unknown. */
  async get(id: number): Promise<Media> {
    const row = await this.repo.get(id);
    if (row === null) throw new NotFoundError(`media ${id} not found`);
    return this.toMedia(row);
  }

  /**
   * Stores an upload. Throws FieldError('file') for a bad name, extension or image, and
   * PayloadTooLargeError past `upload.max_file_size`; nothing is kept then.
   */
  async upload(incoming: IncomingFile): Promise<Media> {
    let name: SafeName;
    try {
      name = sanitiseFilename(incoming.filename);
      checkExtension(name.ext, this.settings.get(this.defs.extensions));
    } catch (err) {
      incoming.file.resume(); // read and drop the rest of the upload so the answer can be sent
      throw err;
    }
    const temp = await this.receive(incoming);
    try {
      const inspected = await this.inspect(temp, name.ext);
      const size = (await stat(temp)).size;
      const store = this.currentStore();
      const row = await this.reserve(store.provider, name, inspected, size);
      try {
        await store.put(row.filename, { path: temp }, row.content_type);
        if (inspected.thumbnail) await store.put(`thumbs/${row.filename}`, { data: inspected.thumbnail }, row.content_type);
      } catch (err) {
        await this.repo.delete(row.id);
        await Promise.allSettled([store.delete(row.filename), store.delete(`thumbs/${row.filename}`)]);
        this.log.error({ err, provider: store.provider }, 'could not store an upload');
        throw new ServiceUnavailableError(`the ${store.provider} media store could not save the file; try again later`);
      }
      return this.toMedia(row);
    } finally {
      await rm(temp, { force: true });
    }
  }

  /** Deletes a media row, its file and thumbnail; NotFoundError when unknown. */
  async delete(id: number): Promise<void> {
    const row = await this.repo.delete(id);
    if (row === null) throw new NotFoundError(`media ${id} not found`);
    const store = this.storeFor(row.provider);
    // The row is gone, so the files are no longer served; a file left behind is only logged.
    const results = await Promise.allSettled([store.delete(row.filename), row.has_thumb ? store.delete(`thumbs/${row.filename}`) : Promise.resolve()]);
    for (const r of results) if (r.status === 'rejected') this.log.warn({ err: r.reason, file: row.filename }, 'could not delete a media file');
  }

  /**
   * Opens a stored file (or its thumbnail) for /uploads/; NotFoundError when there is no such media.
   * Media of the current provider wins over a file of the same name in the other one.
   */
  async open(filename: string, thumb: boolean): Promise<ServedFile> {
    const current = this.settings.get(this.defs.provider);
    const other = current === 'filesystem' ? 's3' : 'filesystem';
    const row = (await this.repo.getByName(current, filename)) ?? (await this.repo.getByName(other, filename));
    if (row === null || (thumb && !row.has_thumb)) throw new NotFoundError(`file ${filename} not found`);
    const obj = await this.storeFor(row.provider)
      .open(thumb ? `thumbs/${row.filename}` : row.filename)
      .catch((err: unknown) => {
        this.log.error({ err, provider: row.provider, file: row.filename }, 'could not read a media file');
        throw new ServiceUnavailableError(`the ${row.provider} media store is unavailable; try again later`);
      });
    if (obj === null) throw new NotFoundError(`file ${filename} not found`);
    return { ...obj, contentType: row.content_type, filename: row.filename };
  }

  /** Closes the S3 client, if one was made. */
  close(): void {
    this.s3?.store.destroy();
  }

  /** Streams the upload into a temporary file; PayloadTooLargeError past the limit. Returns its path. */
  private async receive(incoming: IncomingFile): Promise<string> {
    const dir = this.fs.incomingDir();
    await mkdir(dir, { recursive: true });
    const temp = join(dir, randomUUID());
    try {
      await pipeline(incoming.file, createWriteStream(temp, { flags: 'wx' }));
      if (incoming.file.truncated) {
        throw new PayloadTooLargeError(`file: larger than the ${formatBytes(this.maxFileSize())} upload limit (setting upload.max_file_size)`);
      }
      if ((await stat(temp)).size === 0) throw new FieldError('file', 'is empty');
      return temp;
    } catch (err) {
      await rm(temp, { force: true });
      // File-system failures (they carry a syscall) are faults; anything else is a broken upload (400).
      throw (err as NodeJS.ErrnoException).syscall === undefined ? asMultipartError(err) : err;
    }
  }

  /** Decides the content type, image size and thumbnail from the file itself. */
  private async inspect(path: string, ext: string): Promise<Inspected> {
    if (IMAGE_EXTENSIONS.has(ext)) {
      const img = await inspectImage(path);
      return { contentType: img.contentType, meta: { width: img.width, height: img.height }, thumbnail: img.thumbnail };
    }
    return { contentType: contentTypeOf(ext), meta: {}, thumbnail: null };
  }

  /** Inserts the row under the sanitised name, or the name with a random suffix when it is taken. */
  private async reserve(provider: 'filesystem' | 's3', name: SafeName, f: Inspected, size: number): Promise<MediaRow> {
    for (let attempt = 0; attempt < 8; attempt += 1) {
      const filename = joinName(name, attempt === 0 ? '' : randomSuffix());
      const row = await this.repo.insert({ provider, filename, content_type: f.contentType, has_thumb: f.thumbnail !== null, size, meta: f.meta });
      if (row !== null) return row;
    }
    throw new ServiceUnavailableError('could not find a free file name; try again');
  }

  private currentStore(): MediaStore {
    return this.storeFor(this.settings.get(this.defs.provider));
  }

  /** The store of a provider; the S3 store is rebuilt when its settings change. */
  private storeFor(provider: 'filesystem' | 's3'): MediaStore {
    if (provider === 'filesystem') return this.fs;
    const d = this.defs;
    const opts = {
      endpoint: this.settings.get(d.s3Url),
      publicUrl: this.settings.get(d.s3PublicUrl),
      accessKeyId: this.settings.get(d.s3AccessKey),
      secretAccessKey: this.settings.get(d.s3SecretKey),
      region: this.settings.get(d.s3Region),
      bucket: this.settings.get(d.s3Bucket),
      bucketPath: this.settings.get(d.s3BucketPath),
      bucketType: this.settings.get(d.s3BucketType),
    };
    const key = JSON.stringify(opts);
    if (this.s3?.key !== key) {
      this.s3?.store.destroy();
      this.s3 = { key, store: new S3Store(opts, this.log) };
    }
    return this.s3.store;
  }

  /** The API shape of a row (spec 2 "Media file" plus listmonk's url fields). */
  toMedia(row: MediaRow): Media {
    const store = this.storeFor(row.provider);
    const address = (key: string) => {
      const pub = store.publicUrl(key);
      return pub === null ? { uri: `/uploads/${key}`, url: `${this.rootUrl()}/uploads/${key}` } : { uri: pub, url: pub };
    };
    const file = address(row.filename);
    // SVG is its own thumbnail (listmonk); other files without a thumbnail have none.
    const thumb = row.has_thumb ? address(`thumbs/${row.filename}`) : row.content_type === 'image/svg+xml' ? file : null;
    return {
      id: row.id,
      uuid: row.uuid,
      filename: row.filename,
      content_type: row.content_type,
      // A Date: the response serializer writes it as ISO 8601 (the schema type says string).
      created_at: row.created_at as unknown as string,
      uri: file.uri,
      thumb_uri: thumb?.uri ?? null,
      url: file.url,
      thumb_url: thumb?.url ?? null,
      provider: row.provider,
      size: row.size,
      meta: row.meta as Media['meta'],
    };
  }
}
