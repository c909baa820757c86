/**
 * The delivery engine's settings (listmonk reference §12, §15.1), operator-editable and applied without
 * a restart. Unlike listmonk, `app.message_rate` is the rate of the whole installation — every campaign
 * on every instance together — not a per-worker sleep, so the number set is the number sent.
 *
 * Defaults, and why:
 * - `app.message_rate` 10 messages/s (36,000 an hour): below the send quotas of common relays (e.g. a
 *   14/s cloud relay quota) so a fresh install never trips a relay's throttling (listmonk #913, where
 *   the default 10 × 10 workers = 100/s surprised operators). Raise it for your own MTA; 0 = no limit.
 * - `app.max_send_errors` 1000 (listmonk's): a misconfigured server pauses a campaign instead of
 *   burning through the list; 0 disables the pause.
 * - the sliding window off, 10,000 per hour when enabled (listmonk's).
 */
import { Type } from 'typebox';
import { defineSetting, type SettingDef } from '../settings/definitions.js';
import { DURATION_PATTERN, parseDuration } from '../util/duration.js';

/** Engine setting declarations. */
export function engineSettings() {
  return {
    messageRate: defineSetting({
      key: 'app.message_rate',
      schema: Type.Integer({ minimum: 0, maximum: 100_000 }),
      default: 10,
      description: 'Messages per second, all campaigns on all instances together; 0 = unlimited.',
    }),
    maxSendErrors: defineSetting({
      key: 'app.max_send_errors',
      schema: Type.Integer({ minimum: 0, maximum: 10_000_000 }),
      default: 1000,
      description: 'Send errors in one run of a campaign after which it pauses (with a status_reason); 0 = never.',
    }),
    slidingWindow: defineSetting({
      key: 'app.message_sliding_window',
      schema: Type.Boolean(),
      default: false,
      description: 'Enforce at most `app.message_sliding_window_rate` messages in any interval of `_duration`.',
    }),
    slidingWindowDuration: defineSetting({
      key: 'app.message_sliding_window_duration',
      schema: Type.String({ pattern: DURATION_PATTERN, maxLength: 20 }),
      default: '1h',
      description: 'Length of the sliding window, e.g. `1h`, `15m` (at least 1s).',
      check: (v) => ((parseDuration(v) ?? 0) < 1000 ? 'must be at least 1s' : null),
    }),
    slidingWindowRate: defineSetting({
      key: 'app.message_sliding_window_rate',
      schema: Type.Integer({ minimum: 1, maximum: 100_000_000 }),
      default: 10_000,
      description: 'Most messages sent in any sliding window.',
    }),
  } satisfies Record<string, SettingDef>;
}

/** The limits the rate limiter enforces, from the settings. 0 = no limit. */
export interface RateLimits {
  /** Messages per second; 0 = unlimited. */
  rate: number;
  /** Most messages in any interval of `windowMs`; 0 = no window. */
  windowRate: number;
  windowMs: number;
}
