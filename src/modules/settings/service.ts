/**
 * Operator-editable settings (conventions §10, issue "Delivery engine" §1): cached in memory, validated
 * per key on write (400 naming the key), secrets masked on read, and applied without a restart —
 * listeners hear about changes made here at once and about other instances' changes within the poll
 * interval.
 */
import type { Static, TSchema } from 'typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { Logger } from 'pino';
import type { Db } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';
import { FieldError } from '../../errors.js';
import { acceptsNull, dropNullOptionals, explainNull } from '../../http/nulls.js';
import { isUnchangedSecret, secretMovedProblem, type SettingDef } from '../../settings/definitions.js';

const Q = loadQueries(new URL('./queries.sql', import.meta.url), ['settings-all', 'settings-version', 'setting-seed', 'setting-write']);

/** Called with the keys whose values changed. */
export type SettingsListener = (changed: ReadonlySet<string>) => void;

interface Entry {
  def: SettingDef;
  validate: ValidateFunction;
}

/** The first schema error as a FieldError naming the path inside the value (`smtp.0.port`). */
function invalid(key: string, errors: ErrorObject[] | null | undefined): FieldError {
  const e = errors?.[0];
  if (!e) return new FieldError(key, 'is invalid');
  const path = e.instancePath.replace(/^\//u, '').replace(/\//gu, '.');
  const missing = typeof e.params.missingProperty === 'string' ? e.params.missingProperty : '';
  const where = [key, path, missing].filter((p) => p !== '').join('.');
  if (e.keyword === 'required') return new FieldError(where, 'is required');
  if (e.keyword === 'enum') return new FieldError(where, `must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`);
  return new FieldError(where, e.message ?? 'is invalid');
}

function describe(key: string, errors: ErrorObject[] | null | undefined): string {
  return invalid(key, errors).message;
}

/** The settings of this Mailroom database. */
export class SettingsService {
  private readonly entries = new Map<string, Entry>();
  private readonly values = new Map<string, unknown>();
  private readonly listeners: SettingsListener[] = [];
  private version = '';
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Db,
    defs: SettingDef[],
    private readonly log?: Logger,
  ) {
    const ajv = new Ajv({ allErrors: false, strict: false, coerceTypes: false, useDefaults: false });
    for (const def of defs) {
      if (this.entries.has(def.key)) throw new Error(`setting "${def.key}" is declared twice`);
      this.entries.set(def.key, { def, validate: ajv.compile(def.schema) });
    }
  }

  /** Seeds defaults for keys without a value and loads everything. Call once at start-up. */
  async init(): Promise<void> {
    for (const { def } of this.entries.values()) {
      await this.db.run(Q['setting-seed'], { key: def.key, value: JSON.stringify(def.default) });
    }
    await this.reload();
  }

  /** The current value of a setting. */
  get<S extends TSchema>(def: SettingDef<S>): Static<S> {
    return (this.values.has(def.key) ? this.values.get(def.key) : def.default) as Static<S>;
  }

  /** Every setting, secrets masked (GET /api/settings). */
  masked(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const key of [...this.entries.keys()].sort()) {
      const { def } = this.entries.get(key)!;
      const value = this.values.get(key) ?? def.default;
      out[key] = def.mask ? def.mask(value as never) : value;
    }
    return out;
  }

  /** Every declared setting, in declaration order (the settings page builds its form from them). */
  definitions(): SettingDef[] {
    return [...this.entries.values()].map((e) => e.def);
  }

  /** Registers a listener for changes (from this or another instance). */
  onChange(listener: SettingsListener): void {
    this.listeners.push(listener);
  }

  /**
   * Normalises, validates and writes the given keys (others keep their values), in one transaction,
   * then applies them. A key sent as `null` is not given, and keeps its value (nulls.ts). Throws
   * FieldError naming the first unknown or invalid key, or the path inside its value (`smtp.0.port`);
   * nothing is written then.
   */
  async update(patch: Record<string, unknown>): Promise<void> {
    const next = new Map<string, unknown>();
    for (const [key, raw] of Object.entries(patch)) {
      const entry = this.entries.get(key);
      if (entry === undefined) throw new FieldError(key, 'is not a known setting');
      // `null` is "not given" (issue 15 item 2): the key keeps its value, a nested optional field its default.
      if (raw === null && !acceptsNull(entry.def.schema)) continue;
      dropNullOptionals(entry.def.schema, raw);
      const input = entry.def.normalize ? entry.def.normalize(raw) : raw;
      if (!entry.validate(input)) {
        explainNull(entry.validate.errors, input);
        throw invalid(key, entry.validate.errors);
      }
      const value = entry.def.keepSecrets ? entry.def.keepSecrets(input as never, this.get(entry.def) as never, key) : input;
      const problem = entry.def.check?.(value as never);
      if (problem) throw new FieldError(key, problem);
      next.set(key, value);
    }
    this.checkSecretDestinations(patch, next);
    await this.db.tx(async (q) => {
      for (const [key, value] of next) await q.run(Q['setting-write'], { key, value: JSON.stringify(value) });
    });
    await this.reload();
  }

  /**
   * Refuses a write that changes where a stored scalar secret is sent (a key in its `secretDestination`)
   * without carrying the secret itself: 400 naming the secret's key (issue 14 finding 1). `next` holds
   * the normalised, validated values about to be written.
   */
  private checkSecretDestinations(patch: Record<string, unknown>, next: ReadonlyMap<string, unknown>): void {
    for (const { def } of this.entries.values()) {
      if (def.secretDestination === undefined) continue;
      const stored = this.get(def);
      if (typeof stored !== 'string' || stored === '') continue;
      const sent = patch[def.key];
      if (Object.hasOwn(patch, def.key) && typeof sent === 'string' && !isUnchangedSecret(sent)) continue;
      const changed = def.secretDestination.filter((k) => {
        const dest = this.entries.get(k);
        return dest !== undefined && next.has(k) && JSON.stringify(next.get(k)) !== JSON.stringify(this.get(dest.def));
      });
      if (changed.length > 0) throw new FieldError(def.key, secretMovedProblem(changed, def.secretDestination));
    }
  }

  /** Re-reads settings when another instance changed them. Returns true when something changed. */
  async refresh(): Promise<boolean> {
    const [row] = await this.db.run<{ version: Date; n: number }>(Q['settings-version']);
    const version = `${row?.version.toISOString()}/${row?.n}`;
    if (version === this.version) return false;
    await this.reload();
    return true;
  }

  /** Polls for other instances' changes every `ms` until {@link stop}. */
  startPolling(ms = 5000): void {
    this.timer ??= setInterval(() => {
      this.refresh().catch((err: unknown) => this.log?.warn({ err }, 'could not refresh settings'));
    }, ms);
    this.timer.unref();
  }

  /** Stops polling. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async reload(): Promise<void> {
    const rows = await this.db.run<{ key: string; value: unknown; updated_at: Date }>(Q['settings-all']);
    const changed = new Set<string>();
    let latest = 0;
    for (const row of rows) {
      latest = Math.max(latest, row.updated_at.getTime());
      const entry = this.entries.get(row.key);
      if (entry === undefined) continue; // a key of a newer or older version: kept in the table, ignored
      let value = entry.def.normalize ? entry.def.normalize(row.value) : row.value;
      if (!entry.validate(value)) {
        this.log?.warn({ key: row.key, problem: describe(row.key, entry.validate.errors) }, 'stored setting is invalid; using the default');
        value = entry.def.default;
      }
      if (JSON.stringify(this.values.get(row.key)) !== JSON.stringify(value)) changed.add(row.key);
      this.values.set(row.key, value);
    }
    this.version = `${new Date(latest || 0).toISOString()}/${rows.length}`;
    if (changed.size > 0 && this.listeners.length > 0) {
      for (const l of this.listeners) {
        try {
          l(changed);
        } catch (err) {
          this.log?.error({ err }, 'settings listener failed');
        }
      }
    }
  }
}
