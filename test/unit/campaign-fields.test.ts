/**
 * Single-field rules of campaigns (reference §7.3, §13): archive slugs, custom headers, send times,
 * senders, and the body generated for opt-in campaigns.
 */
import { describe, expect, it } from 'vitest';
import { checkHeaders, normaliseSender, optinCampaignBody, parseSendAt, slugify } from '../../src/modules/campaigns/fields.js';
import { compile } from '../../src/templating/index.js';

describe('slugify', () => {
  const cases: Array<[string | null, string | null]> = [
    ['Welcome to Mailroom!', 'welcome-to-mailroom'],
    ['  --März 2026 / Édition--  ', 'märz-2026-édition'],
    ['a__b..c', 'a-b-c'],
    ['!!!', null],
    ['', null],
    [null, null],
  ];
  for (const [input, slug] of cases) it(`${JSON.stringify(input)} → ${JSON.stringify(slug)}`, () => expect(slugify(input)).toBe(slug));
});

describe('checkHeaders', () => {
  it('accepts custom headers', () => {
    expect(() => checkHeaders([{ 'X-Campaign-Tag': 'a' }, { 'Reply-To': 'x@y.org' }])).not.toThrow();
  });
  const refused: Array<[Record<string, string>, RegExp]> = [
    [{ 'X Bad': 'a' }, /^headers\.0: "X Bad" is not a valid header name/],
    [{ 'X:Colon': 'a' }, /^headers\.0: "X:Colon" is not a valid header name/],
    [{ 'X-Ünicode': 'a' }, /not a valid header name/],
    [{ 'X-A\r\nBcc': 'a' }, /not a valid header name/],
    [{ From: 'a@b.c' }, /^headers\.0: "From" would change the sender/],
    [{ 'content-type': 'text/plain' }, /^headers\.0: "content-type" is set by Mailroom/],
    [{ Bcc: 'spy@x.org' }, /^headers\.0: "Bcc" would add recipients/],
    [{ 'Message-ID': '<x@y>' }, /is set by Mailroom/],
  ];
  for (const [h, message] of refused) it(`refuses ${JSON.stringify(Object.keys(h)[0])}`, () => expect(() => checkHeaders([h])).toThrow(message));
});

describe('parseSendAt', () => {
  it('reads the spec format as UTC and keeps explicit offsets', () => {
    expect(parseSendAt('2030-05-06T07:08:09').toISOString()).toBe('2030-05-06T07:08:09.000Z');
    expect(parseSendAt('2030-05-06T07:08:09+02:00').toISOString()).toBe('2030-05-06T05:08:09.000Z');
    expect(parseSendAt('2030-05-06T07:08').toISOString()).toBe('2030-05-06T07:08:00.000Z');
  });
  for (const bad of ['tomorrow', '2030-05-06', '06/05/2030 07:00', '2030-13-45T99:99:99Z']) {
    it(`refuses ${bad}`, () => expect(() => parseSendAt(bad)).toThrow(/^send_at: must be a date-time/));
  }
});

describe('normaliseSender', () => {
  it('uses the fallback for blank input and normalises the display form', () => {
    expect(normaliseSender('  ', 'Default <d@x.org>')).toBe('Default <d@x.org>');
    expect(normaliseSender('News Team <news@x.org>', 'x')).toBe('News Team <news@x.org>');
    expect(normaliseSender('news@x.org', 'x')).toBe('news@x.org');
    expect(() => normaliseSender('nobody', 'x')).toThrow(/^from_email: /);
  });
});

describe('optinCampaignBody', () => {
  const lists = [
    { id: 1, uuid: '11111111-1111-1111-1111-111111111111', name: 'Weekly <news> {{ .Evil }}', type: 'public', optin: 'double' },
    { id: 2, uuid: '22222222-2222-2222-2222-222222222222', name: 'Secret', type: 'private', optin: 'double' },
    { id: 3, uuid: '33333333-3333-3333-3333-333333333333', name: 'Single', type: 'public', optin: 'single' },
  ];

  it('names the double opt-in lists (not private ones) and links to the opt-in page with their UUIDs', () => {
    const body = optinCampaignBody(lists);
    const out = compile([{ name: 'content', source: body }], { mode: 'html' }).execute(
      { Subscriber: { FirstName: 'Ann' } },
      { optinUrl: () => 'https://l.x.org/subscription/optin/abc?' },
    );
    expect(out).toContain('<p>Hi Ann,</p>');
    expect(out).toContain('<li>Weekly &lt;news&gt; &#123;&#123; .Evil &#125;&#125;</li>');
    expect(out).toContain('<li>a private list</li>');
    expect(out).not.toContain('Secret');
    expect(out).not.toContain('Single');
    expect(out).toContain('href="https://l.x.org/subscription/optin/abc?l=11111111-1111-1111-1111-111111111111&amp;l=22222222-2222-2222-2222-222222222222"');
  });
});
