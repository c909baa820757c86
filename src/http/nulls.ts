/**
 * JSON `null` in request bodies (issue 15 item 2). Python and TypeScript clients serialise unset
 * optional fields as `null`; listmonk (Go) reads `null` into a plain field as "no value given": a
 * create takes the default, an update keeps the stored value.
 *
 * The rule, applied from the schema before validation, so it holds on every route and every field:
 * - a field whose schema accepts `null` keeps it: there `null` has a meaning of its own (campaign
 *   `send_at: null` unschedules, `template_id: null` is the default template, `altbody: null` is none:
 *   the nullable fields of listmonk's campaign, spec part 2);
 * - an optional field whose schema does not accept `null` is removed, as if it had not been sent;
 * - a required field sent as `null` stays, and validation answers 400 `<field>: must not be null`.
 * Nested objects declared in the schema follow the same rule; free-form values (`attribs`, `data`,
 * `archive_meta`: records of anything) are left as sent, `null`s included.
 */
import type { ErrorObject } from 'ajv';

/** The part of a JSON schema this module reads. */
interface Schema {
  type?: string | string[];
  nullable?: boolean;
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema | Schema[];
  not?: unknown;
  [key: string]: unknown;
}

/** True when `schema` lets `null` through (so `null` is a value for that field). */
export function acceptsNull(input: unknown): boolean {
  if (input === undefined || input === null || typeof input !== 'object') return true;
  const schema = input as Schema;
  if (schema.allOf !== undefined) return schema.allOf.every(acceptsNull);
  if (schema.anyOf !== undefined) return schema.anyOf.some(acceptsNull);
  if (schema.oneOf !== undefined) return schema.oneOf.some(acceptsNull);
  if (schema.nullable === true) return true;
  if ('const' in schema) return schema.const === null;
  if (schema.enum !== undefined) return schema.enum.includes(null);
  if (schema.type === undefined) return schema.not === undefined; // `{}`: anything
  return Array.isArray(schema.type) ? schema.type.includes('null') : schema.type === 'null';
}

/** The declared fields of an object schema (an `allOf` of objects merged): each field's schemas and whether one requires it. */
function fieldsOf(schema: Schema): Map<string, { schemas: Schema[]; required: boolean }> | null {
  const parts = schema.allOf ?? [schema];
  const fields = new Map<string, { schemas: Schema[]; required: boolean }>();
  for (const part of parts) {
    if (part.properties === undefined) continue;
    for (const [name, sub] of Object.entries(part.properties)) {
      const f = fields.get(name) ?? { schemas: [], required: false };
      f.schemas.push(sub);
      fields.set(name, f);
    }
    for (const name of part.required ?? []) {
      const f = fields.get(name);
      if (f !== undefined) f.required = true;
    }
  }
  return fields.size === 0 ? null : fields;
}

/**
 * Removes, in place, the `null` values of optional fields that do not accept `null`, in `value` and in
 * the objects nested in it that `schema` declares (see the module comment). `value` is a parsed body.
 */
export function dropNullOptionals(schema: unknown, value: unknown): void {
  if (value === null || typeof value !== 'object') return;
  const s = schema as Schema;
  if (Array.isArray(value)) {
    const items = s.items;
    if (items !== undefined && !Array.isArray(items)) for (const v of value) dropNullOptionals(items, v);
    return;
  }
  const fields = fieldsOf(s);
  if (fields === null) return;
  const obj = value as Record<string, unknown>;
  for (const [name, field] of fields) {
    if (!Object.hasOwn(obj, name)) continue;
    const v = obj[name];
    if (v === null) {
      if (!field.required && !field.schemas.every(acceptsNull)) delete obj[name];
    } else {
      for (const sub of field.schemas) dropNullOptionals(sub, v);
    }
  }
}

/**
 * Rewrites the first validation error when the value it is about is `null` (a required field sent as
 * null): `must not be null` instead of a type mismatch, so the answer names the field and says why.
 */
export function explainNull(errors: ErrorObject[] | null | undefined, data: unknown): void {
  const first = errors?.[0];
  if (first === undefined || (first.keyword !== 'type' && first.keyword !== 'anyOf' && first.keyword !== 'enum')) return;
  let at: unknown = data;
  for (const part of first.instancePath.split('/').slice(1)) {
    if (at === null || typeof at !== 'object') return;
    at = (at as Record<string, unknown>)[part.replace(/~1/gu, '/').replace(/~0/gu, '~')];
  }
  if (at !== null) return;
  // One issue, not the union's one-per-branch noise: describeValidation then words it.
  errors!.splice(0, errors!.length, { ...first, keyword: 'null', params: {}, message: 'must not be null' });
}
