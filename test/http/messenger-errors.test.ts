/**
 * Issue 14 finding 10: an administrator can point the SMTP server at any host and port (relaying through
 * localhost or a private host is legitimate), so the answers must not tell which internal ports answer.
 * A port that refuses, one that accepts and stays silent, one that speaks another protocol, and a
 * relay refusing connections all give the same message in tx and test-send answers; the details go
 * to the server log only.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

let t: TestApp;
let relay: SmtpSink;
const servers: net.Server[] = [];
let sampleTx: number;

/** A TCP server on a random port that does `onSocket` with each connection. */
async function tcp(onSocket: (s: net.Socket) => void): Promise<number> {
  const server = net.createServer(onSocket);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return (server.address() as AddressInfo).port;
}

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  relay = await startSmtpSink();
  relay.refuseConnections = true;
  t = await buildTestApp({});
  const templates = (await t.api('GET', '/api/templates')).body.data as Array<{ id: number; name: string }>;
  sampleTx = templates.find((x) => x.name === 'Sample transactional template')!.id;
  expect((await t.api('POST', '/api/subscribers', { email: 'ann@example.org', name: 'Ann' })).status).toBe(200);
});
afterAll(async () => {
  await t?.close();
  await relay?.close();
  for (const s of servers) s.close();
});

async function pointSmtpAt(port: number): Promise<void> {
  const smtp = (await t.api('GET', '/api/settings')).body.data.smtp;
  const res = await t.api('PUT', '/api/settings', { smtp: [{ ...smtp[0], host: '127.0.0.1', port, wait_timeout: '500ms', tls_type: 'none' }] });
  expect(res.status).toBe(200);
}

describe('messenger connection errors in API answers', () => {
  it('are one message for refused, silent, non-SMTP and refusing servers, naming no port', async () => {
    const targets = {
      refused: await closedPort(),
      silent: await tcp(() => undefined),
      redis: await tcp((s) => s.end('-ERR unknown command\r\n')),
      relayDown: relay.port,
    };
    const answers: Record<string, string> = {};
    const tests: Record<string, string> = {};
    const campaign = (await t.api('POST', '/api/campaigns', { name: 'C', subject: 'S', lists: [(await t.api('POST', '/api/lists', { name: 'L' })).body.data.id], body: 'x' })).body.data;
    for (const [name, port] of Object.entries(targets)) {
      await pointSmtpAt(port);
      const tx = await t.api('POST', '/api/tx', { subscriber_email: 'ann@example.org', template_id: sampleTx });
      expect(tx.status, name).toBe(503);
      answers[name] = tx.body.message;
      const test = await t.api('POST', `/api/campaigns/${campaign.id}/test`, { subscribers: ['ann@example.org'] });
      expect(test.status, name).toBe(502);
      tests[name] = test.body.message;
      for (const text of [tx.body.message, test.body.message]) {
        expect(text).not.toContain(String(port));
        expect(text).not.toMatch(/ECONN|ETIMEDOUT|timeout|greeting|421|ERR/iu);
      }
    }
    expect(new Set(Object.values(answers))).toEqual(new Set(['subscriber_email: sent to 0 of 1 recipient; failed temporarily: ann@example.org (could not connect to the server or log in to it (details in the server log))']));
    expect(new Set(Object.values(tests))).toEqual(new Set(['subscribers: messenger "email" could not deliver the test to ann@example.org (could not connect to the server or log in to it (details in the server log))']));
  });
});
