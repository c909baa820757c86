/**
 * Schemas of the import API (spec 2 "Import status", 4.6; reference §6).
 */
import { Type, type Static } from 'typebox';
import { Id } from '../../http/schemas.js';

export const IMPORT_STATUSES = ['none', 'importing', 'stopping', 'finished', 'failed'] as const;
export type ImportStatusValue = (typeof IMPORT_STATUSES)[number];

/**
 * The `params` form field of POST /api/import/subscribers (a JSON string). `overwrite` sets both of
 * listmonk's finer `overwrite_userinfo` and `overwrite_subscription_status` unless they are given.
 */
export const ImportParams = Type.Object({
  mode: Type.Enum(['subscribe', 'blocklist']),
  delim: Type.Optional(Type.String({ minLength: 1, maxLength: 1 })),
  lists: Type.Optional(Type.Array(Id, { maxItems: 1000 })),
  overwrite: Type.Optional(Type.Boolean()),
  overwrite_userinfo: Type.Optional(Type.Boolean()),
  overwrite_subscription_status: Type.Optional(Type.Boolean()),
  subscription_status: Type.Optional(Type.Enum(['unconfirmed', 'confirmed', 'unsubscribed'])),
});
export type ImportParams = Static<typeof ImportParams>;

/**
 * The import status object: listmonk's `name`, `total`, `imported`, `status`, plus `skipped` (rows
 * refused as invalid). `total` is the file's line count while importing and the exact number of data
 * rows once finished (then `total = imported + skipped`).
 */
export const ImportStatus = Type.Object({
  name: Type.String(),
  total: Type.Integer(),
  imported: Type.Integer(),
  skipped: Type.Integer(),
  status: Type.Enum(IMPORT_STATUSES),
});
export type ImportStatus = Static<typeof ImportStatus>;
