/**
 * How a setting is declared. Settings are listmonk's flat dotted keys (reference §12) stored as JSON in
 * the `settings` table. Each module declares the keys it owns with a TypeBox schema and a default, and
 * the composition root hands all declarations to the SettingsService. Secrets are masked on read and an
 * empty (or still masked) secret on write keeps the stored one.
 */
import type { Static, TSchema } from 'typebox';

/** One setting: its key, schema, default, and how its secrets are handled. */
export interface SettingDef<S extends TSchema = TSchema> {
  key: string;
  schema: S;
  /** The value used until an operator changes it (may read process config to seed first start). */
  default: Static<S>;
  /** What it does, for docs and the OpenAPI document. */
  description: string;
  /**
   * For values holding secrets: returns a copy with every secret masked. Absent: nothing to mask.
   * A scalar secret setting can use {@link maskedScalar}.
   */
  mask?: (value: Static<S>) => Static<S>;
  /**
   * For values holding secrets: fills secrets left empty (or still masked) in `next` from `stored`, so
   * clients can send back what GET gave them without erasing passwords.
   */
  keepSecrets?: (next: Static<S>, stored: Static<S>) => Static<S>;
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

/**
 * mask/keepSecrets for a list of blocks (SMTP servers, messengers) with a `password` field. Blocks are
 * matched to stored ones by `uuid` (a block with an unknown uuid is new), or by position without one.
 */
export function passwordBlocks<T extends { uuid?: string; password?: string }>() {
  return {
    mask: (blocks: T[]) => blocks.map((b) => ({ ...b, password: maskSecret(b.password ?? '') })),
    keepSecrets: (next: T[], stored: T[]) =>
      next.map((b, i) => {
        if (!isUnchangedSecret(b.password ?? '')) return b;
        // A block with a uuid is the stored block of that uuid, or a new one; without, the same position.
        const prev = b.uuid ? stored.find((s) => s.uuid === b.uuid) : stored[i];
        return { ...b, password: prev?.password ?? '' };
      }),
  };
}
