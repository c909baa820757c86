/**
 * Message catalogues (issue 15 item 9): every key listmonk's shipped e-mail templates, public pages
 * and system e-mails use resolves to an English string in Mailroom's own wording; one JSON file per
 * language, loaded over English, so another language is a file; listmonk's plural and parameter rules.
 */
import { mkdtempSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { availableLanguages, catalogue, CATALOGUE_DIR, hasLanguage } from '../../src/i18n/catalog.js';
import { compile } from '../../src/templating/index.js';
import { I18n } from '../../src/templating/i18n.js';

/** Keys called by listmonk's static/email-templates and static/public/templates (`L.T`, `L.Ts`, `.L.T`). */
const TEMPLATE_KEYS = `email.data.info email.data.title email.forgotPassword.button email.forgotPassword.info email.forgotPassword.subject
email.optin.confirmSub email.optin.confirmSubHelp email.optin.confirmSubInfo email.optin.confirmSubTitle email.optin.confirmSubWelcome
email.optin.privateList email.status.campaignReason email.status.campaignSent email.status.campaignUpdateTitle email.status.importFile
email.status.importRecords email.status.importTitle email.status.status email.unsub email.viewInBrowser globals.buttons.continue
globals.buttons.save globals.fields.name globals.terms.campaign globals.terms.lists public.archiveEmpty public.archiveTitle public.confirmSub
public.confirmSubInfo public.confirmSubTitle public.managePrefs public.managePrefsUnsub public.poweredBy public.privacyConfirmWipe
public.privacyExport public.privacyExportHelp public.privacyTitle public.privacyWipe public.privacyWipeHelp public.sub public.subName
public.subPrivateList public.subTitle public.unsub public.unsubFull public.unsubHelp public.unsubTitle settings.smtp.testConnection
subscribers.email users.firstTime users.forgotPassword users.login users.loginOIDC users.newPassword users.newUser users.password
users.passwordRepeat users.resetPassword users.totpCode users.totpCodeHelp users.twoFA users.username`.split(/\s+/u);

/** Keys listmonk's Go code shows on public pages and in system e-mails (cmd/public.go, cmd/subscribers.go, …). */
const SYSTEM_KEYS = `public.blocklisted public.campaignNotFound public.confirmOptinSubTitle public.dataRemoved public.dataRemovedTitle
public.dataSent public.dataSentTitle public.errorFetchingCampaign public.errorFetchingEmail public.errorFetchingLists
public.errorProcessingRequest public.errorTitle public.invalidCaptcha public.invalidFeature public.noListsAvailable public.noListsSelected
public.noSubInfo public.noSubTitle public.notFoundTitle public.prefsSaved public.subConfirmed public.subConfirmedTitle
public.subOptinPending public.unsubbedInfo public.unsubbedTitle public.unsubscribeTitle subscribers.optinSubject
subscribers.domainBlocklisted subscribers.errorSendingOptin subscribers.invalidEmail subscribers.invalidName globals.terms.subscriber
globals.terms.list globals.messages.invalidUUID globals.messages.errorFetching templates.errorCompiling templates.errorRendering
campaigns.errorSendTest`.split(/\s+/u);

/** Parameters listmonk's strings take, which ours must take too (the Go code passes them by these names). */
const PARAMS: Record<string, string[]> = {
  'campaigns.errorSendTest': ['error'], 'campaigns.fieldInvalidBody': ['error'], 'campaigns.fieldInvalidMessenger': ['name'],
  'globals.messages.errorFetching': ['name', 'error'], 'globals.messages.errorInvalidIDs': ['error'], 'globals.messages.invalidFields': ['name'],
  'globals.messages.missingFields': ['name'], 'globals.messages.permissionDenied': ['name'], 'import.errorCopyingFile': ['error'],
  'import.errorProcessingZIP': ['error'], 'import.errorStarting': ['error'], 'import.invalidFile': ['error'], 'import.invalidParams': ['error'],
  'templates.errorCompiling': ['error'], 'templates.errorRendering': ['error'], 'users.loginOIDC': ['name'],
};

const en = catalogue('en');
const T = (src: string, lang?: string): string => compile([{ name: 'c', source: src }], { mode: 'text' }).execute({}, lang === undefined ? {} : { lang });

describe('the English catalogue', () => {
  it('is src/i18n/en.json, with its code and name', () => {
    expect(availableLanguages()).toContain('en');
    expect(hasLanguage('en')).toBe(true);
    expect(en.code).toBe('en');
    expect(en.name).toBe('English (en)');
  });

  it.each([...TEMPLATE_KEYS, ...SYSTEM_KEYS])('%s resolves to English text', (key) => {
    const text = T(`{{ L.T "${key}" }}`);
    expect(text).not.toBe(key);
    expect(text.trim()).not.toBe('');
  });

  it('takes the parameters listmonk passes, by the same names', () => {
    for (const [key, params] of Object.entries(PARAMS)) {
      const found = [...(en.strings[key] ?? '').matchAll(/\{([a-z0-9.-]+)\}/giu)].map((m) => m[1]).sort();
      expect(found, key).toEqual([...params].sort());
    }
  });

  it('has exactly two forms wherever it has a plural', () => {
    for (const [key, v] of Object.entries(en.strings)) if (v.includes('|')) expect(v.split('|'), key).toHaveLength(2);
  });

  it('L.Tc uses listmonk\'s rule: singular for n ≤ 1', () => {
    expect(T('{{ L.Tc "globals.terms.list" 1 }} {{ L.Tc "globals.terms.list" 0 }} {{ L.Tc "globals.terms.list" 2 }}')).toBe('List List Lists');
  });
});

describe('another language is a file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-i18n-'));
  const url = pathToFileURL(`${dir}/`);
  copyFileSync(new URL('./en.json', CATALOGUE_DIR), join(dir, 'en.json'));
  writeFileSync(join(dir, 'fr.json'), JSON.stringify({ '_.code': 'fr', '_.name': 'Français (fr)', 'email.unsub': 'Se désabonner', 'globals.terms.list': 'Liste | Listes' }));
  writeFileSync(join(dir, 'xx.json'), JSON.stringify({ '_.code': 'yy', '_.name': 'Wrong code' }));
  writeFileSync(join(dir, 'zz.json'), JSON.stringify({ '_.code': 'zz', '_.name': 'Bad', 'a.b': 5 }));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is loaded over English: its keys in its language, the others in English', () => {
    expect(availableLanguages(url)).toEqual(['en', 'fr', 'xx', 'zz']);
    const fr = new I18n(catalogue('fr', url).strings);
    expect(fr.T('email.unsub')).toBe('Se désabonner');
    expect(fr.Tc('globals.terms.list', 3)).toBe('Listes');
    expect(fr.T('email.viewInBrowser')).toBe('View in browser');
    expect(catalogue('fr', url).name).toBe('Français (fr)');
  });

  it('refuses a file whose code or values are wrong, naming it', () => {
    expect(() => catalogue('xx', url)).toThrow(/i18n\/xx\.json: "_\.code" must be "xx"/);
    expect(() => catalogue('zz', url)).toThrow(/i18n\/zz\.json: "a\.b" must be a string/);
    expect(() => catalogue('de', url)).toThrow(/no catalogue for language "de" \(available: en, fr, xx, zz\)/);
    expect(hasLanguage('../etc/passwd', url)).toBe(false);
  });

  it('a template asking for a language without a catalogue reads English', () => {
    expect(T('{{ L.T "email.unsub" }}', 'de')).toBe('Unsubscribe');
  });
});
