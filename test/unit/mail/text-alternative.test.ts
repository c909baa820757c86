/**
 * The text alternative of HTML campaigns (issue 4 §3): generated with html-to-text from the HTML when
 * the campaign has no altbody. It is converted once per campaign from the template sources; the
 * result must read the same as converting each rendered message, and fall back to per-message
 * conversion when the sources cannot be converted safely.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CampaignMessageBuilder, type CampaignForMessage, type SubscriberForMessage } from '../../../src/mail/campaign-message.js';
import { compileTextAlternative, htmlSourceToText, htmlToText } from '../../../src/mail/text-alternative.js';

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');
const DEFAULT_TPL = read('src/modules/templates/defaults/campaign-default.tpl');
const BODY = read('test/unit/templating/fixtures/campaign-body.html');

const campaign = (fields: Partial<CampaignForMessage> = {}): CampaignForMessage => ({
  id: 1, uuid: '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a', name: 'March', subject: 'March & <digest>', from_email: 'News <news@x.org>',
  body: BODY, altbody: null, content_type: 'richtext', headers: [], tags: [], attribs: {}, template_id: 1, messenger: 'email',
  type: 'regular', send_at: null, started_at: null, created_at: new Date(), updated_at: new Date(), ...fields,
});
const subscriber = (fields: Partial<SubscriberForMessage> = {}): SubscriberForMessage => ({
  id: 7, uuid: '5f1c2a9e-0d3b-4b8e-9a61-2f9c4d7e8b10', email: 'ann@x.org', name: 'Ann <Lee> & Co', status: 'enabled',
  attribs: { city: 'São Paulo & "Rio"' }, created_at: new Date(), updated_at: new Date(), ...fields,
});
const urls = { rootUrl: 'https://lists.x.org', trackViews: true };
const words = (s: string) => s.replace(/\s+/gu, ' ').trim();

describe('htmlSourceToText', () => {
  const cases: Array<[string, string, string | null]> = [
    ['keeps actions in text', '<p>Hi {{ .Subscriber.FirstName }},</p>', 'Hi {{ .Subscriber.FirstName }},'],
    ['keeps control structures', '{{ if .X }}<p>A &amp; B</p>{{ else }}<p>B</p>{{ end }}', '{{ if .X }}\n\nA & B\n\n{{ else }}\n\nB\n\n{{ end }}'],
    ['shows link targets after the text', '<a href="{{ UnsubscribeURL }}">Leave</a>', 'Leave [{{ UnsubscribeURL }}]'],
    ['hides a target equal to the text', '<a href="{{ UnsubscribeURL }}">{{ UnsubscribeURL }}</a>', '{{ UnsubscribeURL }}'],
    ['leaves images out', '<p>x<img src="{{ TrackLink "https://x.org/a.png" }}" alt="A"></p>', 'x'],
    ['keeps table cells apart and rows on their own lines', '<table><tr><td>Order</td><td>{{ .Tx.Data.id }}</td></tr><tr><td>Ship</td><td>soon</td></tr></table>', 'Order {{ .Tx.Data.id }}\nShip soon'],
    ['keeps heading case', '<h1>Hello {{ .Subscriber.Name }}</h1>', 'Hello {{ .Subscriber.Name }}'],
    ['drops the head', '<html><head><title>{{ .Campaign.Subject }}</title></head><body><p>x</p></body></html>', 'x'],
    ['refuses entities that decode to an action', '<p>&#123;&#123; .X }}</p>', null],
    ['refuses private-use characters in the source', '<p>\uE000</p>', null],
  ];
  for (const [what, src, expected] of cases) it(what, () => expect(htmlSourceToText(src)).toBe(expected));
});

describe('compileTextAlternative', () => {
  it('is null when an action needed by the structure sat in a dropped part', () => {
    expect(compileTextAlternative([{ name: 'base', source: '<head><title>{{ if .X }}</title></head><body>y{{ end }}</body>' }])).toBeNull();
  });

  it('renders the text of a template with its content', () => {
    const t = compileTextAlternative([
      { name: 'base', source: '<div>{{ template "content" . }}</div><p><a href="{{ UnsubscribeURL }}">Unsubscribe</a></p>' },
      { name: 'content', source: '<h2>Hi {{ .Name }}</h2><ul>{{ range .Items }}<li>{{ . }}</li>{{ end }}</ul>' },
    ]);
    expect(t).not.toBeNull();
    const out = t!.execute({ Name: 'Ann & Bob', Items: ['one', 'two'] }, { unsubscribeUrl: () => 'https://x.org/u' });
    expect(words(out)).toBe('Hi Ann & Bob * one * two Unsubscribe [https://x.org/u]');
  });
});

describe('the text alternative of campaign messages', () => {
  it('reads like html-to-text of the rendered message, with values unescaped and no tracking pixel', () => {
    const builder = new CampaignMessageBuilder(campaign(), DEFAULT_TPL, urls);
    expect(builder.textMode).toBe('template');
    const m = builder.render(subscriber());
    expect(words(m.text!)).toBe(words(htmlToText(m.html!)));
    expect(m.text).toContain('Spring is arriving in São Paulo & "Rio"');
    expect(m.text).toContain('Hello Ann, here is the March digest');
    expect(m.text).toContain('Unsubscribe [https://lists.x.org/subscription/9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a/5f1c2a9e-0d3b-4b8e-9a61-2f9c4d7e8b10]');
    expect(m.text).not.toContain('px.png');
    expect(m.text).not.toMatch(/\n\n\n/u);
    expect(m.text).not.toMatch(/[ \t]\n/u);
  });

  it('is the rendered altbody when the campaign has one (text, not HTML-escaped)', () => {
    const builder = new CampaignMessageBuilder(campaign({ altbody: 'Hi {{ .Subscriber.Name }}, see {{ UnsubscribeURL }}' }), DEFAULT_TPL, urls);
    expect(builder.textMode).toBe('altbody');
    expect(builder.render(subscriber()).text).toBe('Hi Ann <Lee> & Co, see https://lists.x.org/subscription/9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a/5f1c2a9e-0d3b-4b8e-9a61-2f9c4d7e8b10');
  });

  it('is converted per message when the sources cannot be converted, with the same words', () => {
    // The variable is declared in an attribute html-to-text drops, so the text template would not compile.
    const body = '<p title="{{ $n := .Subscriber.FirstName }}">Hi {{ $n }}</p>';
    const builder = new CampaignMessageBuilder(campaign({ body }), null, urls);
    expect(builder.textMode).toBe('per-message');
    const m = builder.render(subscriber());
    expect(m.text).toBe('Hi Ann');
  });

  it('is absent for plain campaigns (the body is the text) and when turned off', () => {
    expect(new CampaignMessageBuilder(campaign({ content_type: 'plain', body: 'x' }), DEFAULT_TPL, urls).textMode).toBe('none');
    expect(new CampaignMessageBuilder(campaign(), DEFAULT_TPL, urls, { textAlternative: false }).textMode).toBe('none');
  });
});
