/**
 * SQL access for media rows.
 */
import type { Db } from '../../db/db.js';
import { violates } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';

const Q = loadQueries(new URL('./queries.sql', import.meta.url), ['media-list', 'media-get', 'media-get-by-name', 'media-insert', 'media-delete']);

/** A media row. */
export interface MediaRow {
  id: number;
  uuid: string;
  provider: 'filesystem' | 's3';
  filename: string;
  content_type: string;
  has_thumb: boolean;
  size: number;
  meta: Record<string, unknown>;
  created_at: Date;
}

/** Fields of a new media row. */
export type NewMedia = Omit<MediaRow, 'id' | 'uuid' | 'created_at'>;

/** Media table access. */
export class MediaRepo {
  constructor(private readonly db: Db) {}

  /** Media of `provider`, newest first; `search` is a lower-cased, LIKE-escaped substring or ''. */
  list(provider: string, search: string, limit: number | null, offset: number): Promise<MediaRow[]> {
    return this.db.run<MediaRow>(Q['media-list'], { provider, search, limit, offset });
  }

  /** The media row with this id, or null. */
  async get(id: number): Promise<MediaRow | null> {
    const [row] = await this.db.run<MediaRow>(Q['media-get'], { id });
    return row ?? null;
  }

  /** The media row stored under `filename` by `provider`, or null. */
  async getByName(provider: string, filename: string): Promise<MediaRow | null> {
    const [row] = await this.db.run<MediaRow>(Q['media-get-by-name'], { provider, filename });
    return row ?? null;
  }

  /** Inserts a row; null when the file name is already taken for that provider. */
  async insert(m: NewMedia): Promise<MediaRow | null> {
    try {
      const [row] = await this.db.run<MediaRow>(Q['media-insert'], { ...m, meta: JSON.stringify(m.meta) });
      return row!;
    } catch (err) {
      if (violates(err, 'media_provider_filename_key')) return null;
      throw err;
    }
  }

  /** Deletes a row; returns it, or null when it did not exist. */
  async delete(id: number): Promise<MediaRow | null> {
    const [row] = await this.db.run<MediaRow>(Q['media-delete'], { id });
    return row ?? null;
  }
}
