/**
 * Forward-only migrations: plain SQL files `migrations/NNNN_name.sql`, applied in order at start-up,
 * each in its own transaction, and recorded in `schema_migrations`. Several instances starting at once
 * on one PostgreSQL serialise on an advisory lock, so each migration runs exactly once.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.js';

/** Folder of migration files: `<project>/migrations`, two levels above both src/db and dist/db. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));

const FILE_NAME = /^(\d{4})_[a-z0-9_]+\.sql$/u;
// Any fixed 64-bit number; it only has to be the same in every Mailroom instance.
const MIGRATION_LOCK_KEY = 7_305_861_990_112;

/** One migration file. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Reads the migration files in version order. Throws on a malformed name or a duplicate version. */
export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const out: Migration[] = [];
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.sql')) continue;
    const m = FILE_NAME.exec(file);
    if (!m) throw new Error(`migration file name "${file}" must look like 0001_name.sql`);
    const version = Number(m[1]);
    if (out.some((x) => x.version === version)) throw new Error(`migration version ${version} appears twice`);
    out.push({ version, name: file, sql: readFileSync(`${dir}/${file}`, 'utf8') });
  }
  return out;
}

/** Applies every migration not yet recorded. Returns the names applied, in order. */
export async function migrate(db: Db, migrations = readMigrations()): Promise<string[]> {
  await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const applied: string[] = [];
  for (const m of migrations) {
    const done = await db.tx(async (q) => {
      await q.sql('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      const rows = await q.sql('SELECT 1 FROM schema_migrations WHERE version = $1', [m.version]);
      if (rows.length > 0) return false;
      for (const statement of splitStatements(m.sql)) await q.sql(statement);
      await q.sql('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      return true;
    });
    if (done) applied.push(m.name);
  }
  return applied;
}

/**
 * Splits a migration script into statements at top-level `;`, respecting quotes, comments and
 * dollar-quoted function bodies, so each runs through the same single-statement path on both stores.
 */
export function splitStatements(script: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  while (i < script.length) {
    const ch = script[i];
    const next = script[i + 1];
    if (ch === "'" || ch === '"') {
      i = script.indexOf(ch, i + 1);
      if (i === -1) i = script.length;
      i += 1;
    } else if (ch === '-' && next === '-') {
      const end = script.indexOf('\n', i);
      i = end === -1 ? script.length : end;
    } else if (ch === '/' && next === '*') {
      const end = script.indexOf('*/', i + 2);
      i = end === -1 ? script.length : end + 2;
    } else if (ch === '$') {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/u.exec(script.slice(i));
      if (tag) {
        const end = script.indexOf(tag[0], i + tag[0].length);
        i = end === -1 ? script.length : end + tag[0].length;
      } else i += 1;
    } else if (ch === ';') {
      out.push(script.slice(start, i));
      i += 1;
      start = i;
    } else i += 1;
  }
  out.push(script.slice(start));
  // Drop chunks that hold only comments (e.g. the text after the last statement).
  return out.map((s) => s.trim()).filter((s) => s.replace(/--[^\n]*/gu, '').trim() !== '');
}
