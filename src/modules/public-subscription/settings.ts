/**
 * Settings owned by public subscription (conventions §10; reference §12, §17; issue 3 §4): whether the
 * public form and endpoint are on (listmonk's `app.enable_public_subscription_page`), whether opt-in
 * confirmations record the confirming IP address (listmonk's `privacy.record_optin_ip`), and the
 * per-IP rate limit of public subscription requests (Mailroom's own).
 */
import { Type } from 'typebox';
import { DURATION_PATTERN, parseDuration } from '../../util/duration.js';
import { defineSetting, type SettingDef } from '../../settings/definitions.js';

/** The public subscription module's setting declarations. */
export function publicSubscriptionSettings() {
  return {
    enabled: defineSetting({
      key: 'app.enable_public_subscription_page',
      schema: Type.Boolean(),
      default: true,
      description: 'Offer the public subscription form (/subscription/form) and POST /api/public/subscription.',
    }),
    recordOptinIp: defineSetting({
      key: 'privacy.record_optin_ip',
      schema: Type.Boolean(),
      default: false,
      description: 'Store the IP address that confirmed a double opt-in in the subscription meta (`optin_ip`).',
    }),
    rateLimit: defineSetting({
      key: 'security.public_subscription_rate_limit',
      schema: Type.Object({
        requests: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
        window: Type.String({ pattern: DURATION_PATTERN }),
      }),
      default: { requests: 10, window: '1m' },
      description:
        'Most public subscription requests (API and form) one IP address may make per window; 0 turns the limit off. Counted per instance.',
      check: (v) => {
        const ms = parseDuration(v.window);
        return ms === null || ms < 1000 || ms > 86_400_000 ? 'window must be a duration from 1s to 24h' : null;
      },
    }),
  } satisfies Record<string, SettingDef>;
}
