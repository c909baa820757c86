/**
 * Trusted URLs and cross-origin requests (listmonk's `security.trusted_urls`, reference §2 notes and §12).
 *
 * While the setting is empty (the default) Mailroom sends no CORS headers at all, as before. With
 * entries, a browser page on one of their origins (scheme://host[:port]) may call Mailroom across
 * origins: the answer carries `Access-Control-Allow-Origin` with that origin (`*` when an entry is `*`)
 * and preflights are answered before authentication. As in listmonk, the only request headers allowed
 * are `Origin`, `Content-Type` and `Accept`, and credentials are never allowed: a page elsewhere can use
 * the public endpoints (a signup form posting to `/api/public/subscription`), never the authenticated
 * API, which needs an `Authorization` header.
 *
 * The same list is what the public subscription form's `next` field may redirect to (exact match).
 */
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { defineSetting, type SettingDef } from '../settings/definitions.js';

/** Methods a trusted origin may use (echo's CORS defaults, which listmonk keeps). */
const METHODS = ['GET', 'HEAD', 'PUT', 'PATCH', 'POST', 'DELETE'];
/** Request headers a trusted origin may send (listmonk: Origin, Content-Type, Accept; never Authorization). */
const ALLOWED_HEADERS = ['Origin', 'Content-Type', 'Accept'];

/**
 * Canonical form of the list: entries trimmed, a trailing `/` dropped, empty entries and repeats
 * removed. Anything that is not an array of strings is returned unchanged for the schema to refuse.
 */
export function normalizeTrustedUrls(raw: unknown): unknown {
  if (!Array.isArray(raw) || !raw.every((u) => typeof u === 'string')) return raw;
  return [...new Set((raw as string[]).map(normalizeUrl).filter((u) => u !== ''))];
}

/** One entry (or a `next` value) in canonical form: trimmed, without a trailing `/`. */
function normalizeUrl(url: string): string {
  return url.trim().replace(/\/+$/u, '');
}

/**
 * Where the subscription form's `next` may send the browser: `next` (trimmed) when it is exactly one of
 * the trusted URLs (a trailing `/` aside; never `*`), else null (listmonk: only a trusted URL is followed).
 */
export function trustedRedirect(trusted: readonly string[], next: string | undefined): string | null {
  if (next === undefined) return null;
  const wanted = normalizeUrl(next);
  return wanted !== '*' && trusted.includes(wanted) ? next.trim() : null;
}

/** The origin (scheme://host[:port], lower-case host, default port dropped) of an http(s) URL, or null. */
export function originOf(url: string): string | null {
  try {
    const u = new URL(url);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '' && u.username === '' && u.password === '' ? u.origin : null;
  } catch {
    return null;
  }
}

/**
 * Settings check: each entry `*` or an absolute http(s) URL with a host and no credentials (listmonk's
 * rule), without spaces or control characters (an entry may become a `Location` header).
 */
export function checkTrustedUrls(list: string[]): string | null {
  const bad = list.findIndex((u) => u !== '*' && (/[\s\u0000-\u001f\u007f]/u.test(u) || originOf(u) === null));
  return bad === -1 ? null : `item ${bad + 1} ("${list[bad]!.slice(0, 100)}") must be an http(s) URL with a host, or *`;
}

/** The setting declaration. */
export function corsSettings() {
  return {
    trustedUrls: defineSetting({
      key: 'security.trusted_urls',
      schema: Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 100 }),
      default: [] as string[],
      description:
        'Web pages allowed to call Mailroom from the browser (CORS, without credentials: the public endpoints) and the only addresses the subscription form\'s `next` field redirects to. `*` allows any origin. Empty: no CORS headers.',
      normalize: normalizeTrustedUrls,
      check: checkTrustedUrls,
    }),
  } satisfies Record<string, SettingDef>;
}

/**
 * What `Access-Control-Allow-Origin` says to a request from `origin` under `trusted`: `*` when an entry
 * is `*`, the origin itself when an entry has that origin, else false (no CORS headers, no preflight).
 */
export function allowedOrigin(trusted: readonly string[], origin: string | undefined): string | false {
  if (trusted.length === 0 || origin === undefined) return false;
  if (trusted.includes('*')) return '*';
  return originsOf(trusted).has(origin) ? origin : false;
}

// The origins of a list, computed once per stored value (settings hand out the same array until it changes).
const originCache = new WeakMap<readonly string[], ReadonlySet<string>>();

function originsOf(trusted: readonly string[]): ReadonlySet<string> {
  let set = originCache.get(trusted);
  if (set === undefined) {
    set = new Set(trusted.map(originOf).filter((o): o is string => o !== null));
    originCache.set(trusted, set);
  }
  return set;
}

/**
 * Registers CORS on `app`, reading the trusted URLs on every request (settings change at run time).
 * Must be registered before the authentication hook, so preflights are answered without credentials.
 */
export async function registerCors(app: FastifyInstance, trusted: () => readonly string[]): Promise<void> {
  // The plugin's `OPTIONS *` route only lets Fastify accept preflights, which the CORS hook answers
  // before authentication; a request that reaches the route signed in gets a 404. It needs no
  // permission, so it declares `authenticated` like every route (issue 16 item 3).
  app.addHook('onRoute', (route) => {
    if (route.url === '*' && route.method === 'OPTIONS') route.config = { ...route.config, permission: 'authenticated' };
  });
  await app.register(cors, {
    origin: (origin, cb) => cb(null, allowedOrigin(trusted(), origin)),
    methods: METHODS,
    allowedHeaders: ALLOWED_HEADERS,
    credentials: false,
    hideOptionsRoute: true,
  });
}
