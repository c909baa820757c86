/**
 * Seeded mutation fuzzing: splice SQL fragments into accepted expressions at random places. Every
 * outcome must be a compiled expression or a QueryRefusedError (never a crash, which would be a 500),
 * and every compiled expression must stay inside its parentheses when embedded.
 */
import { parse } from 'libpg-query';
import { describe, expect, it } from 'vitest';
import {
  compileSubscriberQuery, embedQuery, QueryRefusedError, type CompiledQuery,
} from '../../../src/segmentation/index.js';
import { ACCEPTED } from './corpus-accepted.js';

const FRAGMENTS = [
  ')', '(', "'", '"', ';', '--', '/*', '*/', '$$', '$1', '\\', "E'", "U&'", ' OR 1=1 ', ' UNION SELECT 1 ',
  ' FROM users ', '(SELECT 1)', 'pg_sleep(1)', '::regclass', '::int', ' AND ', ' NOT ', ',', '[1]', '.',
  'subscribers.', 'users.', ' IS NULL', ' LIKE ', "'%'", '->>', '@>', '?', 'ARRAY[', ']', ' CASE ',
  ' END ', '\n', '\u0000', 'é', '🎉', '%query%', ' OPERATOR(pg_catalog.=) ', ' COLLATE "C" ',
];

/** Deterministic PRNG (mulberry32) so failures reproduce. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function mutate(text: string, next: () => number): string {
  let out = text;
  const edits = 1 + Math.floor(next() * 3);
  for (let i = 0; i < edits; i += 1) {
    const at = Math.floor(next() * (out.length + 1));
    const fragment = FRAGMENTS[Math.floor(next() * FRAGMENTS.length)] ?? '';
    out = next() < 0.2 ? out.slice(0, at) + out.slice(at + 1) : out.slice(0, at) + fragment + out.slice(at);
  }
  return out;
}

describe('mutation fuzzing', () => {
  it('only ever compiles or refuses, and compiled SQL stays inside its wrapper', async () => {
    const next = rng(20261121);
    let compiled = 0;
    for (let i = 0; i < 3_000; i += 1) {
      const base = ACCEPTED[Math.floor(next() * ACCEPTED.length)];
      const q = mutate(base?.q ?? 'true', next);
      let outcome: CompiledQuery | null;
      try {
        outcome = await compileSubscriberQuery(q, { listFilter: next() < 0.5 });
      } catch (err) {
        expect(err, q).toBeInstanceOf(QueryRefusedError);
        continue;
      }
      if (outcome === null) continue;
      compiled += 1;
      const { stmts } = await parse(embedQuery('SELECT 1 FROM subscribers WHERE %query% ORDER BY 1', outcome));
      expect(stmts, q).toHaveLength(1);
    }
    expect(compiled).toBeGreaterThan(100); // the fuzzer does reach the emitter
  });
});
