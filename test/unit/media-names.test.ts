import { describe, expect, it } from 'vitest';
import { checkExtension, isInlineType, joinName, sanitiseFilename } from '../../src/modules/media/names.js';

describe('sanitiseFilename', () => {
  const cases: Array<[string, string, string]> = [
    ['photo.PNG', 'photo', 'png'],
    ['My Holiday (1).jpg', 'My-Holiday-1', 'jpg'],
    ['café crème.gif', 'cafe-creme', 'gif'],
    ['日本語.png', 'file', 'png'],
    ['..png', 'file', 'png'],
    ['.htaccess', 'htaccess', ''],
    ['archive.tar.gz', 'archive.tar', 'gz'],
    ['a...b.pdf', 'a.b', 'pdf'],
    ['--x--.svg', 'x', 'svg'],
    ['report.final version', 'report.final-version', ''],
    [`${'x'.repeat(300)}.png`, 'x'.repeat(100), 'png'],
  ];
  for (const [input, stem, ext] of cases) {
    it(`${JSON.stringify(input)} → ${stem}${ext ? `.${ext}` : ''}`, () => {
      const name = sanitiseFilename(input);
      expect(name).toEqual({ stem, ext });
      expect(joinName(name)).toMatch(/^[A-Za-z0-9_][A-Za-z0-9._-]*$/);
    });
  }

  for (const bad of ['../x.png', 'a/b.png', 'C:\\fakepath\\x.png', '..', '.', '', '   ', 'a\u0000.png', 'line\nbreak.png']) {
    it(`refuses ${JSON.stringify(bad)}`, () => {
      expect(() => sanitiseFilename(bad)).toThrow(/^file: /);
    });
  }

  it('adds a suffix before the extension', () => {
    expect(joinName({ stem: 'logo', ext: 'png' }, 'ab12cd')).toBe('logo-ab12cd.png');
    expect(joinName({ stem: 'notes', ext: '' }, 'ab12cd')).toBe('notes-ab12cd');
  });
});

describe('checkExtension and isInlineType', () => {
  it('accepts listed extensions or any with *', () => {
    expect(() => checkExtension('png', ['png'])).not.toThrow();
    expect(() => checkExtension('exe', ['*'])).not.toThrow();
    expect(() => checkExtension('', ['*'])).not.toThrow();
    expect(() => checkExtension('exe', ['png', 'jpg'])).toThrow('file: .exe files are not allowed; allowed extensions: png, jpg');
  });

  it('shows images, media, PDF and plain text inline, and downloads the rest', () => {
    for (const t of ['image/png', 'image/svg+xml', 'video/mp4', 'application/pdf', 'text/plain; charset=utf-8']) expect(isInlineType(t)).toBe(true);
    for (const t of ['text/html; charset=utf-8', 'application/octet-stream', 'application/xml', 'application/zip']) expect(isInlineType(t)).toBe(false);
  });
});
