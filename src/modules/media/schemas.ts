/**
 * Schemas of the media API (spec 2 "Media file", 4.5; reference §11).
 */
import { Type, type Static } from 'typebox';
import { PageQuery, Timestamp, Uuid } from '../../http/schemas.js';

/**
 * A media object: the spec's `uri`/`thumb_uri` (the file's address: `/uploads/<name>` when Mailroom
 * serves it, else the store's public URL) and listmonk's absolute `url`/`thumb_url`. Files without a
 * thumbnail have null thumbnails. `meta` holds `width`/`height` for images.
 */
export const Media = Type.Object({
  id: Type.Integer(),
  uuid: Uuid,
  filename: Type.String(),
  content_type: Type.String(),
  created_at: Timestamp,
  uri: Type.String(),
  thumb_uri: Type.Union([Type.String(), Type.Null()]),
  url: Type.String(),
  thumb_url: Type.Union([Type.String(), Type.Null()]),
  provider: Type.String(),
  size: Type.Integer(),
  meta: Type.Object({ width: Type.Optional(Type.Integer()), height: Type.Optional(Type.Integer()) }),
});
export type Media = Static<typeof Media>;

/** GET /api/media: optional name filter and paging (all media when `per_page` is absent). */
export const MediaQuery = Type.Object({
  query: Type.Optional(Type.String({ maxLength: 200 })),
  page: PageQuery.page,
  per_page: PageQuery.per_page,
});
export type MediaQuery = Static<typeof MediaQuery>;

/** Path of a served file: a sanitised media name. */
export const UploadParams = Type.Object({
  filename: Type.String({ pattern: '^[A-Za-z0-9_][A-Za-z0-9._-]{0,199}$' }),
});
