/**
 * The postback address guard: which addresses are refused, and that the refusal happens on resolved
 * addresses (a name resolving to loopback is refused) and for IP literals.
 */
import { describe, expect, it } from 'vitest';
import { checkLiteralHost, guardedLookup, refusedRange } from '../../src/mail/address-guard.js';

describe('refusedRange', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['0.0.0.0', 'unspecified'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['::1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
  ])('refuses %s (%s)', (address, range) => expect(refusedRange(address)).toBe(range));

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])('allows public %s', (address) => expect(refusedRange(address)).toBeNull());
});

describe('checkLiteralHost', () => {
  it('throws for private IP literals unless allowed, and ignores names', () => {
    expect(() => checkLiteralHost('127.0.0.1', () => false)).toThrow(/loopback/);
    expect(() => checkLiteralHost('[::1]', () => false)).toThrow(/loopback/);
    expect(() => checkLiteralHost('127.0.0.1', () => true)).not.toThrow();
    expect(() => checkLiteralHost('example.org', () => false)).not.toThrow();
  });
});

describe('guardedLookup', () => {
  const lookup = (allow: boolean, host: string) =>
    new Promise<{ err: Error | null; address: unknown }>((resolve) =>
      guardedLookup(() => allow)(host, {}, (err, address) => resolve({ err, address })),
    );

  it('refuses a name that resolves to loopback', async () => {
    const { err } = await lookup(false, 'localhost');
    expect(err?.message).toMatch(/^localhost resolves to .* \(loopback\)/);
    expect((err as { code?: string }).code).toBe('EBLOCKEDADDRESS');
  });

  it('resolves it when private addresses are allowed', async () => {
    const { err, address } = await lookup(true, 'localhost');
    expect(err).toBeNull();
    expect(['127.0.0.1', '::1']).toContain(address);
  });
});
