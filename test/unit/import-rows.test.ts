import { describe, expect, it } from 'vitest';
import { checkRow, copyEscape, copyLine, HeaderError, lineBreaks, mapHeader } from '../../src/modules/import/rows.js';

describe('mapHeader', () => {
  it('finds the columns whatever their case, BOM or spaces, ignoring others', () => {
    expect(mapHeader(['\ufeffEmail ', 'Extra', ' NAME', 'attributes'])).toEqual({ email: 0, name: 2, attributes: 3, count: 4 });
    expect(mapHeader(['email'])).toEqual({ email: 0, name: -1, attributes: -1, count: 1 });
  });

  it('refuses a header without email, or with a column twice', () => {
    expect(() => mapHeader(['mail', 'name'])).toThrow(new HeaderError('the header row has no "email" column (found: mail, name)'));
    expect(() => mapHeader(['email', 'name', 'Name'])).toThrow('the header has two "name" columns');
  });
});

describe('checkRow', () => {
  const cols = mapHeader(['email', 'name', 'attributes']);
  const table: Array<[string[], ReturnType<typeof checkRow>]> = [
    [[' Ann@Example.ORG ', ' Ann ', '{"a": [1, {"b": null}]}'], { ok: true, email: 'ann@example.org', name: 'Ann', attribs: '{"a":[1,{"b":null}]}' }],
    [['john.smith@example.org', '', ''], { ok: true, email: 'john.smith@example.org', name: 'John Smith', attribs: '{}' }],
    [['x@example.org', 'X'], { ok: false, reason: 'expected 3 columns, found 2' }],
    [['not-an-address', 'X', ''], { ok: false, reason: 'email: is not a valid e-mail address' }],
    [['Name <x@example.org>', 'X', ''], { ok: false, reason: 'email: must be a bare address like user@example.com, without a display name' }],
    [['x@example.org', 'X', '{"a":'], { ok: false, reason: 'attributes: is not valid JSON' }],
    [['x@example.org', 'X', '"text"'], { ok: false, reason: 'attributes: must be a JSON object' }],
    [['x@example.org', 'X', 'null'], { ok: false, reason: 'attributes: must be a JSON object' }],
    [['x@example.org', 'X', '{"k": "nul \\u0000 inside"}'], { ok: false, reason: 'attributes: contains a NUL character or an invalid Unicode escape' }],
    [['x@example.org', 'X', '{"k": "\\ud800"}'], { ok: false, reason: 'attributes: contains a NUL character or an invalid Unicode escape' }],
    [['x@example.org', 'X', '{"k": "\\ud83d\\ude00 fine"}'], { ok: true, email: 'x@example.org', name: 'X', attribs: '{"k":"😀 fine"}' }],
    [['x@example.org', 'X', JSON.stringify({ big: 'y'.repeat(70_000) })], { ok: false, reason: 'attributes: must be at most 65536 bytes of JSON' }],
    [['x@example.org', 'n\u0000', ''], { ok: false, reason: 'name: contains a NUL character' }],
    [['x@example.org', 'y'.repeat(2001), ''], { ok: false, reason: 'name: must be at most 2000 characters' }],
  ];
  for (const [fields, expected] of table) {
    it(`${JSON.stringify(fields).slice(0, 80)}`, () => expect(checkRow(fields, cols)).toEqual(expected));
  }
});

describe('COPY text and line numbers', () => {
  it('escapes backslash, tab, newline and carriage return', () => {
    expect(copyEscape('plain')).toBe('plain');
    expect(copyEscape('a\\b\tc\nd\re')).toBe('a\\\\b\\tc\\nd\\re');
    expect(copyLine(7, { email: 'a@b.c', name: 'Tab\tName', attribs: '{"p":"C:\\\\x"}' })).toBe('7\ta@b.c\tTab\\tName\t{"p":"C:\\\\\\\\x"}\n');
  });

  it('counts line breaks inside fields', () => {
    expect(lineBreaks(['a', 'b'])).toBe(0);
    expect(lineBreaks(['one\ntwo\r\nthree\rfour', 'x\n'])).toBe(4);
  });
});
