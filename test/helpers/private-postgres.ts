/**
 * A private PostgreSQL server for fault tests: its own cluster (initdb) in a temporary directory, on a
 * free port, run as the `postgres` OS user (PostgreSQL refuses to run as root). Tests may stop and start
 * it at will without disturbing the shared server other test files use.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './server-process.js';

/** The server binaries of the newest installed PostgreSQL. */
function binDir(): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(a) - Number(b));
  return `/usr/lib/postgresql/${versions[versions.length - 1]}/bin`;
}

/** True when this machine can run a private cluster (PostgreSQL binaries and a `postgres` user). */
export function canRunPrivatePostgres(): boolean {
  try {
    execFileSync('id', ['postgres'], { stdio: 'ignore' });
    return existsSync('/usr/lib/postgresql') && readdirSync('/usr/lib/postgresql').length > 0;
  } catch {
    return false;
  }
}

/** A running private server. */
export interface PrivatePostgres {
  url: string;
  port: number;
  stop(): void;
  start(): void;
  destroy(): void;
}

function asPostgres(cmd: string, args: string[]): void {
  const run = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  execFileSync(run[0] as string, run[1] as string[], { stdio: 'pipe', timeout: 60_000 });
}

/** Creates and starts a cluster with trust authentication and a database `mailroom`. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-pg-'));
  chmodSync(dir, 0o700);
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  if (process.getuid?.() === 0) chownSync(dir, uid, gid);
  const data = join(dir, 'data');
  const port = await freePort();
  const bin = binDir();
  asPostgres(`${bin}/initdb`, ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  const server: PrivatePostgres = {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/mailroom`,
    start: () => asPostgres(`${bin}/pg_ctl`, ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']),
    stop: () => asPostgres(`${bin}/pg_ctl`, ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']),
    destroy: () => {
      try {
        server.stop();
      } catch {
        /* already stopped */
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  server.start();
  asPostgres(`${bin}/createdb`, ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', 'mailroom']);
  return server;
}
