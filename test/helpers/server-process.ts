/**
 * Runs Mailroom as a real operating-system process (`node --import tsx src/main.ts`), for tests that kill
 * it (SIGKILL), restart it, or run several instances on one database.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { AUTH, TEST_PASSWORD, TEST_USER } from './app.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** A running Mailroom process. */
export interface ServerProcess {
  port: number;
  child: ChildProcess;
  /** Everything the process printed (stdout + stderr). */
  output(): string;
  /** JSON API call with the test credentials. */
  api<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** Sends a signal and waits for the process to exit. */
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

/** Starts a process with `env` (merged over sensible test defaults) and waits until /health answers. */
export async function startServer(env: Record<string, string>, timeoutMs = 60_000): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      PORT: String(port),
      HOST: '127.0.0.1',
      MAILROOM_ADMIN_USER: TEST_USER,
      MAILROOM_ADMIN_PASSWORD: TEST_PASSWORD,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  const server: ServerProcess = {
    port,
    child,
    output: () => out,
    async api(method, path, body) {
      const res = await fetch(base + path, {
        method,
        headers: { authorization: AUTH, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      return { status: res.status, body: parsed as never };
    },
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${out}`);
    try {
      const res = await fetch(`${base}/health`);
      if (res.status === 200) return server;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await server.kill('SIGKILL');
  throw new Error(`server did not start within ${timeoutMs} ms:\n${out}`);
}

/**
 * Polls `GET /health` of `server` every 100 ms until it answers something other than 200, for at most
 * `timeoutMs`; returns the last answer's status and message (`{"message": "unhealthy"}` when 503: the
 * public check gives no reasons; they are in the server log and behind credentials at /api/health).
 */
export async function waitUntilUnhealthy(server: ServerProcess, timeoutMs = 5000): Promise<{ status: number; message: string | null }> {
  const url = `http://127.0.0.1:${server.port}/health`;
  const until = Date.now() + timeoutMs;
  let res = await fetch(url);
  while (res.status === 200 && Date.now() < until) {
    await res.arrayBuffer();
    await new Promise((r) => setTimeout(r, 100));
    res = await fetch(url);
  }
  const body = (await res.json().catch(() => null)) as { message?: string } | null;
  return { status: res.status, message: body?.message ?? null };
}
