/**
 * Where media bytes live (spec 4.5, reference §11): a store keeps objects under keys (`cat.png`,
 * `thumbs/cat.png`). The filesystem store keeps them under `MAILROOM_DATA_DIR/uploads`; the S3 store
 * (s3-store.ts) in a bucket. Keys are sanitised names built by the service, never raw input.
 */
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';

/** An object read back from a store. */
export interface StoredObject {
  stream: Readable;
  /** Size in bytes, when the store knows it. */
  size: number | null;
}

/** A place to keep media objects. */
export interface MediaStore {
  /** The `provider` recorded on media rows stored here. */
  readonly provider: 'filesystem' | 's3';
  /** Stores a local file (moved or copied) or a buffer under `key`. */
  put(key: string, source: { path: string } | { data: Buffer }, contentType: string): Promise<void>;
  /** Opens `key` for reading; null when it does not exist. */
  open(key: string): Promise<StoredObject | null>;
  /** Removes `key`; a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Absolute public URL of `key` when the store serves it itself; null when Mailroom serves it at /uploads/. */
  publicUrl(key: string): string | null;
}

/** Media under a directory on the local filesystem, served by Mailroom at `/uploads/<key>`. */
export class FilesystemStore implements MediaStore {
  readonly provider = 'filesystem' as const;

  /** `root` is `MAILROOM_DATA_DIR/uploads`. */
  constructor(private readonly root: string) {}

  /** The directory uploads are received into before they are stored (same filesystem, so moves are atomic). */
  incomingDir(): string {
    return join(this.root, '.incoming');
  }

  private path(key: string): string {
    // Keys are sanitised names (optionally under `thumbs/`); refuse anything else outright.
    if (!/^(thumbs\/)?[A-Za-z0-9_][A-Za-z0-9._-]*$/u.test(key)) throw new Error(`invalid media key "${key}"`);
    return join(this.root, key);
  }

  async put(key: string, source: { path: string } | { data: Buffer }): Promise<void> {
    const target = this.path(key);
    await mkdir(dirname(target), { recursive: true });
    // The name was reserved by the media row, so a file already there is an orphan and is replaced.
    if ('data' in source) {
      await writeFile(target, source.data);
      return;
    }
    try {
      await rename(source.path, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      await copyFile(source.path, target);
      await rm(source.path, { force: true });
    }
  }

  async open(key: string): Promise<StoredObject | null> {
    const path = this.path(key);
    try {
      const s = await stat(path);
      if (!s.isFile()) return null;
      return { stream: createReadStream(path), size: s.size };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  publicUrl(): string | null {
    return null;
  }
}
