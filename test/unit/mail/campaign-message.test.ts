/**
 * Campaign messages by content type (issue 4 §3, reference §16.1): richtext/html as written inside the
 * template; markdown converted first; plain sent as text/plain without the HTML template; visual as a
 * whole document. Subjects and headers are text.
 */
import { describe, expect, it } from 'vitest';
import { CampaignMessageBuilder, type CampaignForMessage, type SubscriberForMessage } from '../../../src/mail/campaign-message.js';

const TPL = '<html><body><main>{{ template "content" . }}</main><a href="{{ UnsubscribeURL }}">Unsubscribe</a>{{ TrackView }}</body></html>';
const campaign = (fields: Partial<CampaignForMessage>): CampaignForMessage => ({
  id: 1, uuid: '11111111-2222-3333-4444-555555555555', name: 'n', subject: 'Hi {{ .Subscriber.FirstName }} & co', from_email: 'News <news@x.org>',
  body: '', altbody: null, content_type: 'richtext', headers: [], tags: [], attribs: {}, template_id: 1, messenger: 'email',
  type: 'regular', send_at: null, started_at: null, created_at: new Date(), updated_at: new Date(), ...fields,
});
const sub: SubscriberForMessage = {
  id: 3, uuid: 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee', email: 'ann@x.org', name: 'Ann <Lee>', status: 'enabled', attribs: { n: 2 },
  created_at: new Date(), updated_at: new Date(),
};
const urls = { rootUrl: 'https://l.x.org', trackViews: true };
const UNSUB = 'https://l.x.org/subscription/11111111-2222-3333-4444-555555555555/aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee';

describe('CampaignMessageBuilder content types', () => {
  it('richtext: the body inside the template, escaped values, a tracking pixel, and a text alternative', () => {
    const m = new CampaignMessageBuilder(campaign({ body: '<p>Hello {{ .Subscriber.Name }}</p>' }), TPL, urls).render(sub);
    expect(m.html).toBe(`<html><body><main><p>Hello Ann &lt;Lee&gt;</p></main><a href="${UNSUB}">Unsubscribe</a><img src="https://l.x.org/campaign/11111111-2222-3333-4444-555555555555/aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee/px.png" width="1" height="1" style="display:none;max-height:0;max-width:0;opacity:0" alt=""></body></html>`);
    expect(m.text).toBe(`Hello Ann <Lee>\nUnsubscribe [${UNSUB}]`);
    expect(m.subject).toBe('Hi Ann & co');
  });

  it('markdown: converted to HTML before templating, actions intact, with a text alternative', () => {
    const body = '# Hello {{ .Subscriber.FirstName }}\n\n[Read more]({{ TrackLink "https://x.org/a?b=1&c=2" }}) about **{{ .Subscriber.Attribs.n }}** things.';
    const m = new CampaignMessageBuilder(campaign({ content_type: 'markdown', body }), TPL, urls).render(sub);
    expect(m.html).toContain('<main><h1>Hello Ann</h1>\n<p><a href="https://x.org/a?b=1&amp;c=2">Read more</a> about <strong>2</strong> things.</p>\n</main>');
    expect(m.text).toBe(`Hello Ann\n\nRead more [https://x.org/a?b=1&c=2] about 2 things.\nUnsubscribe [${UNSUB}]`);
  });

  it('plain: text/plain only, not wrapped in the HTML template, values not HTML-escaped', () => {
    const b = new CampaignMessageBuilder(campaign({ content_type: 'plain', body: 'Hi {{ .Subscriber.Name }} <3\nBye: {{ UnsubscribeURL }}', altbody: 'ignored' }), TPL, urls);
    const m = b.render(sub);
    expect(m.html).toBeUndefined();
    expect(m.text).toBe(`Hi Ann <Lee> <3\nBye: ${UNSUB}`);
    expect(b.renderBody(sub)).toEqual({ text: `Hi Ann <Lee> <3\nBye: ${UNSUB}` });
  });

  it('visual: the body is the whole document, the template is not used', () => {
    const m = new CampaignMessageBuilder(campaign({ content_type: 'visual', body: '<html><body><p>{{ .Subscriber.FirstName }}</p></body></html>' }), TPL, urls).render(sub);
    expect(m.html).toBe('<html><body><p>Ann</p></body></html>');
    expect(m.text).toBe('Ann');
  });

  it('html without a template: the body alone', () => {
    const m = new CampaignMessageBuilder(campaign({ content_type: 'html', body: '<div>{{ .Subscriber.Email }}</div>' }), null, urls).render(sub);
    expect(m.html).toBe('<div>ann@x.org</div>');
  });

  it('renders headers as text on one line, after the standard ones', () => {
    const m = new CampaignMessageBuilder(campaign({ body: 'x', headers: [{ 'X-Who': '{{ .Subscriber.Name }}\r\nBcc: evil@x.org' }] }), null, urls).render(sub);
    expect(m.headers.at(-1)).toEqual(['X-Who', 'Ann <Lee> Bcc: evil@x.org']);
    expect(m.headers.map(([k]) => k)).toEqual(['List-Unsubscribe', 'List-Unsubscribe-Post', 'X-Mailroom-Campaign', 'X-Mailroom-Subscriber', 'X-Listmonk-Campaign', 'X-Listmonk-Subscriber', 'X-Who']);
    expect(m.messageId).toBe('11111111-2222-3333-4444-555555555555.aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee@x.org');
  });

  it('lists the TrackLink URLs of the body and of the altbody, once each', () => {
    const b = new CampaignMessageBuilder(campaign({ body: '<a href="{{ TrackLink "https://x.org/a" }}">a</a>', altbody: '{{ TrackLink "https://x.org/a" }} {{ TrackLink "https://x.org/b" }}' }), null, urls);
    expect(b.trackedUrls()).toEqual(['https://x.org/a', 'https://x.org/b']);
  });

  it('renders the body and the subject alone (previews, web pages)', () => {
    const b = new CampaignMessageBuilder(campaign({ body: '<b>{{ .Campaign.Name }}</b>' }), null, urls, { textAlternative: false });
    expect(b.renderBody(sub)).toEqual({ html: '<b>n</b>' });
    expect(b.renderSubject(sub)).toBe('Hi Ann & co');
  });
});
