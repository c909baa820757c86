/**
 * Schema validation for requests. Query strings and path parameters are text, so their values are
 * coerced to the declared types (`?page=2` → 2, a single `?list_id=3` → [3]); JSON bodies are NOT
 * coerced, so `{"name": 123}` is a 400 rather than silently becoming "123" (bad input gets a clear 4xx).
 */
import { Ajv, type Options } from 'ajv';
import ajvFormats, { type FormatName } from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { MAX_JSON_DEPTH } from './json-body.js';

// ajv-formats is CommonJS: under NodeNext its default import is the module object, whose `default`
// property is the plugin function.
type AddFormats = (ajv: Ajv, formats: FormatName[]) => Ajv;
const addFormats = ((ajvFormats as unknown as { default?: AddFormats }).default ?? ajvFormats) as AddFormats;

const common: Options = { allErrors: false, useDefaults: true, removeAdditional: false, strict: false };

function makeAjv(opts: Options): Ajv {
  const ajv = new Ajv({ ...common, ...opts });
  addFormats(ajv, ['date-time', 'date', 'email', 'uri', 'uuid']);
  return ajv;
}

const bodyAjv = makeAjv({ coerceTypes: false });
const textAjv = makeAjv({ coerceTypes: 'array' });

/** Fastify validator compiler choosing the coercing or strict Ajv by request part. */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  return ajv.compile(schema) as ReturnType<FastifySchemaCompiler<object>>;
};

/**
 * Finds the first string containing a NUL character (U+0000) in a request part and returns its path
 * (e.g. `attribs.note`), or null. PostgreSQL cannot store NUL in text, so such input is refused up
 * front with a 400 naming the field instead of failing in the database.
 */
export function findNul(value: unknown, path = '', depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path || 'value' : null;
  // Bodies nest at most MAX_JSON_DEPTH levels per field (json-body.ts), so every accepted level is seen.
  if (value === null || typeof value !== 'object' || depth > MAX_JSON_DEPTH + 2) return null;
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  for (const [key, v] of entries) {
    if (key.includes('\u0000')) return path ? `${path}.${key.replace(/\u0000/gu, '\\0')}` : key.replace(/\u0000/gu, '\\0');
    const found = findNul(v, path ? `${path}.${key}` : key, depth + 1);
    if (found !== null) return found;
  }
  return null;
}
