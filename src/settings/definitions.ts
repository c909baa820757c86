/**
 * How a setting is declared. Settings are listmonk's flat dotted keys (reference §12) stored as JSON in
 * the `settings` table. Each module declares the keys it owns with a TypeBox schema and a default, and
 * the composition root hands all declarations to the SettingsService. Secrets are masked on read and an
 * empty (or still masked) secret on write keeps the stored one, but only while where it is sent stays
 * the same (issue 14 finding 1): re-pointing the SMTP host with the password sent back masked would
 * hand the stored password to the new host, so such a write is refused until the secret is sent again.
 */
import { randomUUID } from 'node:crypto';
import type { Static, TSchema } from 'typebox';
import { FieldError } from '../errors.js';

/** One setting: its key, schema, default, and how its secrets are handled. */
export interface SettingDef<S extends TSchema = TSchema> {
  key: string;
  schema: S;
  /** The value used until an operator changes it (may read process config to seed first start). */
  default: Static<S>;
  /** What it does, for docs and the OpenAPI document. */
  description: string;
  /**
   * Canonicalises a value before it is validated, both on write (`PUT /api/settings`) and when stored
   * rows are loaded, so a value written by an older release is cleaned up too (listmonk normalises on
   * write: reference §12). Gets the raw, unvalidated input: it must return anything it does not
   * recognise unchanged (for the schema to refuse), must not mutate its argument, and must be idempotent.
   */
  normalize?: (raw: unknown) => unknown;
  /**
   * For values holding secrets: returns a copy with every secret masked. Absent: nothing to mask.
   * A scalar secret setting can use {@link maskedScalar}.
   */
  mask?: (value: Static<S>) => Static<S>;
  /**
   * For values holding secrets: fills secrets left empty (or still masked) in `next` from `stored`, so
   * clients can send back what GET gave them without erasing passwords. `key` is this setting's key, for
   * error messages. Throws FieldError when a secret would be kept for a changed destination.
   */
  keepSecrets?: (next: Static<S>, stored: Static<S>, key: string) => Static<S>;
  /**
   * For a setting whose whole value is one secret string: the keys of the other settings that say where
   * the secret is sent (S3: endpoint URL, bucket, access key). When a write changes one of them, the
   * stored secret is not kept: the same write must carry the secret itself (not empty, not masked), else
   * it is refused with 400 naming this key (issue 14 finding 1).
   */
  secretDestination?: readonly string[];
  /**
   * Extra validation beyond the schema. Returns an error message (without the key) or null.
   */
  check?: (value: Static<S>) => string | null;
}

/** Declares a setting (keeps the schema's static type attached). */
export function defineSetting<S extends TSchema>(def: SettingDef<S>): SettingDef<S> {
  return def;
}

/** The mask character listmonk uses, repeated once per character of the secret. */
export const MASK_CHAR = '•';

/** Masks a secret string: one `•` per character ('' stays ''). */
export function maskSecret(secret: string): string {
  return MASK_CHAR.repeat([...secret].length);
}

/** True when `value` is empty or made only of mask characters (a client sending back what GET gave it). */
export function isUnchangedSecret(value: string): boolean {
  return value === '' || [...value].every((c) => c === MASK_CHAR);
}

/** mask/keepSecrets for a setting whose whole value is one secret string. */
export const maskedScalar = {
  mask: (v: string) => maskSecret(v),
  keepSecrets: (next: string, stored: string) => (isUnchangedSecret(next) ? stored : next),
};

/** True for a plain JSON object (not null, not an array). */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Gives every block of a list that has no `uuid` (absent, null or `""`) a new random one, as listmonk
 * does for SMTP and messenger blocks (reference §12: "new blocks get a UUID"). Anything that is not an
 * array of objects is returned unchanged for the schema to refuse; the input is not mutated.
 */
export function withBlockUuids(raw: unknown): unknown {
  if (!Array.isArray(raw)) return raw;
  return raw.map((b: unknown) => (isObject(b) && (b.uuid === undefined || b.uuid === null || b.uuid === '') ? { ...b, uuid: randomUUID() } : b));
}

/** The first `uuid` used by more than one block, or null. Blocks are matched by uuid, so it must be unique. */
export function duplicateUuid(blocks: ReadonlyArray<{ uuid: string }>): string | null {
  const seen = new Set<string>();
  for (const { uuid } of blocks) {
    if (seen.has(uuid)) return uuid;
    seen.add(uuid);
  }
  return null;
}

/** Names joined for a message: `a`, `a and b`, `a, b and c`. */
function joinNames(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/**
 * The message of the 400 for a secret sent back masked or empty while its destination changed: which
 * fields changed, and which must stay the same for a stored secret to be kept (issue 14 finding 1).
 */
export function secretMovedProblem(changed: readonly string[], destination: readonly string[]): string {
  return `must be sent again: ${joinNames(changed)} changed, and a stored secret is kept only while ${joinNames(destination)} stay the same`;
}

/** Options of {@link passwordBlocks}. */
export interface PasswordBlockOptions<T> {
  /** The fields that say where and how the password is sent; a stored password is kept only while none changed. */
  destination: ReadonlyArray<keyof T & string>;
  /** True when block `b` sends no password at all (SMTP `auth_protocol: none`): a moved stored one is then dropped, not refused. */
  unused?: (b: T) => boolean;
}

/**
 * normalize/mask/keepSecrets for a list of blocks (SMTP servers, messengers) with a `uuid` and a
 * `password`. A block sent without a uuid is new and gets one ({@link withBlockUuids}). An empty or
 * masked password keeps the password of the stored block with the same uuid, provided none of the
 * `destination` fields changed (issue 14 finding 1); if one did, the write is refused with 400 naming
 * `<key>.<index>.password` (or, for a block that sends no password, the stored one is dropped). A block
 * with no stored counterpart (a new one) has none to keep and gets an empty password — never another
 * block's password, which would send one server's credentials to a different host. The setting's
 * `check` should refuse duplicate uuids ({@link duplicateUuid}).
 */
export function passwordBlocks<T extends { uuid: string; password: string }>(opts: PasswordBlockOptions<T>) {
  return {
    normalize: withBlockUuids,
    mask: (blocks: T[]) => blocks.map((b) => ({ ...b, password: maskSecret(b.password) })),
    keepSecrets: (next: T[], stored: T[], key: string) =>
      next.map((b, i) => {
        if (!isUnchangedSecret(b.password)) return b;
        const old = stored.find((s) => s.uuid === b.uuid);
        if (old === undefined || old.password === '') return { ...b, password: '' };
        const changed = opts.destination.filter((f) => JSON.stringify(b[f]) !== JSON.stringify(old[f]));
        if (changed.length === 0) return { ...b, password: old.password };
        if (opts.unused?.(b)) return { ...b, password: '' };
        throw new FieldError(`${key}.${i}.password`, secretMovedProblem(changed, opts.destination));
      }),
  };
}
