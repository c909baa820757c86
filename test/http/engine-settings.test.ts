/**
 * The engine, privacy and messenger settings (issue 5 §1; listmonk reference §12, §15.1): defaults on
 * first start, validation with 400 naming the key (nothing written), and changes applied to the running
 * engine without a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ settings: null });
});
afterAll(async () => t.close());

describe('engine, privacy and messenger settings', () => {
  it('have their defaults on first start', async () => {
    const { body } = await t.api('GET', '/api/settings');
    expect(body.data).toMatchObject({
      'app.message_rate': 10,
      'app.max_send_errors': 1000,
      'app.message_sliding_window': false,
      'app.message_sliding_window_duration': '1h',
      'app.message_sliding_window_rate': 10000,
      'privacy.individual_tracking': false,
      'privacy.disable_tracking': false,
      'privacy.unsubscribe_header': true,
      'privacy.allow_preferences': true,
      'security.allow_private_messenger_urls': false,
      messengers: [],
    });
    expect(body.data.smtp[0].max_msg_retries).toBe(2);
  });

  it('refuse invalid values with 400 naming the key, writing nothing', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ 'app.message_rate': 1.5 }, /^app\.message_rate: must be integer/],
      [{ 'app.max_send_errors': -1 }, /^app\.max_send_errors: must be >= 0/],
      [{ 'app.message_sliding_window': 'yes' }, /^app\.message_sliding_window: must be boolean/],
      [{ 'app.message_sliding_window_duration': '500ms' }, /^app\.message_sliding_window_duration: must be at least 1s/],
      [{ 'app.message_sliding_window_duration': 'hourly' }, /^app\.message_sliding_window_duration: /],
      [{ 'app.message_sliding_window_rate': 0 }, /^app\.message_sliding_window_rate: must be >= 1/],
      [{ 'privacy.individual_tracking': 1 }, /^privacy\.individual_tracking: must be boolean/],
      [{ 'app.message_rate': 5, 'security.allow_private_messenger_urls': 'true' }, /^security\.allow_private_messenger_urls: must be boolean/],
    ];
    for (const [body, message] of cases) {
      const res = await t.api('PUT', '/api/settings', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect((await t.api('GET', '/api/settings')).body.data['app.message_rate']).toBe(10);
  });

  it('apply to the running engine without a restart', async () => {
    const res = await t.api('PUT', '/api/settings', { 'app.max_send_errors': 7, 'app.concurrency': 3, 'app.batch_size': 50 });
    expect(res.status).toBe(200);
    const runner = t.deps.runner as unknown as { opts: { maxSendErrors: number; concurrency: number; batchSize: number } };
    expect(runner.opts).toMatchObject({ maxSendErrors: 7, concurrency: 3, batchSize: 50 });
  });
});
