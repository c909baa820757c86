/**
 * The guard against its two corpora: every ordinary expression compiles (and re-parses to the same
 * tree, checked inside compileSubscriberQuery), every injection attempt is refused with a 400 that
 * says what was refused.
 */
import { describe, expect, it } from 'vitest';
import { compileSubscriberQuery, QueryRefusedError } from '../../../src/segmentation/index.js';
import { ACCEPTED } from './corpus-accepted.js';
import { REFUSED } from './corpus-refused.js';

describe('accepted expressions', () => {
  it.each(ACCEPTED.map((c) => [c.q, c] as const))('accepts %j', async (_q, c) => {
    const compiled = await compileSubscriberQuery(c.q, { listFilter: c.lists !== undefined });
    expect(compiled).not.toBeNull();
    if (c.sql !== undefined) expect(compiled?.sql).toBe(c.sql);
    expect(compiled?.usesSubscriberLists).toBe(/subscriber_lists|list_id|subscriber_id/.test(c.q));
  });
});

describe('injection corpus', () => {
  it.each(REFUSED.map((c) => [c.q, c] as const))('refuses %j', async (_q, c) => {
    const err = await compileSubscriberQuery(c.q, { listFilter: c.lists === true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(QueryRefusedError);
    const refused = err as QueryRefusedError;
    expect(refused.statusCode).toBe(400);
    expect(refused.field).toBe('query');
    expect(refused.reason).toBe('refused');
    expect(refused.message.startsWith('query: ')).toBe(true);
    if (typeof c.message === 'string') expect(refused.message).toContain(c.message);
    else expect(refused.message).toMatch(c.message);
  });
});

describe('normalisation (listmonk formatSQLExp)', () => {
  it('returns null for empty or whitespace-only text and a lone semicolon', async () => {
    expect(await compileSubscriberQuery('')).toBeNull();
    expect(await compileSubscriberQuery('  \n\t ')).toBeNull();
    expect(await compileSubscriberQuery(' ; ')).toBeNull();
  });

  it('echoes the trimmed text without one trailing semicolon', async () => {
    const c = await compileSubscriberQuery("  subscribers.id = 1 ;\n");
    expect(c?.text).toBe('subscribers.id = 1 ');
  });

  it('removes only one trailing semicolon', async () => {
    await expect(compileSubscriberQuery('subscribers.id = 1;;')).rejects.toThrow(/statement separator/);
  });

  it('refuses a non-string value', async () => {
    await expect(compileSubscriberQuery(42 as unknown as string)).rejects.toThrow('query: the expression must be a string');
  });
});
