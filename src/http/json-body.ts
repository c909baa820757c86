/**
 * Reading JSON request bodies (and JSON carried inside other bodies: the tx form's `data` field, the
 * import's `params`, a CSV `attributes` cell).
 *
 * - **Depth.** A value nested more than {@link MAX_JSON_DEPTH} levels of objects and arrays is refused
 *   with a 400 naming the field, before it is parsed (issue 14 finding 9: `attribs` nested 5,000 deep
 *   overflowed the stack in `JSON.stringify` and answered 500; a 1 MiB body of `[` took half a second
 *   of the event loop to parse). The check is one pass over the text, without recursion. listmonk has
 *   no limit of its own: Go's decoder stops at 10,000 levels and PostgreSQL's `jsonb` at its stack
 *   depth; nothing a template reads is a hundred levels deep.
 * - **Empty bodies.** A JSON content type with no body at all (Content-Length 0, or a chunked body of
 *   zero bytes, or only whitespace) is "no fields" (issue 15 item 1: listmonk clients send the header
 *   on every request, DELETEs and `PUT /api/templates/:id/default` included). A body that is present
 *   and malformed stays a 400.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BadRequestError } from '../errors.js';

/** Most levels of objects and arrays one field's value may nest (`{"a": {}}` is two). */
export const MAX_JSON_DEPTH = 100;

/**
 * Where `text` (JSON) nests deeper than `maxDepth`, or null when it does not. With `fieldsAt` 1 the
 * text is a request body: its outer object is level 0 and each field's value is measured on its own,
 * and the answer names the top-level field (`attribs`), or `body` when the outer value is not an
 * object. With `fieldsAt` 0 the text is itself the value (a CSV cell) and the answer is ''.
 * One pass, no recursion; strings (and brackets inside them) are skipped. Malformed text gives an
 * answer or null, and is refused by the parser after.
 */
export function tooDeep(text: string, maxDepth = MAX_JSON_DEPTH, fieldsAt: 0 | 1 = 1): string | null {
  let depth = 0;
  let outerIsObject = false;
  let field = '';
  let lastString = '';
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i;
      for (i += 1; i < text.length; i += 1) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i += 1;
        else if (d === 0x22) break;
      }
      if (depth === 1 && fieldsAt === 1) lastString = text.slice(start, i + 1);
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (depth === 0) outerIsObject = c === 0x7b;
      depth += 1;
      if (depth - fieldsAt > maxDepth) {
        if (fieldsAt === 0) return '';
        return outerIsObject && field !== '' ? field : 'body';
      }
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth -= 1;
    } else if (c === 0x3a /* : */ && depth === 1 && fieldsAt === 1) {
      field = keyName(lastString);
    }
  }
  return null;
}

/** The field name a quoted JSON key spells (shortened for messages), or the raw text if it is not one. */
function keyName(quoted: string): string {
  let name: string;
  try {
    name = JSON.parse(quoted) as string;
  } catch {
    name = quoted.slice(1, -1);
  }
  return name.length > 100 ? `${name.slice(0, 100)}…` : name;
}

/** The message for a value nested too deeply, naming `field`. */
export function tooDeepMessage(field: string): string {
  return `${field}: must not nest objects and arrays more than ${MAX_JSON_DEPTH} levels deep`;
}

/**
 * Parses a JSON document carried in a form field (the tx form's `data` holds the whole message, the
 * import's `params` its options), measuring its top-level fields as a request body's are. Throws
 * BadRequestError naming `prefix.field` when one nests too deeply, or JSON.parse's SyntaxError.
 */
export function parseJsonDocument(text: string, prefix: string): unknown {
  const field = tooDeep(text);
  if (field !== null) throw new BadRequestError(tooDeepMessage(field === 'body' ? prefix : `${prefix}.${field}`));
  return JSON.parse(text);
}

/**
 * Replaces Fastify's JSON body parser with one that checks the depth first and reads an empty body as
 * no body, then parses as Fastify does (prototype poisoning refused, malformed JSON a 400).
 */
export function installJsonBodies(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request: FastifyRequest, body: string | Buffer, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    const field = tooDeep(text);
    if (field !== null) {
      done(new BadRequestError(tooDeepMessage(field)), undefined);
      return;
    }
    parse(request, text, done);
  });
  // No body at all is "no fields": a route that reads a body sees `{}`, so a required field is named
  // as missing rather than the whole body. Multipart bodies are read by their routes' own hooks.
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && request.routeOptions.schema?.body !== undefined && !request.isMultipart()) request.body = {};
  });
}
