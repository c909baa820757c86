/**
 * listmonk's template data model, field by field (issue 15 item 8): `.Campaign` has every exported
 * field of listmonk's models.Campaign, the message has `.Subject`/`.Body`/`.AltBody`, null.Time /
 * null.String / null.Int behave as in listmonk (`.CreatedAt.Time.Format`, `.AltBody.String`,
 * `.TemplateID.Valid`) with `.CreatedAt.Format` too; lists, tx and opt-in data as listmonk's structs.
 */
import { describe, expect, it } from 'vitest';
import { CampaignMessageBuilder, type CampaignForMessage, type SubscriberForMessage } from '../../../src/mail/campaign-message.js';
import {
  CampaignMessageData, campaignView, compile, ListView, NullInt, NullString, NullTime, OptinData, subscriberView, TemplateExecError, TxView,
} from '../../../src/templating/index.js';

const created = new Date(Date.UTC(2024, 0, 2, 3, 4, 5));
const campaign = (fields: Partial<CampaignForMessage> = {}): CampaignForMessage => ({
  id: 7, uuid: '11111111-2222-3333-4444-555555555555', name: 'Spring', subject: 'News for {{ .Subscriber.FirstName }}',
  from_email: 'News <news@x.org>', body: '<p>b</p>', altbody: null, content_type: 'richtext', headers: [{ 'X-A': 'b' }],
  tags: ['t1', 't2'], attribs: { season: 'spring' }, template_id: 3, messenger: 'email', type: 'regular', send_at: null,
  started_at: created, created_at: created, updated_at: created, status: 'running', views: 12, clicks: 5, bounces: 1,
  to_send: 100, sent: 40, lists: [{ id: 1, name: 'News' }], archive: true, archive_slug: 'spring', archive_template_id: null,
  archive_meta: { name: 'X' }, body_source: null, ...fields,
});
const sub: SubscriberForMessage = {
  id: 3, uuid: 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee', email: 'ann@x.org', name: 'Ann Lee', status: 'enabled',
  attribs: { city: 'Pune' }, created_at: created, updated_at: created,
};

/** listmonk's models.Campaign (with Base and CampaignMeta): every exported field. */
const CAMPAIGN_FIELDS = [
  'ID', 'CreatedAt', 'UpdatedAt', 'CampaignID', 'Views', 'Clicks', 'Bounces', 'Lists', 'Media', 'StartedAt', 'ToSend', 'Sent',
  'UUID', 'Type', 'Name', 'Subject', 'FromEmail', 'Body', 'BodySource', 'AltBody', 'SendAt', 'Status', 'ContentType', 'Tags',
  'Headers', 'Attribs', 'TemplateID', 'Messenger', 'Archive', 'ArchiveSlug', 'ArchiveTemplateID', 'ArchiveMeta', 'TemplateBody',
  'ArchiveTemplateBody', 'Tpl', 'SubjectTpl', 'AltBodyTpl', 'HeaderTpls', 'MediaIDs', 'Attachments', 'Total',
];
const SUBSCRIBER_FIELDS = ['ID', 'CreatedAt', 'UpdatedAt', 'UUID', 'Email', 'Name', 'Attribs', 'Status', 'Lists', 'FirstName', 'LastName'];
const LIST_FIELDS = [
  'ID', 'CreatedAt', 'UpdatedAt', 'UUID', 'Name', 'Type', 'Optin', 'Status', 'Tags', 'Description', 'SubscriberCount',
  'SubscriberCounts', 'SubscriberID', 'SubscriptionStatus', 'SubscriptionCreatedAt', 'SubscriptionUpdatedAt', 'Total',
];
const TX_FIELDS = [
  'SubscriberMode', 'SubscriberEmails', 'SubscriberIDs', 'SubscriberEmail', 'SubscriberID', 'TemplateID', 'Data', 'FromEmail',
  'Headers', 'ContentType', 'Messenger', 'Subject', 'AltBody', 'Attachments', 'Body', 'Tpl', 'SubjectTpl',
];

const render = (src: string, data: unknown): string => compile([{ name: 'c', source: src }], { mode: 'text' }).execute(data);
const body = (src: string, c: Partial<CampaignForMessage> = {}): string =>
  new CampaignMessageBuilder(campaign({ body: src, ...c }), null, { rootUrl: 'https://x.org', trackViews: false }).renderBody(sub).html ?? '';

describe('.Campaign: every field of listmonk\'s models.Campaign', () => {
  const data = new CampaignMessageData(campaignView(campaign()), subscriberView(sub));

  it.each(CAMPAIGN_FIELDS)('.Campaign.%s is a field', (f) => {
    expect(() => render(`{{ .Campaign.${f} }}`, data)).not.toThrow();
  });

  it('prints the fields the issue names, with their stored values', () => {
    expect(body('{{ .Campaign.Status }}|{{ .Campaign.ContentType }}|{{ .Campaign.Views }}|{{ .Campaign.Clicks }}|{{ .Campaign.Bounces }}|{{ .Campaign.Sent }}|{{ .Campaign.ToSend }}'))
      .toBe('running|richtext|12|5|1|40|100');
    expect(body('<i>{{ .Campaign.Body }}</i>')).toBe('<i>&lt;i&gt;{{ .Campaign.Body }}&lt;/i&gt;</i>');
    expect(body('{{ .Campaign.Name }}|{{ .Campaign.UUID }}|{{ .Campaign.Type }}|{{ .Campaign.Messenger }}|{{ .Campaign.Archive }}|{{ .Campaign.ArchiveSlug.String }}'))
      .toBe('Spring|11111111-2222-3333-4444-555555555555|regular|email|true|spring');
    expect(body('{{ .Campaign.Tags }}|{{ join "," .Campaign.Tags }}|{{ .Campaign.Attribs.season }}|{{ index .Campaign.Headers 0 "X-A" }}'))
      .toBe('[t1 t2]|t1,t2|spring|b');
    expect(body('{{ .Campaign.Lists }}|{{ .Campaign.ArchiveMeta }}')).toBe('[{&#34;id&#34;:1,&#34;name&#34;:&#34;News&#34;}]|{&#34;name&#34;:&#34;X&#34;}');
  });

  it('.Campaign.Body is the campaign body as stored, unrendered', () => {
    expect(render('{{ .Campaign.Body }}', new CampaignMessageData(campaignView(campaign({ body: '<p>{{ .X }}</p>' })), subscriberView(sub))))
      .toBe('<p>{{ .X }}</p>');
  });

  it('nullable columns are listmonk\'s null.Time, null.String and null.Int', () => {
    const c = campaign({ altbody: 'alt text', template_id: 3, archive_template_id: null, send_at: null });
    const d = new CampaignMessageData(campaignView(c), subscriberView(sub));
    expect(render('{{ .Campaign.AltBody.String }}|{{ .Campaign.AltBody.Valid }}|{{ .Campaign.BodySource.Valid }}', d)).toBe('alt text|true|false');
    expect(render('{{ .Campaign.TemplateID.Int }}|{{ .Campaign.TemplateID.Valid }}|{{ .Campaign.ArchiveTemplateID.Valid }}|{{ .Campaign.TemplateID }}', d))
      .toBe('3|true|false|3');
    expect(render('{{ .Campaign.SendAt.Valid }}|{{ .Campaign.SendAt }}|{{ .Campaign.SendAt.Time.Year }}|{{ if .Campaign.SendAt.Valid }}x{{ else }}none{{ end }}', d))
      .toBe('false||1|none');
    expect(render('{{ .Campaign.StartedAt.Time.Format "2006-01-02" }}|{{ .Campaign.StartedAt.Format "Jan 2006" }}|{{ .Campaign.CreatedAt }}', d))
      .toBe('2024-01-02|Jan 2024|2024-01-02 03:04:05 +0000 UTC');
    expect(render('{{ toJson .Campaign.SendAt }} {{ toJson .Campaign.StartedAt }} {{ toJson .Campaign.AltBody }} {{ toJson .Campaign.ArchiveTemplateID }}', d))
      .toBe('null "2024-01-02T03:04:05Z" "alt text" null');
  });

  it('an unknown field is an error, as on listmonk\'s struct', () => {
    expect(() => render('{{ .Campaign.Nope }}', data)).toThrow(/can't evaluate field Nope in type CampaignView/);
    expect(() => render('{{ .Nope }}', data)).toThrow(/can't evaluate field Nope in type CampaignMessageData/);
    expect(() => render('{{ .Campaign.SendAt.Nope }}', data)).toThrow(TemplateExecError);
  });
});

describe('the message: .Subject, .Body, .AltBody as listmonk\'s CampaignMessage', () => {
  it('.Subject is the rendered subject in the body, and the raw one while the subject renders', () => {
    const m = new CampaignMessageBuilder(campaign({ subject: 'Hi {{ .Subscriber.FirstName }} ({{ .Subject }})', body: '<p>{{ .Subject }}</p>' }), null,
      { rootUrl: 'https://x.org', trackViews: false }).render(sub);
    expect(m.subject).toBe('Hi Ann (Hi {{ .Subscriber.FirstName }} ({{ .Subject }}))');
    expect(m.html).toBe('<p>Hi Ann (Hi {{ .Subscriber.FirstName }} ({{ .Subject }}))</p>');
  });

  it('{{ .Subject }} alone in a body prints the subject (the form the issue names)', () => {
    expect(body('<title>{{ .Subject }}</title>', { subject: 'Plain subject' })).toBe('<title>Plain subject</title>');
  });

  it('.Body is empty while the body renders; the alt body and headers see the rendered body', () => {
    const m = new CampaignMessageBuilder(campaign({ body: '<b>x</b>[{{ .Body }}]', altbody: 'alt {{ len .Body }}', headers: [{ 'X-Len': '{{ len .Body }}/{{ .AltBody }}' }] }), null,
      { rootUrl: 'https://x.org', trackViews: false }).render(sub);
    expect(m.html).toBe('<b>x</b>[]');
    expect(m.text).toBe('alt 10');
    expect(m.headers.at(-1)).toEqual(['X-Len', '10/alt 10']);
  });
});

describe('.Subscriber: listmonk\'s models.Subscriber', () => {
  const data = { Subscriber: subscriberView(sub) };

  it.each(SUBSCRIBER_FIELDS)('.Subscriber.%s is a field', (f) => {
    expect(() => render(`{{ .Subscriber.${f} }}`, data)).not.toThrow();
  });

  it('.CreatedAt is a null.Time: .Time.Format (listmonk\'s form) and .Format both work', () => {
    expect(render('{{ .Subscriber.CreatedAt.Time.Format "2006-01-02" }}|{{ .Subscriber.CreatedAt.Format "02 Jan 06" }}|{{ .Subscriber.CreatedAt.Valid }}|{{ .Subscriber.UpdatedAt.Year }}', data))
      .toBe('2024-01-02|02 Jan 24|true|2024');
    expect(render('{{ .Subscriber.CreatedAt }}', data)).toBe('2024-01-02 03:04:05 +0000 UTC');
    expect(render('{{ date "2006" .Subscriber.CreatedAt }}|{{ .Subscriber.CreatedAt.Unix }}', data)).toBe(`2024|${created.getTime() / 1000}`);
  });

  it('a missing time is a null null.Time: Valid false, Go\'s zero time, prints nothing', () => {
    const v = subscriberView({ ...sub, created_at: null });
    expect(render('[{{ .CreatedAt }}]|{{ .CreatedAt.Valid }}|{{ .CreatedAt.Time.Format "2006-01-02" }}|{{ if .CreatedAt }}struct{{ end }}', v))
      .toBe('[]|false|0001-01-01|struct');
  });
});

describe('null.v6 values', () => {
  it('compare by value with eq, and refuse other types as Go does', () => {
    const d = { a: new NullInt(3), b: new NullInt(3), c: new NullInt(null), s: new NullString('x'), t: new NullTime(created), u: new NullTime(new Date(created)) };
    expect(render('{{ eq .a .b }} {{ eq .a .c }} {{ eq .t .u }} {{ ne .s .s }}', d)).toBe('true false true false');
    expect(() => render('{{ eq .a 3 }}', d)).toThrow(/incompatible types for comparison/);
    expect(() => render('{{ eq .a .s }}', d)).toThrow(/incompatible types for comparison/);
  });

  it('format as their value with printf verbs and %T names the Go type', () => {
    const d = { a: new NullInt(3), s: new NullString('x'), n: new NullString(null), t: new NullTime(created) };
    expect(render('{{ printf "%d|%s|%v|%q|%T|%T" .a .s .n .s .t .a }}', d)).toBe('3|x|<nil>|"x"|null.Time|null.Int');
  });

  it('are structs to Sprig: never empty', () => {
    expect(render('{{ empty . }}|{{ default "d" . }}', new NullString(null))).toBe('false|');
  });
});

describe('lists, tx and opt-in data', () => {
  const list = new ListView({ id: 4, uuid: 'u', name: 'News', type: 'public', optin: 'double', tags: ['a'], description: 'd', subscription_status: 'unconfirmed' });

  it.each(LIST_FIELDS)('a list has .%s', (f) => {
    expect(() => render(`{{ .${f} }}`, list)).not.toThrow();
  });

  it.each(TX_FIELDS)('.Tx has .%s', (f) => {
    expect(() => render(`{{ .Tx.${f} }}`, { Tx: new TxView({ template_id: 2, data: { order: 9 } }) })).not.toThrow();
  });

  it('.Tx carries the request', () => {
    const tx = new TxView({ template_id: 2, data: { order: 9 }, subject: 's', subscriber_emails: ['a@x.org'], from_email: 'f@x.org' });
    expect(render('{{ .Tx.Data.order }}|{{ .Tx.TemplateID }}|{{ .Tx.Subject }}|{{ .Tx.SubscriberEmails }}|{{ .Tx.FromEmail }}|{{ .Tx.SubscriberMode }}', { Tx: tx }))
      .toBe('9|2|s|[a@x.org]|f@x.org|default');
  });

  it('opt-in data promotes the subscriber\'s fields, as Go promotes an embedded struct', () => {
    const d = new OptinData(subscriberView(sub), [list], 'https://x.org/optin', 'https://x.org/unsub');
    expect(render('{{ .Name }}|{{ .FirstName }}|{{ .Email }}|{{ .Subscriber.LastName }}|{{ range .Lists }}{{ .Name }}:{{ .Type }}:{{ .SubscriptionStatus }}{{ end }}|{{ .OptinURL }}|{{ .UnsubURL }}', d))
      .toBe('Ann Lee|Ann|ann@x.org|Lee|News:public:unconfirmed|https://x.org/optin|https://x.org/unsub');
  });
});
