/**
 * Template previews (spec 4.3, reference §8): a campaign template framing sample content for a sample
 * subscriber and campaign; a visual template as it is; a transactional template with the sample
 * subscriber, an empty `.Tx.Data`, and the fields the opt-in confirmation e-mail uses (`.Lists`,
 * `.OptinURL`, `.UnsubURL`) so the shipped opt-in template previews meaningfully. Nothing is tracked.
 */
import { CampaignMessageBuilder } from '../../mail/campaign-message.js';
import { sampleCampaign, sampleSubscriber, untrackedUrls, ZERO_UUID } from '../../mail/sample-data.js';
import { compile, subscriberView } from '../../templating/index.js';
import { asFieldError } from './validate.js';

/** What a preview needs of a template. */
export interface PreviewSource {
  type: string;
  body: string;
}

/** The data a transactional template preview sees. */
function txSampleData(rootUrl: string) {
  return {
    Subscriber: subscriberView(sampleSubscriber()),
    Tx: { Data: {}, Subject: 'Sample subject', FromEmail: 'Sample <sample@example.com>', TemplateID: 0 },
    Lists: [{ ID: 0, UUID: ZERO_UUID, Name: 'Sample list', Type: 'public', Optin: 'double' }],
    OptinURL: `${rootUrl}/subscription/optin/${ZERO_UUID}?`,
    UnsubURL: `${rootUrl}/subscription/${ZERO_UUID}/${ZERO_UUID}`,
  };
}

/**
 * Renders a template preview as HTML. Throws FieldError on `body` (with line and column) when the
 * template does not compile or fails to execute.
 */
export function renderTemplatePreview(t: PreviewSource, rootUrl: string): string {
  return asFieldError('body', () => {
    if (t.type === 'tx') {
      return compile([{ name: 'body', source: t.body }], { mode: 'html' }).execute(txSampleData(rootUrl), { rootUrl });
    }
    const visual = t.type === 'campaign_visual';
    const campaign = visual ? sampleCampaign({ body: t.body, content_type: 'visual' }) : sampleCampaign();
    const builder = new CampaignMessageBuilder(campaign, visual ? null : t.body, untrackedUrls(rootUrl), { textAlternative: false });
    return builder.renderBody(sampleSubscriber()).html ?? '';
  });
}
