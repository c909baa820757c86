/**
 * Schema validation for requests. Query strings and path parameters are text, so their values are
 * coerced to the declared types (`?page=2` → 2, a single `?list_id=3` → [3]); JSON bodies are NOT
 * coerced, so `{"name": 123}` is a 400 rather than silently becoming "123" (bad input gets a clear 4xx).
 */
import { Ajv, type Options } from 'ajv';
import ajvFormats, { type FormatName } from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

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
