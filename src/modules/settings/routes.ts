/**
 * Route table of the settings API (reference §12): flat dotted keys, secrets masked.
 */
import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import { Envelope, errorResponses } from '../../http/schemas.js';
import type { SettingsService } from './service.js';
import { SmtpTestBody, type SmtpTester } from './smtp-test.js';

const tags = ['settings'];
const SettingsBody = Type.Record(Type.String(), Type.Unknown());

/** Registers the settings routes. */
export function settingsRoutes(app: App, settings: SettingsService, smtpTest: SmtpTester): void {
  app.get('/api/settings', {
    config: { permission: 'settings:get' },
    schema: { tags, summary: 'Every setting (secrets masked)', response: { 200: Envelope(SettingsBody), ...errorResponses } },
  }, async () => ({ data: settings.masked() }));

  app.put('/api/settings', {
    config: { permission: 'settings:manage' },
    schema: {
      tags,
      summary: 'Change settings: the keys sent are validated and written; others keep their values. Empty or masked secrets keep the stored ones while where they are sent is unchanged; otherwise 400 asks for the secret again.',
      body: SettingsBody,
      response: { 200: Envelope(SettingsBody), ...errorResponses },
    },
  }, async (req) => {
    await settings.update(req.body);
    return { data: settings.masked() };
  });

  app.post('/api/settings/smtp/test', {
    config: { permission: 'settings:manage' },
    schema: {
      tags,
      summary: 'Send a test e-mail to `email` through the SMTP server described in the body (one `smtp` block, unsaved). A masked password means the stored one of the block with that uuid, while host, port, username and TLS are unchanged. 400 with the reason when it fails.',
      body: SmtpTestBody,
      response: { 200: Envelope(Type.Array(Type.String())), ...errorResponses },
    },
  }, async (req) => ({ data: await smtpTest.send(req.body) }));
}
