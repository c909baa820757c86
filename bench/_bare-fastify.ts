/**
 * The baseline server of bench/http, in its own process like the Mailroom server it is compared with:
 * a bare Fastify app (the version Mailroom uses, no plugins, no logger) with one route,
 * `GET /bare`, answering a fixed JSON body. Listens on 127.0.0.1 on a free port and reports the port
 * over IPC (`{ port }`); exits on SIGTERM.
 *
 * Not a benchmark (the leading underscore keeps bench/run.ts from running it).
 */
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';

/** The fixed body of `GET /bare` (a subscriber-sized envelope would be larger; this is the floor). */
const BARE_BODY = { data: { id: 1, email: 'a@example.org' } };

const app = Fastify({ logger: false });
app.get('/bare', async () => BARE_BODY);
await app.listen({ port: 0, host: '127.0.0.1' });
const { port } = app.server.address() as AddressInfo;
if (process.send) process.send({ port });
else console.log(`bare Fastify on http://127.0.0.1:${port}/bare`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
