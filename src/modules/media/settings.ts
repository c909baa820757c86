/**
 * Settings of the media store (reference §11, §12): listmonk's `upload.*` keys. The filesystem store
 * lives under `MAILROOM_DATA_DIR/uploads` (process config, not a setting); `upload.s3.*` configure an
 * S3-compatible store instead.
 */
import { Type } from 'typebox';
import { defineSetting, maskedScalar, type SettingDef } from '../../settings/definitions.js';

/** Extensions (lower-case, without dot) accepted by default. `*` in the setting accepts any. */
export const DEFAULT_EXTENSIONS = ['jpg', 'jpeg', 'png', 'gif', 'webp', 'svg', 'pdf'];

/**
 * `upload.extensions` as listmonk stores them (reference §12: "extensions lower-cased without dot"):
 * each entry trimmed, lower-cased and stripped of one leading dot, duplicates dropped (first kept), so
 * `JPG` and `.jpg` both mean `jpg`. Entries that are not strings, and whatever is still not an
 * extension afterwards (`.`, `j pg`), are left for the schema to refuse.
 */
export function normalizeExtensions(raw: unknown): unknown {
  if (!Array.isArray(raw)) return raw;
  const out: unknown[] = [];
  for (const entry of raw as unknown[]) {
    const ext = typeof entry === 'string' ? entry.trim().toLowerCase().replace(/^\./u, '') : entry;
    if (typeof ext !== 'string' || !out.includes(ext)) out.push(ext);
  }
  return out;
}

/** The media settings declarations. */
export function mediaSettings() {
  return {
    provider: defineSetting({
      key: 'upload.provider',
      schema: Type.Enum(['filesystem', 's3']),
      default: 'filesystem' as 'filesystem' | 's3',
      description: 'Where uploaded media is stored: `filesystem` (MAILROOM_DATA_DIR/uploads) or `s3`.',
    }),
    extensions: defineSetting({
      key: 'upload.extensions',
      schema: Type.Array(Type.String({ pattern: '^(\\*|[a-z0-9]{1,10})$' }), { maxItems: 200 }),
      default: DEFAULT_EXTENSIONS,
      description: 'File extensions accepted for media uploads; `*` accepts any. Stored lower-case without the dot (`.JPG` → `jpg`).',
      normalize: normalizeExtensions,
    }),
    maxFileSize: defineSetting({
      key: 'upload.max_file_size',
      schema: Type.Integer({ minimum: 1024, maximum: 1024 ** 3 }),
      default: 10 * 1024 * 1024,
      description: 'Largest media upload, in bytes; larger uploads answer 413.',
    }),
    s3Url: defineSetting({
      key: 'upload.s3.url',
      schema: Type.String({ maxLength: 2000, pattern: '^(https?://[^\\s]+)?$' }),
      default: '',
      description: 'Endpoint of an S3-compatible service (MinIO, R2, …); empty for AWS S3.',
    }),
    s3PublicUrl: defineSetting({
      key: 'upload.s3.public_url',
      schema: Type.String({ maxLength: 2000, pattern: '^(https?://[^\\s]+)?$' }),
      default: '',
      description: 'Public base URL of the bucket (e.g. a CDN); empty: derived from the endpoint and bucket.',
    }),
    s3AccessKey: defineSetting({
      key: 'upload.s3.aws_access_key_id',
      schema: Type.String({ maxLength: 500 }),
      default: '',
      description: 'S3 access key id.',
    }),
    s3SecretKey: defineSetting({
      key: 'upload.s3.aws_secret_access_key',
      schema: Type.String({ maxLength: 500 }),
      default: '',
      description:
        'S3 secret access key (masked on read). Sent back masked or empty it keeps the stored key, unless the same change alters upload.s3.url, upload.s3.bucket or upload.s3.aws_access_key_id: then it must be sent again.',
      ...maskedScalar,
      secretDestination: ['upload.s3.url', 'upload.s3.bucket', 'upload.s3.aws_access_key_id'],
    }),
    s3Region: defineSetting({
      key: 'upload.s3.aws_default_region',
      schema: Type.String({ maxLength: 100 }),
      default: 'us-east-1',
      description: 'S3 region.',
    }),
    s3Bucket: defineSetting({
      key: 'upload.s3.bucket',
      schema: Type.String({ maxLength: 255 }),
      default: '',
      description: 'S3 bucket name.',
    }),
    s3BucketPath: defineSetting({
      key: 'upload.s3.bucket_path',
      schema: Type.String({ maxLength: 500, pattern: '^[A-Za-z0-9._/-]*$' }),
      default: '',
      description: 'Folder (key prefix) inside the bucket, e.g. `media/`.',
    }),
    s3BucketType: defineSetting({
      key: 'upload.s3.bucket_type',
      schema: Type.Enum(['public', 'private']),
      default: 'public' as 'public' | 'private',
      description: '`public`: media URLs point at the bucket; `private`: Mailroom serves media at /uploads/ from the bucket.',
    }),
  } satisfies Record<string, SettingDef>;
}

/** The typed declarations returned by {@link mediaSettings}. */
export type MediaSettings = ReturnType<typeof mediaSettings>;
