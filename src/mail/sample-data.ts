/**
 * Stand-ins used where a message is rendered for nobody in particular: template and campaign previews
 * (a sample subscriber; listmonk uses "Demo Subscriber" with `city: Bengaluru`, reference §7.8, §8) and
 * the public archive (a placeholder subscriber built from the campaign's `archive_meta`, §17). Their
 * UUIDs are all zeros, so links in them never match a real subscriber or campaign.
 */
import type { CampaignForMessage, MessageUrls, SubscriberForMessage } from './campaign-message.js';

/** The all-zero UUID listmonk uses for "no subscriber / no campaign" in links. */
export const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

const EPOCH = new Date('2024-01-01T00:00:00Z');

/**
 * The subscriber previews are rendered for: a fresh object per call, because templates can change
 * maps (Sprig's `set`) and one preview must not leak into the next.
 */
export function sampleSubscriber(): SubscriberForMessage {
  return {
    id: 0,
    uuid: ZERO_UUID,
    email: 'demo@example.com',
    name: 'Demo Subscriber',
    status: 'enabled',
    attribs: { city: 'Bengaluru' },
    created_at: EPOCH,
    updated_at: EPOCH,
  };
}

/** Body shown inside a campaign template's `{{ template "content" . }}` in template previews. */
export const SAMPLE_CONTENT = `<h1>A sample campaign</h1>
<p>Hello {{ .Subscriber.FirstName }}, this text stands in for a campaign's content, so you can see
how the template frames it: headings, paragraphs, <a href="https://example.com">links</a> and lists.</p>
<ul>
  <li>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</li>
  <li>Sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.</li>
</ul>
<blockquote>Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris.</blockquote>
<p>Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu fugiat nulla pariatur.</p>`;

/** A campaign carrying `fields` (body, template…) with sample values for the rest. */
export function sampleCampaign(fields: Partial<CampaignForMessage> = {}): CampaignForMessage {
  return {
    id: 0,
    uuid: ZERO_UUID,
    name: 'Sample campaign',
    subject: 'Sample campaign subject',
    from_email: 'Sample <sample@example.com>',
    body: SAMPLE_CONTENT,
    altbody: null,
    content_type: 'richtext',
    headers: [],
    tags: [],
    attribs: {},
    template_id: null,
    messenger: 'email',
    type: 'regular',
    send_at: null,
    started_at: null,
    created_at: EPOCH,
    updated_at: EPOCH,
    ...fields,
  };
}

/**
 * The placeholder subscriber of archived campaigns: `archive_meta` supplies `name`, `email` and
 * `attribs` (listmonk reads it as a subscriber record); `name` defaults to "Subscriber".
 */
export function placeholderSubscriber(meta: Record<string, unknown>): SubscriberForMessage {
  const str = (v: unknown, d: string): string => (typeof v === 'string' ? v : d);
  const attribs = meta.attribs !== null && typeof meta.attribs === 'object' && !Array.isArray(meta.attribs) ? (meta.attribs as Record<string, unknown>) : {};
  return {
    id: 0,
    uuid: ZERO_UUID,
    email: str(meta.email, ''),
    name: str(meta.name, 'Subscriber'),
    status: 'enabled',
    attribs,
    created_at: EPOCH,
    updated_at: EPOCH,
  };
}

/** URLs for renders nobody receives: no tracking pixel, links untouched. */
export function untrackedUrls(rootUrl: string): MessageUrls {
  return { rootUrl, trackViews: false };
}
