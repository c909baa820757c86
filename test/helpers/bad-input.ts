/**
 * fast-check arbitraries for hostile HTTP input, derived from a route's schemas: wrong types, huge and
 * negative numbers, NUL bytes and unicode, very long strings, deep nesting, malformed JSON, wrong
 * content types, truncated multipart bodies, duplicate and unknown query parameters, and other
 * spellings of the path (issue 14: the sweeps vary paths, not only bodies).
 */
import fc from 'fast-check';
import type { RouteEntry } from '../../src/http/route-table.js';
import { injectKeeps, spellingArbitrary } from './path-spellings.js';

/** One generated request. */
export interface BadRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  kind: string;
}

const nastyString = fc.oneof(
  fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '%00', '💥'.repeat(50), '\uFFFF\uD800', '<script>alert(1)</script>', "' OR 1=1 --", '../../etc/passwd', 'null', 'true', '-1', '1e309'),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.integer({ min: 2000, max: 20_000 }).map((n) => 'x'.repeat(n)),
);

const nastyNumber = fc.oneof(
  fc.constantFrom(0, -1, -2147483649, 2147483648, Number.MAX_SAFE_INTEGER, 1e308, -1e308, 0.5, 1e-300),
  fc.integer(),
  fc.double({ noNaN: true }),
);

/** Nested arrays/objects `depth` levels deep. */
function deep(depth: number, obj: boolean): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = obj ? { a: v } : [v];
  return v;
}

/** Any JSON value, biased towards the nasty ones. */
export const nastyValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    nastyString,
    nastyNumber,
    fc.constantFrom(null, true, false, [], {}),
    fc.integer({ min: 50, max: 3000 }).map((d) => deep(d, d % 2 === 0)),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** URL-encodes text; lone surrogates (which no URL can carry) are replaced first. */
function enc(text: string): string {
  return encodeURIComponent(text.replace(/[\uD800-\uDFFF]/gu, '\uFFFD'));
}

function schemaProps(schema: unknown): string[] {
  const props = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return props ? Object.keys(props) : [];
}

/** A JSON body: an object mixing the route's field names with nasty values, or a non-object. */
function jsonBody(route: RouteEntry): fc.Arbitrary<unknown> {
  const keys = [...schemaProps(route.schema.body), '__proto__', 'constructor', 'extra'];
  return fc.oneof(
    fc.dictionary(fc.constantFrom(...keys), nastyValue, { maxKeys: keys.length }),
    nastyValue,
  );
}

const rawPayloads = fc.oneof(
  fc.constantFrom('{', '{"a":', '[1,2', '{"a":1}}', 'nul', '{"a":"\\ud800"}', '\u0000', '{"__proto__":{"admin":true}}', ''),
  fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
);

/** Query strings: declared names and unknown ones, repeated, with nasty values. */
function queryString(route: RouteEntry): fc.Arbitrary<string> {
  const names = [...schemaProps(route.schema.querystring), 'x', 'page', 'per_page', 'order', 'id'];
  const pair = fc.tuple(fc.constantFrom(...names), fc.oneof(nastyString, nastyNumber.map(String)));
  return fc.array(pair, { minLength: 1, maxLength: 6 }).map((pairs) => pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&'));
}

const badSegment = fc.oneof(
  fc.constantFrom('0', '-1', 'abc', '1.5', '99999999999999999999', '2147483648', '1e3', '%00', '%E2%82', '..%2F..%2Fetc', 'null', ' 1', '0x10'),
  nastyString.map((s) => enc(s).slice(0, 3000) || 'x'),
);

/** Fills path params with a nasty segment, or a well-formed id that does not exist. */
function path(route: RouteEntry): fc.Arbitrary<string> {
  if (!route.url.includes(':') && !route.url.includes('*')) return fc.constant(route.url);
  return fc.tuple(badSegment, fc.boolean()).map(([seg, keepValid]) =>
    route.url
      .replace(/:(\w+)/g, (_m, name: string) => (keepValid ? (/uuid/i.test(name) ? '00000000-0000-4000-8000-000000000000' : name === 'type' ? 'views' : '987654') : seg))
      .replace(/\*/g, keepValid ? 'missing.png' : seg),
  );
}

/**
 * The route's path under another spelling (percent-encoded letters, case flips, doubled or encoded
 * slashes, odd suffixes: see path-spellings.ts), or unchanged when the path is too long to re-spell
 * cheaply or the spelling is one `app.inject` would rewrite.
 */
function respelled(route: RouteEntry): fc.Arbitrary<string> {
  return path(route).chain((p) => (p.length > 300 ? fc.constant(p) : spellingArbitrary(p).map((sp) => (injectKeeps(sp.target) ? sp.target : p))));
}

const WRONG_TYPES = ['text/plain', 'application/xml', 'application/octet-stream', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=zz', 'application/json; charset=utf-16', 'image/png'];

/** Every kind of bad request for `route`. */
export function badRequest(route: RouteEntry, auth: string): fc.Arbitrary<BadRequest> {
  const base = (kind: string) => (url: string): BadRequest => ({ method: route.method, url, headers: { authorization: auth }, kind });
  const withBody = route.method !== 'GET' && route.method !== 'DELETE';
  const kinds: Array<fc.Arbitrary<BadRequest>> = [
    path(route).map(base('path')),
    respelled(route).map(base('path spelling')),
    fc.tuple(path(route), queryString(route)).map(([p, q]) => base('query')(`${p}?${q}`)),
  ];
  if (withBody) {
    kinds.push(
      fc.tuple(path(route), jsonBody(route)).map(([p, body]) => ({ ...base('json body')(p), headers: { authorization: auth, 'content-type': 'application/json' }, payload: JSON.stringify(body) ?? 'null' })),
      fc.tuple(path(route), rawPayloads).map(([p, payload]) => ({ ...base('malformed body')(p), headers: { authorization: auth, 'content-type': 'application/json' }, payload })),
      fc.tuple(path(route), fc.constantFrom(...WRONG_TYPES), fc.string({ maxLength: 200 })).map(([p, type, payload]) => ({ ...base('content type')(p), headers: { authorization: auth, 'content-type': type }, payload })),
      fc.tuple(path(route), fc.integer({ min: 0, max: 60 })).map(([p, cut]) => ({
        ...base('truncated multipart')(p),
        headers: { authorization: auth, 'content-type': 'multipart/form-data; boundary=b0und' },
        payload: '--b0und\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\nContent-Type: text/csv\r\n\r\nemail,name\r\na@b.c,x\r\n--b0und--\r\n'.slice(0, 40 + cut),
      })),
    );
  }
  return fc.oneof(...kinds);
}
