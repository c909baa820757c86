/**
 * OIDC sign-in end to end (issue 16 "Sign-in" item 4) against a real OpenID provider (`oidc-provider`)
 * started here on a random port: discovery, the redirect with state, nonce and PKCE, signing in at the
 * provider through its own login and consent forms (plain HTTP, following its redirects), the callback,
 * and a session cookie that works on the API. The provider keeps the e-mail out of the ID token
 * (its default), so the userinfo fallback is exercised too. Refusals: a state that is not the
 * browser's, a callback used twice, an e-mail no user has; auto-creation with the default roles.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, ROOT_URL, type TestApp } from '../helpers/app.js';

let t: TestApp;
let server: Server;
let issuer: string;
/** Accounts the provider knows: sub → claims. */
const accounts = new Map<string, { email: string; email_verified: boolean; name: string }>();

beforeAll(async () => {
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [{
      client_id: 'mailroom',
      client_secret: 'mailroom-client-secret',
      redirect_uris: [`${ROOT_URL}/auth/oidc`],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    cookies: { keys: ['test-cookie-key-for-the-provider'] },
    findAccount: (_ctx, sub) => {
      const claims = accounts.get(sub);
      return claims === undefined ? undefined : { accountId: sub, claims: () => ({ sub, ...claims }) };
    },
  });
  server.on('request', provider.callback());
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

/** Turns OIDC on for the test provider. */
async function configure(extra: Record<string, unknown> = {}): Promise<void> {
  await t.deps.settings.update({
    'security.oidc': {
      enabled: true, provider_url: issuer, provider_name: 'Test IdP', client_id: 'mailroom', client_secret: 'mailroom-client-secret',
      auto_create_users: false, default_user_role_id: null, default_list_role_id: null, ...extra,
    },
  });
}

/** The cookie `name` from a Mailroom answer's Set-Cookie headers, or undefined. */
function cookieOf(res: { cookies: Array<{ name: string; value: string }> }, name: string): string | undefined {
  return res.cookies.find((c) => c.name === name)?.value;
}

/**
 * Signs `sub` in at the provider starting from `authUrl`, as a browser would: follows redirects, posts
 * the login form (any password: the provider's development form) and the consent form, and returns
 * the query string of the redirect back to Mailroom's callback.
 */
async function signInAtProvider(authUrl: string, sub: string): Promise<string> {
  const jar = new Map<string, string>();
  let url = authUrl;
  let method = 'GET';
  let body: string | undefined;
  for (let hops = 0; hops < 20; hops++) {
    if (url.startsWith(`${ROOT_URL}/auth/oidc`)) return url.slice(url.indexOf('?') + 1);
    const res = await fetch(url, {
      method,
      redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(body ? { body } : {}),
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    method = 'GET';
    body = undefined;
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      url = new URL(location, url).href;
      continue;
    }
    const html = await res.text();
    expect(res.status, html.slice(0, 500)).toBe(200);
    const action = /<form[^>]*action="([^"]+)"/u.exec(html)?.[1];
    expect(action, html.slice(0, 500)).toBeDefined();
    url = new URL(action!.replace(/&amp;/gu, '&'), url).href;
    method = 'POST';
    body = html.includes('name="prompt" value="login"')
      ? new URLSearchParams({ prompt: 'login', login: sub, password: 'anything' }).toString()
      : new URLSearchParams({ prompt: 'consent' }).toString();
  }
  throw new Error('too many redirects at the provider');
}

/** Starts a sign-in at Mailroom: the provider URL and the state cookie. */
async function start(next = '/admin/lists') {
  const res = await t.app.inject({ method: 'GET', url: `/auth/oidc?next=${encodeURIComponent(next)}` });
  expect(res.statusCode, res.body).toBe(302);
  const state = cookieOf(res, 'oidc_state');
  expect(state).toBeDefined();
  const setCookie = String(res.headers['set-cookie']);
  expect(setCookie).toMatch(/HttpOnly/u);
  expect(setCookie).toMatch(/SameSite=Lax/u);
  return { location: String(res.headers.location), state: state! };
}

const callback = (query: string, state?: string) =>
  t.app.inject({ method: 'GET', url: `/auth/oidc?${query}`, headers: state === undefined ? {} : { cookie: `oidc_state=${state}` } });

describe('OIDC sign-in', () => {
  it('answers 404 while security.oidc is off, and masks the client secret in the settings', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/auth/oidc' })).statusCode).toBe(404);
    await configure();
    const res = await t.api('GET', '/api/settings');
    expect(res.body.data['security.oidc'].client_secret).toBe('•'.repeat('mailroom-client-secret'.length));
    expect(res.body.data['security.oidc'].provider_url).toBe(issuer);
  });

  it('signs a known user in: provider round trip, a session cookie that works on the API, redirect to next', async () => {
    await configure();
    const [user] = await t.deps.db.sql<{ id: number }>(
      `INSERT INTO users (username, password_hash, type, user_role_id, email, name, password_login) VALUES ('ada', NULL, 'user', 1, 'Ada@Example.com', 'Ada', false) RETURNING id`);
    accounts.set('ada-sub', { email: 'ada@example.com', email_verified: true, name: 'Ada L.' });
    const { location, state } = await start('/admin/lists?page=2');
    const auth = new URL(location);
    expect(auth.origin).toBe(issuer);
    expect(auth.searchParams.get('redirect_uri')).toBe(`${ROOT_URL}/auth/oidc`);
    expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
    expect(auth.searchParams.get('state')).toBe(state);
    expect(auth.searchParams.get('nonce')).toBeTruthy();
    const [row] = await t.deps.db.sql<{ n: number }>('SELECT count(*)::int AS n FROM oidc_logins');
    expect(row!.n).toBeGreaterThan(0);

    const query = await signInAtProvider(location, 'ada-sub');
    expect(new URLSearchParams(query).get('code')).toBeTruthy();
    const res = await callback(query, state);
    expect(res.statusCode, res.body).toBe(302);
    expect(res.headers.location).toBe('/admin/lists?page=2');
    const session = cookieOf(res, 'session');
    expect(session).toBeDefined();
    expect(String(res.headers['set-cookie'])).toMatch(/session=[^;]+;.*HttpOnly/u);
    const lists = await t.app.inject({ method: 'GET', url: '/api/lists', headers: { cookie: `session=${session}` } });
    expect(lists.statusCode).toBe(200);
    const found = await t.deps.sessions.find(session!);
    expect(found?.principal.userId).toBe(user!.id);
    expect(found?.twofaPending).toBe(false);

    // The same callback again: its state was taken.
    expect((await callback(query, state)).statusCode).toBe(401);
  });

  it('refuses a callback whose state is not the browser\'s, or comes without the cookie', async () => {
    await configure();
    accounts.set('ada-sub', { email: 'ada@example.com', email_verified: true, name: 'Ada L.' });
    const victim = await start();
    const attacker = await start();
    const query = await signInAtProvider(attacker.location, 'ada-sub');
    const wrong = await callback(query, victim.state);
    expect(wrong.statusCode).toBe(401);
    expect(wrong.headers['content-type']).toMatch(/^text\/html/u);
    expect(wrong.body).toContain('invalid or expired sign-in request');
    expect(cookieOf(wrong, 'session')).toBeUndefined();
    expect((await callback(query)).statusCode).toBe(401);
    const forged = new URLSearchParams(query);
    forged.set('state', 'x'.repeat(43));
    expect((await callback(forged.toString(), 'x'.repeat(43))).statusCode).toBe(401);
  });

  it('refuses an e-mail no user has while auto-creation is off; creates the user with the default roles when on', async () => {
    accounts.set('grace-sub', { email: 'grace@example.com', email_verified: true, name: 'Grace H.' });
    await configure();
    let s = await start();
    const refused = await callback(await signInAtProvider(s.location, 'grace-sub'), s.state);
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('no user has the e-mail grace@example.com');

    const [role] = await t.deps.db.sql<{ id: number }>(`INSERT INTO roles (type, name, permissions) VALUES ('user', 'oidc default', '{lists:get_all}') RETURNING id`);
    await configure({ auto_create_users: true, default_user_role_id: role!.id });
    s = await start();
    const created = await callback(await signInAtProvider(s.location, 'grace-sub'), s.state);
    expect(created.statusCode, created.body).toBe(302);
    const [u] = await t.deps.db.sql<{ username: string; name: string; user_role_id: number; password_login: boolean; password_hash: string | null }>(
      `SELECT username, name, user_role_id, password_login, password_hash FROM users WHERE email = 'grace@example.com'`);
    expect(u).toEqual({ username: 'grace@example.com', name: 'Grace H.', user_role_id: role!.id, password_login: false, password_hash: null });
    const session = cookieOf(created, 'session')!;
    const found = await t.deps.sessions.find(session);
    expect(found?.principal).toMatchObject({ username: 'grace@example.com', userRoleId: role!.id, permissions: ['lists:get_all'] });
    const denied = await t.app.inject({ method: 'GET', url: '/api/settings', headers: { cookie: `session=${session}` } });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().message).toMatch(/^permission denied/);
  });

  it('refuses an address the provider has not verified', async () => {
    accounts.set('mallory-sub', { email: 'ada@example.com', email_verified: false, name: 'Not Ada' });
    await configure();
    const s = await start();
    const res = await callback(await signInAtProvider(s.location, 'mallory-sub'), s.state);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('not verified');
  });

  it('keeps a masked secret only while the provider stays the same', async () => {
    await configure();
    const masked = (await t.api('GET', '/api/settings')).body.data['security.oidc'];
    expect((await t.api('PUT', '/api/settings', { 'security.oidc': masked })).status).toBe(200);
    const s = await start();
    expect(s.location).toContain(issuer);
    const moved = await t.api('PUT', '/api/settings', { 'security.oidc': { ...masked, provider_url: 'https://idp.example.com' } });
    expect(moved.status).toBe(400);
    expect(moved.body.message).toMatch(/^security\.oidc\.client_secret: must be sent again/);
    const plain = await t.api('PUT', '/api/settings', { 'security.oidc': { ...masked, provider_url: 'http://idp.example.com', client_secret: 'x' } });
    expect(plain.status).toBe(400);
    expect(plain.body.message).toMatch(/https/);
  });
});
