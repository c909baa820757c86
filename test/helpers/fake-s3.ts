/**
 * A tiny stand-in for an S3-compatible service (path-style requests, as MinIO answers them) on Node's
 * http module: PUT stores an object, GET returns it, DELETE removes it, and a missing key is S3's
 * `NoSuchKey` XML error. It checks nothing about signatures beyond recording the Authorization header;
 * it exists to exercise Mailroom's S3 store through the real AWS SDK, not to emulate S3.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A stored object. */
export interface FakeObject {
  body: Buffer;
  contentType: string;
}

/** A running fake. */
export interface FakeS3 {
  url: string;
  /** Objects by `bucket/key`. */
  objects: Map<string, FakeObject>;
  /** Every request seen: method, path and Authorization header. */
  requests: Array<{ method: string; path: string; authorization: string }>;
  /** When set, every request answers this HTTP status with an S3 error body. */
  failWith: number | null;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const errorXml = (code: string) => `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`;

/** Starts the fake on a random local port. */
export async function startFakeS3(): Promise<FakeS3> {
  const fake = { objects: new Map<string, FakeObject>(), requests: [], failWith: null } as unknown as FakeS3;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\//u, '');
      fake.requests.push({ method: req.method ?? '', path, authorization: String(req.headers.authorization ?? '') });
      const body = await readBody(req);
      if (fake.failWith !== null) {
        res.writeHead(fake.failWith, { 'content-type': 'application/xml' }).end(errorXml('InternalError'));
      } else if (req.method === 'PUT') {
        fake.objects.set(path, { body, contentType: String(req.headers['content-type'] ?? '') });
        res.writeHead(200, { etag: '"fake"' }).end();
      } else if (req.method === 'GET') {
        const obj = fake.objects.get(path);
        if (obj === undefined) res.writeHead(404, { 'content-type': 'application/xml' }).end(errorXml('NoSuchKey'));
        else res.writeHead(200, { 'content-type': obj.contentType, 'content-length': obj.body.length }).end(obj.body);
      } else if (req.method === 'DELETE') {
        fake.objects.delete(path);
        res.writeHead(204).end();
      } else {
        res.writeHead(405).end();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return fake;
}
