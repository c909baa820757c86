/**
 * The API user: created or updated at start from MAILROOM_ADMIN_USER / MAILROOM_ADMIN_PASSWORD, and
 * checked on every authenticated request (issue "Foundation" §2, §5). Passwords are stored as scrypt
 * hashes; verified credentials are remembered for a minute so a burst of API calls costs one scrypt.
 */
import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { Db } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';
import type { Principal } from '../../http/access.js';
import { principalRowByUsername, toPrincipal } from './principal.js';

const Q = loadQueries(new URL('./queries.sql', import.meta.url), [
  'user-upsert-password',
  'user-insert-if-absent',
]);

// scrypt cost: N=2^15, r=8, p=1 (~30-60 ms, 32 MiB) — OWASP's recommended minimum is N=2^17 with r=8;
// 2^15 keeps first-request latency reasonable on small machines while still costing an attacker.
const SCRYPT: ScryptOptions = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_BYTES = 32;
const CACHE_MS = 60_000;

function scrypt(password: string, salt: Buffer, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCb(password, salt, KEY_BYTES, opts, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** Hashes a password as `scrypt$N$r$p$salt$hash` (base64 parts). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Checks a password against a stored hash in constant time. False for malformed hashes. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const opts = { N: Number(n), r: Number(r), p: Number(p), maxmem: SCRYPT.maxmem };
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), opts);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A generated password: 24 characters from a 62-letter alphabet (~143 bits). */
export function generatePassword(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
  const bytes = randomBytes(48);
  let out = '';
  for (const b of bytes) {
    if (b < alphabet.length * 4) out += alphabet[b % alphabet.length];
    if (out.length === 24) break;
  }
  return out;
}

/**
 * Authenticates API credentials (listmonk reference §3.1): an API user's token (`sha256$<hex>` stored,
 * compared in constant time), or the legacy MAILROOM_ADMIN_USER password (scrypt; the Super Admin, as
 * listmonk keeps its TOML admin). A login user's password is not accepted on the API, as in listmonk.
 * The legacy admin's successful checks are remembered for a minute (its principal cannot change while
 * the process runs: the environment manages it); everything else is read from the database every time.
 */
export class UserService {
  private readonly verified = new Map<string, { until: number; principal: Principal }>();
  // A hash to burn the same scrypt time on for unknown users, so timing does not reveal user names.
  private dummyHash: Promise<string> | null = null;

  constructor(private readonly db: Db) {}

  /**
   * Creates or updates the legacy API user at start-up. With a password, stores it; without one,
   * creates the user with a generated password on first start and returns that password (to be printed
   * once); returns null when nothing was generated.
   */
  async ensureAdmin(username: string, password: string | null): Promise<string | null> {
    if (password !== null) {
      await this.db.run(Q['user-upsert-password'], { username, password_hash: await hashPassword(password) });
      return null;
    }
    const generated = generatePassword();
    const rows = await this.db.run(Q['user-insert-if-absent'], { username, password_hash: await hashPassword(generated) });
    return rows.length > 0 ? generated : null;
  }

  /** Checks in flight, by cache key: concurrent requests with the same credentials share one hash. */
  private readonly pending = new Map<string, Promise<Principal | null>>();

  /** True when `username`/`secret` authenticate (see {@link authenticate}). */
  async verify(username: string, secret: string): Promise<boolean> {
    return (await this.authenticate(username, secret)) !== null;
  }

  /**
   * The principal for API credentials, or null when they are wrong. A successful legacy check is cached
   * for CACHE_MS and refreshed in the background during its last 10 s, and concurrent checks of the
   * same credentials share one scrypt hash: otherwise every connection of a busy client would hash at
   * once when the entry expires (100 connections × ~100 ms of CPU queued on libuv's 4 threads).
   */
  async authenticate(username: string, secret: string): Promise<Principal | null> {
    const key = createHash('sha256').update(`${username}\u0000${secret}`).digest('base64');
    const hit = this.verified.get(key);
    const now = Date.now();
    if (hit !== undefined && hit.until > now) {
      if (hit.until - now < 10_000 && !this.pending.has(key)) void this.checkOnce(key, username, secret).catch(() => undefined);
      return hit.principal;
    }
    return this.checkOnce(key, username, secret);
  }

  /** Forgets cached legacy checks (after the legacy user changes). */
  forget(): void {
    this.verified.clear();
  }

  /** One check per key at a time: concurrent callers share the check in flight. */
  private checkOnce(key: string, username: string, secret: string): Promise<Principal | null> {
    let p = this.pending.get(key);
    if (p === undefined) {
      p = this.check(key, username, secret).finally(() => this.pending.delete(key));
      this.pending.set(key, p);
    }
    return p;
  }

  private async check(key: string, username: string, secret: string): Promise<Principal | null> {
    const row = await principalRowByUsername(this.db, username);
    if (row !== null && row.type === 'api' && row.password_hash?.startsWith('sha256$')) {
      this.verified.delete(key);
      return tokenMatches(secret, row.password_hash) ? toPrincipal(row, 'token') : null;
    }
    if (row === null || !row.legacy || row.password_hash === null) {
      this.dummyHash ??= hashPassword(generatePassword());
      await verifyPassword(secret, await this.dummyHash);
      this.verified.delete(key);
      return null;
    }
    const ok = await verifyPassword(secret, row.password_hash);
    if (!ok) {
      this.verified.delete(key);
      return null;
    }
    const principal = toPrincipal(row, 'legacy');
    if (this.verified.size > 1000) this.verified.clear();
    this.verified.set(key, { until: Date.now() + CACHE_MS, principal });
    return principal;
  }
}

/** An API token's stored form: `sha256$` and the hex SHA-256 of the token (listmonk reference §3.1). */
export function hashToken(token: string): string {
  return `sha256$${createHash('sha256').update(token, 'utf8').digest('hex')}`;
}

/** True when `token` hashes to `stored` (`sha256$<hex>`), compared in constant time. */
export function tokenMatches(token: string, stored: string): boolean {
  const a = Buffer.from(hashToken(token));
  const b = Buffer.from(stored);
  return a.length === b.length && timingSafeEqual(a, b);
}
