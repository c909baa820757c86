/**
 * Empty bodies sent with `Content-Type: application/json` (issue 15 item 1): three of four listmonk
 * clients send that header on every request, so their DELETEs and `PUT /api/templates/:id/default`
 * failed with `body: malformed JSON`. An empty body — Content-Length 0, no body at all, or a chunked
 * body of zero bytes — is "no fields" on every route; a body that is present and malformed stays a
 * 400. Requests are written on a real socket, byte for byte as those clients send them.
 */
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH, buildTestApp, type TestApp } from '../helpers/app.js';
import { concreteUrl } from '../helpers/routes.js';

let t: TestApp;
let port: number;

beforeAll(async () => {
  t = await buildTestApp({ env: { MAILROOM_API_ONLY: 'true' } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(async () => t?.close());

/** How the (empty) body is framed. */
type Framing = 'content-length-0' | 'no-body' | 'chunked-empty';
const FRAMINGS: Framing[] = ['content-length-0', 'no-body', 'chunked-empty'];

/** Sends one request on its own connection; answers the status and the body text. */
function send(method: string, url: string, framing: Framing | { body: string }): Promise<{ status: number; body: string }> {
  const head = [`${method} ${url} HTTP/1.1`, 'Host: mailroom.test', `Authorization: ${AUTH}`, 'Content-Type: application/json', 'Accept: application/json', 'User-Agent: listmonk-client/1.0', 'Connection: close'];
  let tail = '';
  if (typeof framing === 'object') {
    head.push(`Content-Length: ${Buffer.byteLength(framing.body)}`);
    tail = framing.body;
  } else if (framing === 'content-length-0') head.push('Content-Length: 0');
  else if (framing === 'chunked-empty') {
    head.push('Transfer-Encoding: chunked');
    tail = '0\r\n\r\n';
  }
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const m = /^HTTP\/1\.1 (\d{3})/u.exec(raw);
      if (m === null) return reject(new Error(`no answer to ${method} ${url} (${JSON.stringify(framing)})`));
      resolve({ status: Number(m[1]), body: raw.slice(raw.indexOf('\r\n\r\n') + 4) });
    });
    socket.write(`${head.join('\r\n')}\r\n\r\n${tail}`);
  });
}

describe('an empty JSON body on every route', () => {
  it('is never a 400 "malformed" and never a 5xx, in each framing', async () => {
    // Something for the ids in the paths to name.
    const list = (await t.api('POST', '/api/lists', { name: 'Sweep', type: 'public', optin: 'single' })).body.data;
    await t.api('POST', '/api/subscribers', { email: 'sweep@example.org', lists: [list.id] });
    await t.api('POST', '/api/campaigns', { name: 'Sweep', subject: 'Sweep', lists: [list.id], body: '<p>x</p>' });
    const routes = t.app.routeTable;
    expect(routes.length).toBeGreaterThan(50);
    const failures: string[] = [];
    for (const route of routes) {
      for (const framing of FRAMINGS) {
        const url = concreteUrl(route);
        const res = await send(route.method, url, framing);
        if (res.status >= 500 || /malformed/iu.test(res.body)) failures.push(`${route.method} ${url} [${framing}] → ${res.status} ${res.body.slice(0, 150)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('what listmonk clients do with it', () => {
  it('DELETE a subscriber, a list, a template and a scheduled campaign; PUT a default template', async () => {
    for (const framing of FRAMINGS) {
      const list = (await t.api('POST', '/api/lists', { name: `Gone ${framing}`, type: 'private', optin: 'single' })).body.data;
      const sub = (await t.api('POST', '/api/subscribers', { email: `gone-${framing}@example.org` })).body.data;
      const tpl = (await t.api('POST', '/api/templates', { name: `T ${framing}`, type: 'campaign', body: '<p>{{ template "content" . }}</p>' })).body.data;
      const other = (await t.api('POST', '/api/templates', { name: `D ${framing}`, type: 'campaign', body: '<div>{{ template "content" . }}</div>' })).body.data;
      const camp = (await t.api('POST', '/api/campaigns', { name: 'c', subject: 's', lists: [list.id], body: '<p>x</p>', send_at: new Date(Date.now() + 86_400_000).toISOString() })).body.data;
      expect((await t.api('PUT', `/api/campaigns/${camp.id}/status`, { status: 'scheduled' })).status).toBe(200);

      const setDefault = await send('PUT', `/api/templates/${other.id}/default`, framing);
      expect(setDefault.status, setDefault.body).toBe(200);
      expect(JSON.parse(setDefault.body).data.is_default).toBe(true);
      for (const url of [`/api/subscribers/${sub.id}`, `/api/lists/${list.id}`, `/api/templates/${tpl.id}`, `/api/campaigns/${camp.id}`]) {
        const res = await send('DELETE', url, framing);
        expect(res.status, `${url} [${framing}]: ${res.body}`).toBe(200);
        expect(JSON.parse(res.body)).toEqual({ data: true });
        expect((await t.api('GET', url)).status, url).toBe(404);
      }
    }
  });

  it('a route that needs fields names the first missing one', async () => {
    for (const framing of FRAMINGS) {
      const res = await send('POST', '/api/lists', framing);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toEqual({ message: 'name: is required' });
    }
  });

  it('whitespace alone is no body too; a present, malformed body stays a 400', async () => {
    const blank = await send('PUT', '/api/settings', { body: ' \r\n\t' });
    expect(blank.status, blank.body).toBe(200);
    for (const body of ['{', 'null,', '{"name": }', "{'name': 'x'}", 'nul']) {
      const res = await send('POST', '/api/lists', { body });
      expect(res.status, body).toBe(400);
      expect(JSON.parse(res.body).message, body).toMatch(/^body: malformed JSON/u);
    }
  });
});
