/**
 * The settings form's model (issue 16 "Settings"), shared by the page handlers and the view: which tab
 * each setting is shown in (listmonk's tabs, admin UI map §1.17, plus a "Mailroom" tab for keys of our
 * own), what input a setting's TypeBox schema becomes, how a posted form becomes a settings patch, and
 * where a validation error of the settings service is shown.
 *
 * Form field names are the setting key followed by the path inside its value, as the service's 400s
 * name them (`app.root_url`, `smtp.0.port`, `security.public_subscription_rate_limit.window`), so an
 * error lands beside the input of the same name.
 *
 * Secrets never go to the browser: a secret input is rendered empty. Left empty, the form sends back
 * the masked value (GET /api/settings's), which the service reads as "keep the stored secret"
 * (src/settings/definitions.ts); typed, it replaces it.
 */
import { createHash } from 'node:crypto';
import type { TSchema } from 'typebox';
import type { SettingDef } from '../../settings/definitions.js';

/** The tabs, in listmonk's order (admin UI map §1.17; Bounces and Appearance have no Mailroom keys yet). */
export const TABS = ['general', 'performance', 'privacy', 'security', 'media', 'smtp', 'messengers', 'mailroom'] as const;
/** A tab id. */
export type TabId = (typeof TABS)[number];

/** Key → tab for the keys listmonk shows; keys not listed (new ones included) go to `mailroom`, in declaration order. */
const LAYOUT: Readonly<Record<Exclude<TabId, 'mailroom'>, readonly string[]>> = {
  general: [
    'app.root_url', 'app.logo_url', 'app.from_email', 'app.notify_emails', 'app.lang',
    'app.enable_public_subscription_page', 'app.send_optin_confirmation',
    'app.enable_public_archive', 'app.enable_public_archive_rss_content',
  ],
  performance: [
    'app.concurrency', 'app.message_rate', 'app.batch_size', 'app.max_send_errors',
    'app.message_sliding_window', 'app.message_sliding_window_rate', 'app.message_sliding_window_duration',
    'app.subscriber_query_timeout',
  ],
  privacy: [
    'privacy.individual_tracking', 'privacy.disable_tracking', 'privacy.unsubscribe_header', 'privacy.allow_preferences',
    'privacy.record_optin_ip', 'privacy.domain_blocklist', 'privacy.domain_allowlist',
  ],
  security: ['security.trusted_urls', 'security.public_subscription_rate_limit'],
  media: [
    'upload.provider', 'upload.extensions', 'upload.max_file_size', 'upload.s3.url', 'upload.s3.public_url',
    'upload.s3.aws_access_key_id', 'upload.s3.aws_secret_access_key', 'upload.s3.aws_default_region',
    'upload.s3.bucket', 'upload.s3.bucket_path', 'upload.s3.bucket_type',
  ],
  smtp: ['smtp'],
  messengers: ['messengers', 'security.allow_private_messenger_urls'],
};

/** The settings of each tab, in display order. */
export function tabsOf(defs: readonly SettingDef[]): Record<TabId, SettingDef[]> {
  const byKey = new Map(defs.map((d) => [d.key, d]));
  const out = Object.fromEntries(TABS.map((t) => [t, [] as SettingDef[]])) as Record<TabId, SettingDef[]>;
  const placed = new Set<string>();
  for (const [tab, keys] of Object.entries(LAYOUT) as Array<[TabId, readonly string[]]>) {
    for (const key of keys) {
      const def = byKey.get(key);
      if (def === undefined) continue;
      out[tab].push(def);
      placed.add(key);
    }
  }
  for (const def of defs) if (!placed.has(def.key)) out.mailroom.push(def);
  return out;
}

/** The tab showing setting `key`. */
export function tabOfKey(key: string): TabId {
  for (const [tab, keys] of Object.entries(LAYOUT) as Array<[TabId, readonly string[]]>) if (keys.includes(key)) return tab;
  return 'mailroom';
}

/** A tab id from a query value; `general` for anything else. */
export function parseTab(value: unknown): TabId {
  return typeof value === 'string' && (TABS as readonly string[]).includes(value) ? (value as TabId) : 'general';
}

/** What input a schema becomes. */
export type InputKind =
  | { kind: 'checkbox' }
  | { kind: 'number'; nullable: boolean; min?: number; max?: number }
  | { kind: 'select'; options: readonly string[] }
  | { kind: 'text'; maxLength?: number }
  | { kind: 'lines' }
  | { kind: 'headers' }
  | { kind: 'group'; fields: ReadonlyArray<[string, TSchema]> }
  | { kind: 'blocks'; item: TSchema };

type Json = Record<string, unknown>;
const prop = (s: TSchema, k: string): unknown => (s as unknown as Json)[k];

/**
 * The input for `schema`: booleans → checkbox; integers (or integer|null) → number; enums → select;
 * strings → text; arrays of strings → a textarea, one item a line; arrays of string records (SMTP
 * `email_headers`) → a textarea of `Name: value` lines; objects → a group of fields; arrays of objects
 * (SMTP servers, messengers) → one fieldset per block. Anything else → text (the service refuses what
 * it cannot take).
 */
export function inputOf(schema: TSchema): InputKind {
  const anyOf = prop(schema, 'anyOf') as TSchema[] | undefined;
  if (Array.isArray(anyOf)) {
    const nonNull = anyOf.filter((s) => prop(s, 'type') !== 'null');
    if (nonNull.length === 1 && ['integer', 'number'].includes(prop(nonNull[0]!, 'type') as string)) {
      return { kind: 'number', nullable: true, min: prop(nonNull[0]!, 'minimum') as number | undefined, max: prop(nonNull[0]!, 'maximum') as number | undefined };
    }
  }
  const en = prop(schema, 'enum');
  if (Array.isArray(en)) return { kind: 'select', options: en.map(String) };
  switch (prop(schema, 'type')) {
    case 'boolean':
      return { kind: 'checkbox' };
    case 'integer':
    case 'number':
      return { kind: 'number', nullable: false, min: prop(schema, 'minimum') as number | undefined, max: prop(schema, 'maximum') as number | undefined };
    case 'array': {
      const items = prop(schema, 'items') as TSchema;
      if (prop(items, 'type') === 'string') return { kind: 'lines' };
      if (prop(items, 'type') === 'object' && prop(items, 'properties') !== undefined) return { kind: 'blocks', item: items };
      if (prop(items, 'type') === 'object' && prop(items, 'patternProperties') !== undefined) return { kind: 'headers' };
      return { kind: 'text' };
    }
    case 'object': {
      const props = prop(schema, 'properties') as Record<string, TSchema> | undefined;
      if (props) return { kind: 'group', fields: Object.entries(props) };
      return { kind: 'text' };
    }
    default:
      return { kind: 'text', maxLength: prop(schema, 'maxLength') as number | undefined };
  }
}

/** True when the field `name` (a key or a path inside its value) holds a secret of `def`. */
export function isSecret(def: SettingDef, path: readonly string[]): boolean {
  if (def.mask === undefined) return false;
  return path.length === 0 ? prop(def.schema, 'type') === 'string' : path[path.length - 1] === 'password';
}

/** A posted form: field name → value (formbody gives a string, or an array for repeated names). */
export type FormBody = Readonly<Record<string, unknown>>;

function str(body: FormBody, name: string): string {
  const v = body[name];
  if (Array.isArray(v)) return typeof v[v.length - 1] === 'string' ? (v[v.length - 1] as string) : '';
  return typeof v === 'string' ? v : '';
}

/** The block indexes posted under `name` (`smtp.0.…`, `smtp.3.…`), ascending. */
function blockIndexes(body: FormBody, name: string): number[] {
  const re = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&')}\\.(\\d{1,3})\\.`, 'u');
  const seen = new Set<number>();
  for (const k of Object.keys(body)) {
    const m = re.exec(k);
    if (m) seen.add(Number(m[1]));
  }
  return [...seen].sort((a, b) => a - b);
}

/** The masked value of a secret at `path` inside `masked` (blocks are matched by `uuid`), or ''. */
function maskedSecret(masked: unknown, path: readonly string[], block: Json | undefined): string {
  if (path.length === 0) return typeof masked === 'string' ? masked : '';
  if (!Array.isArray(masked) || block === undefined || typeof block.uuid !== 'string' || block.uuid === '') return '';
  const stored = (masked as Json[]).find((b) => b && b.uuid === block.uuid);
  const v = stored?.[path[path.length - 1]!];
  return typeof v === 'string' ? v : '';
}

/**
 * The value of one input from the form. Numbers that do not parse, and anything else the user typed,
 * are passed on as typed so the service's 400 names the field and the re-rendered form shows it.
 */
function readValue(def: SettingDef, schema: TSchema, name: string, path: string[], body: FormBody, masked: unknown, block?: Json): unknown {
  const input = inputOf(schema);
  switch (input.kind) {
    case 'checkbox':
      return str(body, name) === 'true';
    case 'number': {
      const s = str(body, name).trim();
      if (s === '' && input.nullable) return null;
      return /^-?\d{1,15}$/u.test(s) ? Number(s) : s;
    }
    case 'lines':
      return str(body, name).split(/\r?\n/u).map((l) => l.trim()).filter((l) => l !== '');
    case 'headers':
      return str(body, name).split(/\r?\n/u).map((l) => l.trim()).filter((l) => l !== '').map((l) => {
        const colon = l.indexOf(':');
        return colon < 0 ? { [l]: '' } : { [l.slice(0, colon).trim()]: l.slice(colon + 1).trim() };
      });
    case 'group': {
      const out: Json = {};
      for (const [k, s] of input.fields) out[k] = readValue(def, s, `${name}.${k}`, [...path, k], body, masked, block);
      return out;
    }
    case 'blocks':
      return blockIndexes(body, name).map((i) => {
        const out: Json = {};
        const props = prop(input.item, 'properties') as Record<string, TSchema>;
        out.uuid = str(body, `${name}.${i}.uuid`);
        for (const [k, s] of Object.entries(props)) {
          if (k !== 'uuid') out[k] = readValue(def, s, `${name}.${i}.${k}`, [...path, String(i), k], body, masked, out);
        }
        return out;
      });
    default: {
      const raw = str(body, name);
      if (isSecret(def, path)) return raw === '' ? maskedSecret(masked, path, block) : raw;
      return raw.trim();
    }
  }
}

/**
 * Every setting's value as the form describes it (secrets left empty become the masked stored value,
 * so the service keeps them). `masked` is {@link SettingsService.masked}'s output.
 */
export function readForm(defs: readonly SettingDef[], body: FormBody, masked: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const def of defs) out[def.key] = readValue(def, def.schema, def.key, [], body, masked[def.key]);
  return out;
}

function fingerprint(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value) ?? '').digest('base64url').slice(0, 12);
}

/**
 * The form's hidden `_loaded` value: a short hash of each setting's value as the form was rendered
 * (secrets masked), so a save can tell what the user changed from what someone else changed since.
 */
export function loadedMark(masked: Readonly<Record<string, unknown>>): string {
  const marks: Record<string, string> = {};
  for (const [k, v] of Object.entries(masked)) marks[k] = fingerprint(v);
  return Buffer.from(JSON.stringify(marks), 'utf8').toString('base64url');
}

function parseMark(mark: unknown): Record<string, string> | null {
  if (typeof mark !== 'string' || mark.length > 20_000) return null;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(mark, 'base64url').toString('utf8'));
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, string>) : null;
  } catch {
    return null;
  }
}

/**
 * The keys the user changed: whose value in `values` differs from the value the form was rendered with
 * (`loaded`, {@link loadedMark}) and from the stored one (`masked`). Only these are written, so a change
 * another administrator saved meanwhile to a key this user left alone is not overwritten. Without a
 * (valid) mark, every key differing from the stored value counts.
 */
export function changedKeys(values: Readonly<Record<string, unknown>>, masked: Readonly<Record<string, unknown>>, loaded?: unknown): string[] {
  const marks = parseMark(loaded);
  return Object.keys(values).filter((k) => {
    if (JSON.stringify(values[k]) === JSON.stringify(masked[k])) return false;
    const mark = marks?.[k];
    return mark === undefined || mark !== fingerprint(values[k]);
  });
}

/** The setting a field name belongs to: the longest key that is `field` or a prefix of it followed by a dot. */
export function keyOfField(defs: readonly SettingDef[], field: string): SettingDef | undefined {
  let best: SettingDef | undefined;
  for (const d of defs) if ((field === d.key || field.startsWith(`${d.key}.`)) && (best === undefined || d.key.length > best.key.length)) best = d;
  return best;
}

/**
 * The field that shows an error named `field` by the settings service: the field itself when it is an
 * input, else its nearest enclosing input or block list (`smtp.0.email_headers.1` → `smtp.0.email_headers`;
 * `smtp.0` → `smtp`). Undefined when no setting has that name (shown above the form).
 */
export function errorTarget(defs: readonly SettingDef[], field: string): string | undefined {
  const def = keyOfField(defs, field);
  if (def === undefined) return undefined;
  const rest = field === def.key ? [] : field.slice(def.key.length + 1).split('.');
  let schema: TSchema = def.schema;
  let name = def.key;
  let target = def.key;
  for (const part of rest) {
    const input = inputOf(schema);
    let next: TSchema | undefined;
    if (input.kind === 'group') next = input.fields.find(([k]) => k === part)?.[1];
    else if (input.kind === 'blocks' && /^\d+$/u.test(part)) next = input.item;
    if (next === undefined) break; // inside a leaf (a line of a textarea): the leaf shows it
    schema = next;
    name = `${name}.${part}`;
    if (inputOf(schema).kind !== 'group') target = name;
  }
  return target;
}
