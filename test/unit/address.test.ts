import { describe, expect, it } from 'vitest';
import { formatSender, nameFromEmail, parseEmail, parseSender } from '../../src/mail/address.js';

describe('parseEmail', () => {
  const ok: Array<[string, string]> = [
    ['User@Example.COM', 'user@example.com'],
    ['  a@b.c  ', 'a@b.c'],
    ['a@localhost', 'a@localhost'],
    ['first.last+tag@sub.example.org', 'first.last+tag@sub.example.org'],
    ["o'brien@example.ie", "o'brien@example.ie"],
    ['"quoted local"@example.com', '"quoted local"@example.com'],
    ['jörg@bücher.de', 'jörg@bücher.de'],
    ['x@[192.0.2.1]', 'x@[192.0.2.1]'],
  ];
  for (const [input, expected] of ok) {
    it(`accepts ${JSON.stringify(input)}`, () => expect(parseEmail(input)).toEqual({ ok: true, email: expected }));
  }
  const bad = ['', '   ', 'plain', '@example.com', 'a@', 'a@@b.c', 'a b@c.d', 'Name <a@b.c>', 'a@b..c', '.a@b.c', 'a.@b.c', 'a..b@c.d', 'a@-b.c', 'a@b.c\nBcc: x@y.z', `${'x'.repeat(995)}@b.com`];
  for (const input of bad) {
    it(`refuses ${JSON.stringify(input.slice(0, 40))}`, () => expect(parseEmail(input).ok).toBe(false));
  }
});

describe('parseSender', () => {
  it('splits name and address', () => {
    expect(parseSender('Mailroom News <news@example.com>')).toEqual({ name: 'Mailroom News', address: 'news@example.com' });
    expect(parseSender('"Doe, Jane" <jane@example.com>')).toEqual({ name: 'Doe, Jane', address: 'jane@example.com' });
    expect(parseSender('bare@example.com')).toEqual({ name: '', address: 'bare@example.com' });
  });
  it('refuses garbage and header injection', () => {
    expect(parseSender('not an address')).toBeNull();
    expect(parseSender('A <a@b.c>\r\nBcc: x@y.z')).toBeNull();
    expect(parseSender('A <>')).toBeNull();
  });
  it('formats back, quoting names with specials', () => {
    expect(formatSender({ name: 'Doe, Jane', address: 'j@x.org' })).toBe('"Doe, Jane" <j@x.org>');
    expect(formatSender({ name: '', address: 'j@x.org' })).toBe('j@x.org');
  });
});

describe('nameFromEmail', () => {
  it('title-cases the local part', () => {
    expect(nameFromEmail('john.doe@x.org')).toBe('John Doe');
    expect(nameFromEmail('anna_maria-lee@x.org')).toBe('Anna Maria Lee');
    expect(nameFromEmail('x@y.z')).toBe('X');
  });
});
