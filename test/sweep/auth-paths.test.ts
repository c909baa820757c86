/**
 * Authentication whatever the spelling of the path (issue 14 finding 1): every route of the real route
 * table that is not public, requested without credentials with each letter of its first segment
 * percent-encoded (both hex cases), encoded and double-encoded slashes, trailing and doubled slashes,
 * case variants, dot segments, backslashes, odd characters and the absolute form, with every method it
 * has (and HEAD, OPTIONS): 401 when the router reaches the route, else 401 or 404 (or 400 for a NUL or a
 * target that does not start with `/`); never 2xx, never 5xx.
 * Spellings `app.inject` keeps as given go through it; the others (absolute form, dot segments,
 * backslashes) are written on a raw socket.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { injectKeeps, pathSpellings } from '../helpers/path-spellings.js';
import { rawRequest } from '../helpers/raw-http.js';
import { concreteUrl } from '../helpers/routes.js';

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await buildTestApp({ env: { MAILROOM_API_ONLY: 'true' } });
  // Something to leak, should a spelling get through.
  const list = (await t.api('POST', '/api/lists', { name: 'Sweep', type: 'private', optin: 'single' })).body.data;
  await t.api('POST', '/api/subscribers', { email: 'secret@example.org', name: 'Secret', lists: [list.id] });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(async () => t?.close());

/** Each protected path with the methods it answers (HEAD for GET routes, OPTIONS through CORS's route). */
function protectedPaths(): Map<string, Set<string>> {
  const paths = new Map<string, Set<string>>();
  for (const r of t.app.routeTable.filter((x) => !x.public)) {
    // CORS's catch-all `OPTIONS *` route becomes `/sample.png`.
    const path = concreteUrl(r).replace(/^(?!\/)/u, '/');
    const methods = paths.get(path) ?? new Set<string>(['OPTIONS']);
    methods.add(r.method);
    if (r.method === 'GET') methods.add('HEAD');
    paths.set(path, methods);
  }
  return paths;
}

interface Outcome {
  status: number;
  authenticate: string | undefined;
  body: string;
}

async function send(method: string, target: string): Promise<Outcome> {
  if (injectKeeps(target)) {
    const res = await t.app.inject({ method: method as 'GET', url: target });
    return { status: res.statusCode, authenticate: res.headers['www-authenticate'] as string | undefined, body: res.body };
  }
  const res = await rawRequest(port, method, target);
  return { status: res.status, authenticate: res.headers['www-authenticate'], body: res.body };
}

describe('protected routes under every spelling of their path', () => {
  it('answer 401 (or 404 where the spelling names no route) without credentials, never 2xx or 5xx', async () => {
    const paths = protectedPaths();
    expect(paths.size).toBeGreaterThan(30);
    expect(paths.has('/metrics')).toBe(true);
    const byStatus = new Map<number, number>();
    const failures: string[] = [];
    let raw = 0;
    const jobs: Array<() => Promise<void>> = [];
    for (const [path, methods] of paths) {
      for (const spelling of pathSpellings(path)) {
        for (const method of methods) {
          jobs.push(async () => {
            if (!injectKeeps(spelling.target)) raw += 1;
            const res = await send(method, spelling.target);
            byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1);
            const where = `${method} ${spelling.target} (${spelling.kind}) → ${res.status} ${res.body.slice(0, 120)}`;
            // An admin page sends the browser to sign in (302, or 303 for a form post) instead; its
            // OPTIONS goes to CORS's catch-all, an API route.
            const refused = method !== 'OPTIONS' && (path === '/admin' || path.startsWith('/admin/')) ? [302, 303] : [401];
            const allowed = spelling.same ? refused : spelling.malformed ? [...refused, 400, 401, 404] : [...refused, 401, 404];
            if (!allowed.includes(res.status)) failures.push(where);
            else if (res.status === 401 && !/^Basic realm="mailroom"/u.test(res.authenticate ?? '')) failures.push(`${where}: no WWW-Authenticate`);
          });
        }
      }
    }
    // A few at a time: inject is in-process, the raw ones each open a socket.
    for (let i = 0; i < jobs.length; i += 16) await Promise.all(jobs.slice(i, i + 16).map((j) => j()));
    const summary = [...byStatus.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`).join(' ');
    console.log(`auth path sweep: ${paths.size} paths, ${jobs.length} requests (${raw} on raw sockets): ${summary}`);
    expect(failures.slice(0, 40), `${failures.length} requests were not refused`).toEqual([]);
    expect(jobs.length).toBeGreaterThan(5000);
  });

  it('reach the route with the encoded spellings once credentials are sent (the sweep tests real routes)', async () => {
    const { AUTH } = await import('../helpers/app.js');
    for (const target of ['/%61pi/settings', '/a%70i/subscribers', '/%6detrics', '/%6Detrics']) {
      const res = await t.app.inject({ method: 'GET', url: target, headers: { authorization: AUTH } });
      expect(res.statusCode, target).toBe(200);
    }
    const abs = await rawRequest(port, 'GET', 'http://x/api/subscribers', { authorization: AUTH });
    expect(abs.status).toBe(200);
    expect(abs.body).toContain('secret@example.org');
  });

  it('refuse the issue\'s spellings without credentials and leak nothing', async () => {
    for (const [method, target] of [['GET', '/%61pi/settings'], ['GET', '/a%70i/subscribers'], ['GET', '/%6detrics'], ['PUT', '/%61pi/settings'], ['GET', 'http://x/api/subscribers'], ['POST', 'http://x/api/tx']]) {
      const res = await send(method!, target!);
      expect(res.status, `${method} ${target}`).toBe(401);
      expect(res.body).not.toContain('secret@example.org');
      expect(res.body).not.toContain('smtp');
    }
  });
});
