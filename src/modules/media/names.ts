/**
 * Media file names and types (spec 4.5, reference §11). An uploaded name is refused when it carries a
 * path (`/`, `\`, `..`) or control characters; otherwise it is reduced to `[A-Za-z0-9._-]` (accents
 * dropped; spaces and other characters become `-`, as listmonk turns spaces into `-`), so a stored name
 * is always safe as a file name, an S3 key and a URL path segment. Uniqueness is the service's job.
 */
import { randomBytes } from 'node:crypto';
import { FieldError } from '../../errors.js';

/** Longest stem kept from an uploaded name (characters), before the extension. */
const MAX_STEM = 100;

/** A sanitised name split into stem and lower-case extension ('' when none). */
export interface SafeName {
  stem: string;
  ext: string;
}

/**
 * Validates and sanitises an uploaded file name. Throws FieldError('file') for a name with a path,
 * control characters, or nothing usable.
 */
export function sanitiseFilename(input: string): SafeName {
  const name = input.normalize('NFC').trim();
  if (name === '') throw new FieldError('file', 'the file has no name');
  if (/[/\\]/u.test(name) || name === '.' || name === '..') {
    throw new FieldError('file', 'the file name must not contain a path (/, \\ or ..)');
  }
  if (/\p{Cc}/u.test(name)) throw new FieldError('file', 'the file name must not contain control characters');
  const dot = name.lastIndexOf('.');
  const rawExt = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
  const ext = /^[a-z0-9]{1,10}$/u.test(rawExt) ? rawExt : '';
  // Accents are dropped rather than replaced (café → cafe): decompose, then remove the marks.
  const rawStem = (ext === '' ? name : name.slice(0, dot)).normalize('NFD').replace(/\p{M}/gu, '');
  const stem = rawStem
    .replace(/[^A-Za-z0-9._-]+/gu, '-')
    .replace(/\.{2,}/gu, '.')
    .replace(/-{2,}/gu, '-')
    .replace(/^[.-]+|[.-]+$/gu, '')
    .slice(0, MAX_STEM)
    .replace(/[.-]+$/u, '');
  return { stem: stem === '' ? 'file' : stem, ext };
}

/** Joins a name back together; with `suffix`, the stem gets `-<suffix>` (used to make names unique). */
export function joinName(name: SafeName, suffix = ''): string {
  const stem = suffix === '' ? name.stem : `${name.stem}-${suffix}`;
  return name.ext === '' ? stem : `${stem}.${name.ext}`;
}

/** Six random lower-case characters, listmonk's suffix for a name already taken. */
export function randomSuffix(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(6)].map((b) => alphabet[b % alphabet.length]).join('');
}

/** Throws FieldError('file') unless `ext` is in `allowed` (or `allowed` holds `*`). */
export function checkExtension(ext: string, allowed: readonly string[]): void {
  if (allowed.includes('*')) return;
  if (ext !== '' && allowed.includes(ext)) return;
  const what = ext === '' ? 'files without an extension are' : `.${ext} files are`;
  throw new FieldError('file', `${what} not allowed; allowed extensions: ${allowed.join(', ') || 'none'}`);
}

/** Content types by extension for files that are not decoded as images. */
const TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  txt: 'text/plain; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  json: 'application/json',
  xml: 'application/xml',
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  svg: 'image/svg+xml',
  ico: 'image/x-icon',
  ics: 'text/calendar; charset=utf-8',
  zip: 'application/zip',
  gz: 'application/gzip',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  epub: 'application/epub+zip',
};

/** The content type stored for a non-image file with extension `ext` (application/octet-stream if unknown). */
export function contentTypeOf(ext: string): string {
  return TYPES[ext] ?? 'application/octet-stream';
}

/**
 * True when a file of this type may be shown inline by browsers. Everything else is served as an
 * attachment, so uploaded HTML (and anything unknown) is downloaded rather than rendered.
 */
export function isInlineType(contentType: string): boolean {
  const type = contentType.split(';')[0]!.trim();
  return /^(image|audio|video)\//u.test(type) || type === 'application/pdf' || type === 'text/plain' || type === 'text/csv';
}
