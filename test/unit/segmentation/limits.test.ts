/**
 * Size, depth and pattern limits (limits.ts, patterns.ts): the server profile only bounds size;
 * the embedded (PGlite) profile, which has no statement timeout to fall back on, also bounds
 * pattern matching.
 */
import { describe, expect, it } from 'vitest';
import {
  compileSubscriberQuery, EMBEDDED_LIMITS, limitsForStore, SERVER_LIMITS, type GuardLimits,
} from '../../../src/segmentation/index.js';

const compile = (q: string, limits: GuardLimits = SERVER_LIMITS) => compileSubscriberQuery(q, { limits });
const short = (q: string): string => (q.length > 70 ? `${q.slice(0, 67)}…` : q);

describe('server limits', () => {
  it('refuses text longer than 10,000 characters', async () => {
    const q = 'subscribers.id = 1 OR '.repeat(500) + 'true';
    await expect(compile(q)).rejects.toThrow(/too long \(\d+ characters; at most 10000\)/);
  });

  it('accepts a long but ordinary IN list just under the limit', async () => {
    const ids = Array.from({ length: 1800 }, (_, i) => i + 1).join(',');
    const q = `subscribers.id IN (${ids})`;
    expect(q.length).toBeLessThan(10_000);
    expect(await compile(q)).not.toBeNull();
  });

  it('refuses a left-deep arithmetic chain deeper than 100 levels', async () => {
    await expect(compile(`${'1+'.repeat(150)}1 > 0`)).rejects.toThrow('nested too deeply (more than 100 levels)');
  });

  it('refuses, without crashing, the deepest chain that fits in 10,000 characters', async () => {
    await expect(compile(`${'1+'.repeat(4_990)}1 > 0`)).rejects.toThrow('nested too deeply');
    expect(await compile('subscribers.id = 1')).not.toBeNull(); // the parser still works afterwards
  });

  it('accepts thousands of redundant parentheses (they add no nodes)', async () => {
    expect(await compile(`${'('.repeat(2_000)}true${')'.repeat(2_000)}`)).not.toBeNull();
  });

  it('refuses more nodes than the limit', async () => {
    const tiny = { ...SERVER_LIMITS, maxNodes: 10 };
    await expect(compile('subscribers.id IN (1,2,3,4,5,6,7,8,9,10)', tiny)).rejects.toThrow('too large (more than 10 parts)');
  });

  it('refuses more than 100 pattern matches', async () => {
    const q = Array.from({ length: 101 }, () => "'abc' LIKE 'a%'").join(' OR ');
    await expect(compile(q)).rejects.toThrow('too many pattern and containment matches (at most 100)');
  });

  it('refuses regex back-references and lookaround here too (same rule on both stores)', async () => {
    await expect(compile("subscribers.name ~ '(a)\\1'")).rejects.toThrow('back-references ("\\1")');
    await expect(compile("subscribers.name ~ '(?=a)'")).rejects.toThrow('lookahead and lookbehind');
  });

  it('accepts what is only quadratic without a timeout: unanchored regexp_match, big repetitions', async () => {
    expect(await compile("(regexp_match(subscribers.email, '@(.*)$'))[1] = 'x'")).not.toBeNull();
    expect(await compile("subscribers.name ~ '(?:a?){100}a{100}z'")).not.toBeNull();
    expect(await compile("substring(subscribers.name from '^(a*?)(a*?)b') = 'x'")).not.toBeNull();
  });

  it('accepts a pattern budget of exactly 1,000 characters', async () => {
    expect(await compile(`subscribers.name LIKE '${'a'.repeat(1_000)}'`)).not.toBeNull();
  });
});

describe('embedded (PGlite) limits', () => {
  const cases: ReadonlyArray<[string, string]> = [
    [`subscribers.name LIKE '${'a'.repeat(101)}'`, 'pattern is too long (101 characters; at most 100)'],
    [`subscribers.name SIMILAR TO '${'a'.repeat(101)}'`, 'pattern is too long'],
    [`subscribers.name ~ '${'a'.repeat(101)}'`, 'pattern is too long'],
    ['subscribers.email LIKE subscribers.name', 'patterns must be constants'],
    ["subscribers.email ILIKE lower('A%')", 'a pattern must be a string literal'],
    ["subscribers.name ~ '(a)\\1'", 'back-references'],
    ["regexp_like(subscribers.name, '(a*)\\1')", 'back-references'],
    ["(regexp_match(subscribers.email, '@(.*)$'))[1] = 'x'", 'need a pattern anchored at the start with ^'],
    ["substring(subscribers.email from '(a.*c|b)') = 'x'", 'anchored at the start with ^'],
    ["substring(subscribers.email from '^a|b') = 'x'", 'anchored at the start with ^'],
    ["regexp_match(subscribers.email, '^abc', 'n') IS NULL", 'anchored at the start with ^'],
    ["substring(subscribers.name from '^(a*?)(a*?)b') = 'x'", 'non-greedy quantifiers ("*?") are not allowed in regexp_match and substring'],
    ["substring(subscribers.name similar 'a#\"b+#\"c' escape '#') = 'x'", 'non-greedy quantifiers ("#\"")'],
    ["subscribers.name ~ '(?:a?){200}a{200}z'", 'at most 256 parts once its repetitions ({m,n}) are expanded (this one has 401)'],
    ["subscribers.name ~ '((a{1,20}){1,20}){1,20}'", '(this one has 8000)'],
    ["subscribers.name LIKE ANY(ARRAY['a%'])", 'pattern matching with ANY/ALL is not allowed'],
    ['regexp_match(subscribers.name, subscribers.email) IS NULL', 'patterns must be constants'],
    ["regexp_like(subscribers.name, 'a', subscribers.email)", 'flags and positions must be constants'],
    ["substring(subscribers.name, subscribers.email) = 'x'", 'patterns must be constants'],
    ["regexp_like(subscribers.name, 'a' || 'b')", 'patterns must be string literals'],
    [Array.from({ length: 3 }, () => `subscribers.name LIKE '${'a'.repeat(100)}'`).join(' OR ') + ` OR subscribers.name LIKE '${'a'.repeat(101)}'`, 'patterns are too long in total (401 characters; at most 400)'],
    ["concat(subscribers.name, subscribers.email, subscribers.name) LIKE 'a'", 'at most 2 columns'],
    [Array.from({ length: 5 }, () => "subscribers.name LIKE 'a%'").join(' OR '), 'too many pattern and containment matches (at most 4)'],
    [`subscribers.id = 1 OR ${'subscribers.id = 2 OR '.repeat(100)}true`, 'characters; at most 2000)'],
    [`${'1+'.repeat(40)}1 > 0`, 'nested too deeply (more than 32 levels)'],
  ];
  it.each(cases.map(([q, m]) => [short(q), q, m]))('refuses %s', async (_label, q, message) => {
    await expect(compile(q, EMBEDDED_LIMITS)).rejects.toThrow(message);
  });

  const fine = [
    `subscribers.name LIKE '${'a'.repeat(100)}'`,
    "subscribers.name ~ '^[a-z]+\\d*$'",
    "substring(subscribers.name from 1 for 2) = 'ab'",
    "regexp_like(subscribers.name, 'anon', 'i')",
    "(regexp_match(subscribers.email, '^[^@]*@(.*)$'))[1] = 'example.com'",
    "substring(subscribers.email from '\\A[^@]+') = 'ann'",
    "subscribers.name SIMILAR TO '%(Anon|anon)%'",
    "subscribers.name ~ '(a+)+z|(a|aa)*z|(.*a){20}z'",
    "subscribers.name ~ '^\\d{3}-\\d{3}-\\d{4}$'",
    "subscribers.attribs->>'city' = 'Berlin' AND subscribers.email ILIKE '%@example.com'",
  ];
  it.each(fine)('accepts %j', async (q) => {
    expect(await compile(q, EMBEDDED_LIMITS)).not.toBeNull();
  });

  it('is what limitsForStore picks for PGlite', () => {
    expect(limitsForStore('pglite')).toBe(EMBEDDED_LIMITS);
    expect(limitsForStore('postgres')).toBe(SERVER_LIMITS);
  });
});
