/**
 * The settings form without a server (issue 16 "Settings"): which input each schema becomes, how a
 * posted form becomes setting values (secrets left empty keep the stored one, matched by block uuid),
 * which keys count as changed, where a service error is shown, and the view: escaped, CSP-safe,
 * secrets never rendered, errors tied to their input, read-only without settings:manage.
 */
import { describe, expect, it } from 'vitest';
import { renderToString } from 'preact-render-to-string';
import { Type } from 'typebox';
import { defineSetting, maskedScalar, passwordBlocks, type SettingDef } from '../../src/settings/definitions.js';
import { SmtpServer } from '../../src/modules/settings/core-settings.js';
import { changedKeys, errorTarget, inputOf, loadedMark, readForm, tabOfKey, tabsOf } from '../../src/modules/settings/form.js';
import { SettingsView, labelKey } from '../../src/modules/settings/views/settings.js';
import { HOSTILE, expectCspSafe, expectSafeMarkup, makeContext, makePrincipal } from '../helpers/ui.js';

const DEFS: SettingDef[] = [
  defineSetting({ key: 'app.root_url', schema: Type.String({ minLength: 1 }), default: 'http://x', description: 'root' }),
  defineSetting({ key: 'app.concurrency', schema: Type.Integer({ minimum: 1, maximum: 1000 }), default: 10, description: 'c' }),
  defineSetting({ key: 'app.optin_template_id', schema: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]), default: null, description: 'o' }),
  defineSetting({ key: 'privacy.disable_tracking', schema: Type.Boolean(), default: false, description: 'd' }),
  defineSetting({ key: 'privacy.domain_blocklist', schema: Type.Array(Type.String()), default: [] as string[], description: 'b' }),
  defineSetting({ key: 'upload.provider', schema: Type.Enum(['filesystem', 's3']), default: 'filesystem', description: 'p' }),
  defineSetting({ key: 'upload.s3.aws_secret_access_key', schema: Type.String(), default: '', description: 's', ...maskedScalar }),
  defineSetting({ key: 'security.public_subscription_rate_limit', schema: Type.Object({ requests: Type.Integer(), window: Type.String() }), default: { requests: 10, window: '1m' }, description: 'r' }),
  defineSetting({ key: 'smtp', schema: Type.Array(SmtpServer), default: [] as SmtpServer[], description: 'servers', ...passwordBlocks<SmtpServer>({ destination: ['host'] }) }),
  defineSetting({ key: 'audit.retention_days', schema: Type.Integer({ minimum: 0 }), default: 90, description: 'days' }),
];

const SERVER: SmtpServer = {
  uuid: 'u-1', name: 'primary', enabled: true, host: 'smtp.example.com', port: 587, hello_hostname: '', auth_protocol: 'login', username: 'me', password: '••••••',
  tls_type: 'STARTTLS', tls_skip_verify: false, max_conns: 10, idle_timeout: '15s', wait_timeout: '5s', max_msg_retries: 2, email_headers: [{ 'X-A': '1' }],
};
const MASKED: Record<string, unknown> = {
  'app.root_url': 'http://x', 'app.concurrency': 10, 'app.optin_template_id': null, 'privacy.disable_tracking': false, 'privacy.domain_blocklist': [],
  'upload.provider': 'filesystem', 'upload.s3.aws_secret_access_key': '••••', 'security.public_subscription_rate_limit': { requests: 10, window: '1m' },
  smtp: [SERVER], 'audit.retention_days': 90,
};

/** The form a browser would post for MASKED (secrets empty, as rendered). */
function posted(over: Record<string, string> = {}): Record<string, string> {
  const smtp: Record<string, string> = {};
  for (const [k, v] of Object.entries(SERVER)) {
    if (k === 'password') smtp[`smtp.0.${k}`] = '';
    else if (k === 'email_headers') smtp[`smtp.0.${k}`] = 'X-A: 1';
    else if (typeof v === 'boolean') { if (v) smtp[`smtp.0.${k}`] = 'true'; }
    else smtp[`smtp.0.${k}`] = String(v);
  }
  return {
    'app.root_url': 'http://x', 'app.concurrency': '10', 'app.optin_template_id': '', 'privacy.domain_blocklist': '', 'upload.provider': 'filesystem',
    'upload.s3.aws_secret_access_key': '', 'security.public_subscription_rate_limit.requests': '10', 'security.public_subscription_rate_limit.window': '1m',
    'audit.retention_days': '90', ...smtp, ...over,
  };
}

describe('inputs from schemas', () => {
  it('maps each schema to its input', () => {
    const kinds = Object.fromEntries(DEFS.map((d) => [d.key, inputOf(d.schema).kind]));
    expect(kinds).toEqual({
      'app.root_url': 'text', 'app.concurrency': 'number', 'app.optin_template_id': 'number', 'privacy.disable_tracking': 'checkbox',
      'privacy.domain_blocklist': 'lines', 'upload.provider': 'select', 'upload.s3.aws_secret_access_key': 'text',
      'security.public_subscription_rate_limit': 'group', smtp: 'blocks', 'audit.retention_days': 'number',
    });
    expect(inputOf(SmtpServer.properties.email_headers).kind).toBe('headers');
    expect(inputOf(SmtpServer.properties.tls_type)).toEqual({ kind: 'select', options: ['none', 'STARTTLS', 'TLS'] });
  });

  it('puts keys in listmonk\'s tabs and the rest in Mailroom\'s own', () => {
    const tabs = tabsOf(DEFS);
    expect(tabs.general.map((d) => d.key)).toEqual(['app.root_url']);
    expect(tabs.smtp.map((d) => d.key)).toEqual(['smtp']);
    expect(tabs.mailroom.map((d) => d.key)).toEqual(['app.optin_template_id', 'audit.retention_days']);
    expect(tabOfKey('some.new_key')).toBe('mailroom');
    expect(labelKey('smtp.3.port')).toBe('settings.smtp.port');
  });
});

describe('reading the posted form', () => {
  it('reproduces the stored values from an untouched form (secrets sent back masked)', () => {
    const values = readForm(DEFS, posted(), MASKED);
    expect(values).toEqual(MASKED);
    expect(changedKeys(values, MASKED, loadedMark(MASKED))).toEqual([]);
  });

  it('parses numbers, lines, checkboxes and groups; keeps what does not parse for the service to refuse', () => {
    const values = readForm(DEFS, posted({ 'app.concurrency': '12x', 'privacy.disable_tracking': 'true', 'privacy.domain_blocklist': ' a.example \r\n\r\nb.example', 'app.optin_template_id': '4', 'security.public_subscription_rate_limit.requests': '3' }), MASKED);
    expect(values['app.concurrency']).toBe('12x');
    expect(values['privacy.disable_tracking']).toBe(true);
    expect(values['privacy.domain_blocklist']).toEqual(['a.example', 'b.example']);
    expect(values['app.optin_template_id']).toBe(4);
    expect(values['security.public_subscription_rate_limit']).toEqual({ requests: 3, window: '1m' });
  });

  it('a typed secret is sent; a new block (no uuid) gets no stored password', () => {
    const values = readForm(DEFS, posted({ 'smtp.0.password': 'new-pass', 'upload.s3.aws_secret_access_key': 'k2', 'smtp.1.uuid': '', 'smtp.1.host': 'b.example', 'smtp.1.password': '' }), MASKED);
    const smtp = values.smtp as SmtpServer[];
    expect(smtp[0]!.password).toBe('new-pass');
    expect(smtp[1]!.password).toBe('');
    expect(values['upload.s3.aws_secret_access_key']).toBe('k2');
  });

  it('counts as changed only what the user changed since the form was rendered', () => {
    const mark = loadedMark(MASKED);
    const meanwhile = { ...MASKED, 'audit.retention_days': 30 };
    const values = readForm(DEFS, posted({ 'app.concurrency': '11' }), meanwhile);
    expect(changedKeys(values, meanwhile, mark)).toEqual(['app.concurrency']);
    expect(changedKeys(values, meanwhile)).toEqual(['app.concurrency', 'audit.retention_days']);
    expect(changedKeys(values, meanwhile, 'garbage')).toEqual(['app.concurrency', 'audit.retention_days']);
  });
});

describe('where an error is shown', () => {
  it('beside the named input, else its nearest enclosing input or block list', () => {
    const cases: Array<[string, string | undefined]> = [
      ['app.concurrency', 'app.concurrency'],
      ['smtp.0.port', 'smtp.0.port'],
      ['smtp.0.password', 'smtp.0.password'],
      ['smtp.1.email_headers.0', 'smtp.1.email_headers'],
      ['smtp.0', 'smtp'],
      ['smtp', 'smtp'],
      ['security.public_subscription_rate_limit.window', 'security.public_subscription_rate_limit.window'],
      ['upload.s3.aws_secret_access_key', 'upload.s3.aws_secret_access_key'],
      ['no.such_key', undefined],
    ];
    for (const [field, want] of cases) expect(errorTarget(DEFS, field), field).toBe(want);
  });
});

describe('the view', () => {
  const props = (over: Partial<Parameters<typeof SettingsView>[0]> = {}) => ({
    ctx: makeContext(makePrincipal(['settings:get', 'settings:manage']), '/admin/settings'),
    tabs: tabsOf(DEFS), values: MASKED, stored: MASKED, selected: 'general' as const, canManage: true, loaded: 'mark', ...over,
  });

  it('escapes values and stays CSP-safe; secrets are never rendered', () => {
    const html = renderToString(<SettingsView {...props({ values: { ...MASKED, 'app.root_url': HOSTILE, smtp: [{ ...SERVER, host: HOSTILE, name: HOSTILE }] } })} />);
    expectSafeMarkup(html);
    expect(html).not.toContain('•');
    expect(html).toMatch(/<input id="f-smtp.0.password" name="smtp.0.password"[^>]*type="password"[^>]*autocomplete="new-password"/u);
    expect(html).toContain('One is stored and never shown');
    expect(html).toContain('name="smtp.0.uuid" value="u-1"');
  });

  it('ties an error to its input and marks the form as holding unsaved changes', () => {
    const html = renderToString(<SettingsView {...props({ selected: 'smtp', errors: { 'smtp.0.port': 'must be at most 65535' }, dirty: true })} />);
    expect(html).toContain('aria-describedby="f-smtp.0.port-error" aria-invalid="true"');
    expect(html).toContain('<p class="field-error" id="f-smtp.0.port-error">');
    expect(html).toContain('href="#f-smtp.0.port"');
    expect(html).toContain('data-dirty="true"');
    expect(html).toMatch(/id="settings-tab-smtp"[^>]*aria-selected="true"/u);
    expectCspSafe(html);
  });

  it('without settings:manage: read-only, no Save, no test, no add or remove', () => {
    const html = renderToString(<SettingsView {...props({ canManage: false, ctx: makeContext(makePrincipal(['settings:get']), '/admin/settings') })} />);
    expect(html).not.toContain('data-cy="btn-save"');
    expect(html).not.toContain('data-cy="btn-test-smtp"');
    expect(html).not.toContain('btn-add-smtp');
    expect(html).toContain('<fieldset class="settings-fields" disabled');
    expect(html).toContain('data-cy="settings-readonly"');
  });

  it('asks for a typed secret again after an error instead of echoing it', () => {
    const html = renderToString(<SettingsView {...props({ values: { ...MASKED, smtp: [{ ...SERVER, password: 'typed-new-secret' }] }, errors: { 'app.root_url': 'x' } })} />);
    expect(html).not.toContain('typed-new-secret');
    expect(html).toContain('Type the new one again');
  });

  it('offers the shipped languages for app.lang', () => {
    const defs = [...DEFS, defineSetting({ key: 'app.lang', schema: Type.String(), default: 'en', description: 'l' })];
    const html = renderToString(<SettingsView {...props({ tabs: tabsOf(defs), values: { ...MASKED, 'app.lang': 'en' }, languages: ['de', 'en'] })} />);
    expect(html).toMatch(/<select id="f-app.lang" name="app.lang"[^>]*><option value="de">de<\/option><option value="en" selected>en<\/option><\/select>/u);
  });

  it('offers removing an SMTP server only when there are two or more', () => {
    expect(renderToString(<SettingsView {...props()} />)).not.toContain('btn-delete-smtp');
    const two = renderToString(<SettingsView {...props({ values: { ...MASKED, smtp: [SERVER, { ...SERVER, uuid: 'u-2', name: 'backup' }] } })} />);
    expect(two.match(/data-cy="btn-delete-smtp"/gu)).toHaveLength(2);
    expect(two).toContain('data-confirm=');
  });
});
