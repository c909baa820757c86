/**
 * The shipped templates (src/modules/templates/defaults, installed on first start) render correctly with
 * listmonk-shaped data, and a realistic campaign using range/with/define/printf/Date/TrackLink and
 * Sprig renders through the default template.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compile, type RenderEnv, subscriberView } from '../../../src/templating/index.js';

// The four shipped templates live with the templates module (installed on first start); the campaign
// body is a test fixture.
const SHIPPED: Record<string, string> = {
  'default.tpl': 'campaign-default.tpl',
  'default-archive.tpl': 'archive-default.tpl',
  'sample-tx.tpl': 'sample-tx.tpl',
  'subscriber-optin.html': 'optin-confirmation.tpl',
};
const fixture = (name: string): string => {
  const shipped = SHIPPED[name];
  const url = shipped ? new URL(`../../../src/modules/templates/defaults/${shipped}`, import.meta.url) : new URL(`./fixtures/${name}`, import.meta.url);
  return readFileSync(url, 'utf8');
};

const subscriber = subscriberView({
  id: 1, uuid: '5f1c2a9e-0d3b-4b8e-9a61-2f9c4d7e8b10', email: 'ann.lee@example.com', name: 'Ann Lee',
  status: 'enabled', attribs: { city: 'Bengaluru', plan: 'pro', orders: [{ id: 'A-1', total: 12.5 }, { id: 'A-2', total: 7 }] },
  created_at: '2023-06-01T09:30:00Z', updated_at: '2024-02-01T10:00:00Z',
});
const campaign = { ID: 4, UUID: '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a', Name: 'March digest', Subject: 'March digest: imports & previews <fast>', FromEmail: 'News <news@example.com>', Tags: ['digest'] };
const data = { Subscriber: subscriber, Campaign: campaign };
const root = 'https://lists.example.com';
const env: RenderEnv = {
  rootUrl: root,
  now: () => new Date(Date.UTC(2024, 2, 5, 14, 7, 9)),
  trackLink: (url) => `${root}/link/${Buffer.from(url).toString('hex').slice(-8)}/${campaign.UUID}/${subscriber.UUID}`,
  trackView: () => `<img src="${root}/campaign/${campaign.UUID}/${subscriber.UUID}/px.png" width="1" height="1" alt="" style="display:none;">`,
};

const campaignTemplate = (body: string) => compile([{ name: 'base', source: fixture('default.tpl') }, { name: 'content', source: body }], { mode: 'html' });

describe('default campaign template', () => {
  const t = campaignTemplate(fixture('campaign-body.html'));
  const html = t.execute(data, env);

  it('has exactly one content placeholder', () => {
    expect(t.countTemplateCalls('content')).toBe(1);
  });

  it('puts the escaped subject in the title', () => {
    expect(html).toContain('<title>March digest: imports &amp; previews &lt;fast&gt;</title>');
  });

  it('renders the body with subscriber data', () => {
    expect(html).toContain('Hello Ann, here is the March digest');
    expect(html).toContain('Spring is arriving in Bengaluru');
    expect(html).toContain('You are receiving it at ann.lee@example.com because');
  });

  it('tracks every literal link and lists them for registration', () => {
    expect(t.trackedUrls()).toEqual([
      'https://example.com/blog/march-release', 'https://example.com/stories/library',
      'https://example.com/docs/deliverability', 'https://example.com/reading/march',
    ]);
    for (const url of t.trackedUrls()) expect(html).toContain(`href="${env.trackLink?.(url, data)}"`);
  });

  it('has the footer links and the tracking pixel, unmangled', () => {
    const unsub = `${root}/subscription/${campaign.UUID}/${subscriber.UUID}`;
    expect(html).toContain(`<a href="${unsub}" style="color: #6b7280; text-decoration: underline;">Unsubscribe</a>`);
    expect(html).toContain(`<a href="${root}/campaign/${campaign.UUID}/${subscriber.UUID}" style="color: #6b7280; text-decoration: underline;">View in browser</a>`);
    expect(html).toContain('Rather not get these e-mails?');
    expect(html).toContain(`<img src="${root}/campaign/${campaign.UUID}/${subscriber.UUID}/px.png"`);
    expect(html).toContain('<!--[if mso]>');
    expect(html).not.toContain('{{');
  });
});

describe('archive template', () => {
  const t = compile([{ name: 'base', source: fixture('default-archive.tpl') }, { name: 'content', source: '<p>Hi {{ .Subscriber.Name }}</p>' }], { mode: 'html' });
  const html = t.execute({ Campaign: campaign, Subscriber: { Name: 'Subscriber', UUID: '' } }, { rootUrl: root });

  it('renders without unsubscribe or tracking', () => {
    expect(html).toContain('<h1 style="font-size: 24px; margin: 0 0 24px;">March digest: imports &amp; previews &lt;fast&gt;</h1>');
    expect(html).toContain('<p>Hi Subscriber</p>');
    expect(html).toContain(`<a href="${root}/archive"`);
    expect(html).not.toContain('/subscription/');
    expect(html).not.toContain('px.png');
  });
});

describe('sample transactional template', () => {
  it('prints the subscriber and the posted data, escaped', () => {
    const t = compile([{ name: 'base', source: fixture('sample-tx.tpl') }], { mode: 'html', shorthands: false });
    const html = t.execute({ Subscriber: subscriber, Tx: { Data: { order_id: 'ORD-<1042>', shipping_date: '2024-03-09' } } });
    expect(html).toContain('Hello Ann Lee,');
    expect(html).toContain('font-weight: bold;">ORD-&lt;1042&gt;</td>');
    expect(html).toContain('font-weight: bold;">2024-03-09</td>');
    expect(html).toContain('placed with ann.lee@example.com.');
  });

  it('renders the subject template in text mode', () => {
    const subject = compile([{ name: 'subject', source: 'Welcome {{ .Subscriber.Name }}' }], { mode: 'text', shorthands: false });
    expect(subject.execute({ Subscriber: { Name: 'Ann & <Co>' } })).toBe('Welcome Ann & <Co>');
  });
});

describe('opt-in confirmation template', () => {
  const t = compile([{ name: 'optin', source: fixture('subscriber-optin.html') }], { mode: 'html', shorthands: false });
  const html = t.execute({
    Subscriber: subscriber,
    Lists: [{ Name: 'Weekly <news>', Type: 'public' }, { Name: 'Secret beta', Type: 'private' }],
    OptinURL: `${root}/subscription/optin/${subscriber.UUID}?l=a1&l=b2`,
    UnsubURL: `${root}/subscription/00000000-0000-0000-0000-000000000000/${subscriber.UUID}`,
  });

  it('greets by first name and lists the lists', () => {
    expect(html).toContain('<title>Confirm subscription</title>');
    expect(html).toContain('Hello Ann,');
    expect(html).toContain('<ul style="margin: 0 0 24px; padding-left: 20px;">\n                <li style="margin: 0 0 4px;">Weekly &lt;news&gt;</li>\n                <li style="margin: 0 0 4px;">Private list</li>\n              </ul>');
  });

  it('links the confirm button to the opt-in URL', () => {
    expect(html).toContain(`<a href="${root}/subscription/optin/${subscriber.UUID}?l=a1&amp;l=b2" target="_blank"`);
    expect(html).toContain('>Confirm subscription</a>');
  });
});

const kitchenSink = `{{ define "order" }}<tr><td>{{ .id }}</td><td>{{ printf "%.2f" .total }}</td></tr>{{ end -}}
<p>{{ Date "Monday, 2 January 2006" }} · {{ .Campaign.Name | upper }}</p>
{{ with .Subscriber.Attribs.plan }}<p>Plan: {{ title . }}</p>{{ else }}<p>No plan</p>{{ end }}
<table>{{ range .Subscriber.Attribs.orders }}{{ template "order" . }}{{ end }}</table>
<p>Total: {{ $t := 0.0 }}{{ range .Subscriber.Attribs.orders }}{{ $t = addf $t .total }}{{ end }}{{ printf "%.2f" $t }}</p>
<p>{{ .Subscriber.Attribs.nickname | default .Subscriber.FirstName }} ({{ .Subscriber.Email | lower | trunc 3 }}…)</p>
<p>Member since {{ .Subscriber.CreatedAt.Format "Jan 2006" }}; tags: {{ join ", " .Campaign.Tags }}</p>
<a class="mr-button" href="{{ TrackLink "https://example.com/account?ref=digest" }}">{{ "my account" | title }}</a>`;

describe('a campaign using the language broadly', () => {
  it('renders through the default template', () => {
    const html = campaignTemplate(kitchenSink).execute(data, env);
    const start = html.indexOf('<p>Tuesday');
    const end = html.indexOf('</a>', start) + 4;
    expect(html.slice(start, end)).toBe(`<p>Tuesday, 5 March 2024 · MARCH DIGEST</p>
<p>Plan: Pro</p>
<table><tr><td>A-1</td><td>12.50</td></tr><tr><td>A-2</td><td>7.00</td></tr></table>
<p>Total: 19.50</p>
<p>Ann (ann…)</p>
<p>Member since Jun 2023; tags: digest</p>
<a class="mr-button" href="${env.trackLink?.('https://example.com/account?ref=digest', data)}">My Account</a>`);
  });
});
