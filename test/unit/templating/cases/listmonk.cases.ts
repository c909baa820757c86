/**
 * listmonk's functions (reference §16.3) and the `URL@TrackLink` shorthand (§16.1).
 */
import { SafeHTML } from '../../../../src/templating/index.js';
import type { Case } from './types.js';

const data = {
  Campaign: { UUID: 'camp-1', Subject: 'News & <updates>', Name: 'March' },
  Subscriber: { UUID: 'sub-1', Name: 'Ann', Email: 'ann@example.com', Attribs: {} },
};
const env = {
  rootUrl: 'https://lists.example.com',
  trackLink: (url: string) => `https://lists.example.com/link/L-${url.length}/camp-1/sub-1`,
  trackView: () => '<img src="https://lists.example.com/campaign/camp-1/sub-1/px.png" width="1" height="1" alt="">',
};

export const urlFunctions: Case[] = [
  { name: 'URL formulas from rootUrl and UUIDs', tpl: '{{ UnsubscribeURL }}|{{ ManageURL }}|{{ OptinURL }}|{{ MessageURL }}|{{ ArchiveURL }}|{{ RootURL }}', data, env: { rootUrl: 'https://r.io/' }, want: 'https://r.io/subscription/camp-1/sub-1|https://r.io/subscription/camp-1/sub-1?manage=true|https://r.io/subscription/optin/sub-1?|https://r.io/campaign/camp-1/sub-1|https://r.io/archive|https://r.io' },
  { name: "listmonk's dot argument is accepted", tpl: '{{ UnsubscribeURL . }}|{{ MessageURL . }}|{{ TrackView . }}', data, env, mode: 'html', want: `https://lists.example.com/subscription/camp-1/sub-1|https://lists.example.com/campaign/camp-1/sub-1|${env.trackView()}` },
  { name: 'hooks override the formulas', tpl: '{{ UnsubscribeURL }} {{ OptinURL }}', data, env: { unsubscribeUrl: () => 'U', optinUrl: (r) => `O:${(r as typeof data).Subscriber.UUID}` }, want: 'U O:sub-1' },
  { name: 'zero UUIDs when the data has none', tpl: '{{ UnsubscribeURL }}', data: {}, want: '/subscription/00000000-0000-0000-0000-000000000000/00000000-0000-0000-0000-000000000000' },
  { name: 'functions see the execute root even inside a template call', tpl: '{{ define "f" }}{{ UnsubscribeURL }}{{ end }}{{ template "f" .Subscriber }}', data, env, want: 'https://lists.example.com/subscription/camp-1/sub-1' },
  { name: 'URLs land unmangled in href', tpl: '<a href="{{ UnsubscribeURL }}">x</a><a href="{{ ManageURL }}">m</a>', data, env, mode: 'html', want: '<a href="https://lists.example.com/subscription/camp-1/sub-1">x</a><a href="https://lists.example.com/subscription/camp-1/sub-1?manage=true">m</a>' },
  { tpl: '{{ UnsubscribeURL 1 2 }}', data, err: { type: 'exec', msg: 'wrong number of args for UnsubscribeURL: want 1 got 2' } },
];

export const tracking: Case[] = [
  { tpl: '{{ TrackLink "https://example.com/a" }}', data, env, want: 'https://lists.example.com/link/L-21/camp-1/sub-1' },
  { tpl: '{{ TrackLink "https://example.com/a" . }}', data, env, want: 'https://lists.example.com/link/L-21/camp-1/sub-1' },
  { name: 'without a hook the URL is returned', tpl: '{{ TrackLink "https://example.com/?a=1&amp;b=2" }}', data, want: 'https://example.com/?a=1&b=2' },
  { name: 'tracked link in href (html)', tpl: '<a href="{{ TrackLink "https://example.com" }}">go</a>', data, env, mode: 'html', want: '<a href="https://lists.example.com/link/L-19/camp-1/sub-1">go</a>' },
  { name: 'untracked link with & is attribute-escaped', tpl: '<a href="{{ TrackLink "https://e.com/?a=1&b=2" }}">go</a>', data, mode: 'html', want: '<a href="https://e.com/?a=1&amp;b=2">go</a>' },
  { name: 'URL@TrackLink shorthand', tpl: '<a href="https://example.com/x@TrackLink">x</a>', data, env, mode: 'html', want: '<a href="https://lists.example.com/link/L-21/camp-1/sub-1">x</a>' },
  { name: 'two shorthands on one line stay separate', tpl: '<a href="https://a.com/1">1</a> <a href="https://b.com/2@TrackLink">2</a>', data, mode: 'html', want: '<a href="https://a.com/1">1</a> <a href="https://b.com/2">2</a>' },
  { name: 'shorthand with &amp; from a WYSIWYG editor', tpl: '<a href="https://e.com/?a=1&amp;b=2@TrackLink">x</a>', data, mode: 'html', want: '<a href="https://e.com/?a=1&amp;b=2">x</a>' },
  { name: 'shorthands can be disabled', tpl: 'https://e.com@TrackLink', data, shorthands: false, want: 'https://e.com@TrackLink' },
  { name: 'TrackView is inserted raw', tpl: '<p>x</p>{{ TrackView }}', data, env, mode: 'html', want: `<p>x</p>${env.trackView()}` },
  { name: 'TrackView without a hook is empty', tpl: '[{{ TrackView }}]', data, mode: 'html', want: '[]' },
  { name: 'javascript: in TrackLink is defanged', tpl: '<a href="{{ TrackLink "javascript:alert(1)" }}">x</a>', data, mode: 'html', want: '<a href="#ZgotmplZ">x</a>' },
];

/** L (issue 15 item 9): listmonk's plural rule for Tc, its answer to Ts with an odd number of arguments. */
export const i18n: Case[] = [
  { name: 'T of a "Singular | Plural" key is the singular', tpl: '{{ L.T "globals.terms.list" }}', want: 'List' },
  { name: 'Tc: plural only when n > 1', tpl: '{{ L.Tc "globals.terms.list" 0 }}|{{ L.Tc "globals.terms.list" 1 }}|{{ L.Tc "globals.terms.list" 2 }}|{{ L.Tc "globals.terms.list" -3 }}|{{ L.Tc "globals.terms.list" 1.5 }}', want: 'List|List|Lists|List|Lists' },
  { name: 'Tc of a key without plural, and of an unknown key', tpl: '{{ L.Tc "email.unsub" 5 }}|{{ L.Tc "no.such" 5 }}', want: 'Unsubscribe|no.such' },
  { name: 'Ts substitutes {name} parameters', tpl: '{{ L.Ts "templates.errorCompiling" "error" "bad <b>" }}', want: 'The template does not compile: bad <b>' },
  { name: 'Ts with an odd number of arguments answers as listmonk', tpl: '{{ L.Ts "templates.errorCompiling" "error" }}|{{ L.Ts "no.such" "x" }}', want: 'templates.errorCompiling: Invalid arguments|no.such: Invalid arguments' },
  { name: 'Ts translates {key} references inside a value', tpl: '{{ L.Ts "globals.messages.errorFetching" "name" "{globals.terms.lists}" "error" "timeout" }}', want: 'Could not load Lists: timeout' },
  { name: 'Ts of an unknown key is the key', tpl: '{{ L.Ts "no.such" "a" "b" }}', want: 'no.such' },
  { name: 'a value referring to itself cannot loop', tpl: '{{ L.Ts "templates.errorCompiling" "error" "{x}{x}{x}" }}', want: 'The template does not compile: xxx' },
  { name: 'the language comes from the env; unknown languages read English', tpl: '{{ L.T "email.unsub" }}', env: { lang: 'zz' }, want: 'Unsubscribe' },
];

export const misc: Case[] = [
  { name: 'LogoURL (app.logo_url), as listmonk\'s system e-mails call it', tpl: '{{ LogoURL }}|{{ if ne LogoURL "" }}<img src="{{ LogoURL }}">{{ end }}', mode: 'html', env: { logoUrl: 'https://x.org/logo.png' }, want: 'https://x.org/logo.png|<img src="https://x.org/logo.png">' },
  { name: 'LogoURL without a logo is empty', tpl: '[{{ LogoURL }}]{{ if ne LogoURL "" }}img{{ end }}', want: '[]' },
  { tpl: '{{ Date "2006-01-02" }}', want: '2024-03-05' },
  { tpl: '{{ Date "Mon, 02 Jan 2006 15:04:05 -0700" }}', want: 'Tue, 05 Mar 2024 14:07:09 +0000' },
  { name: 'empty Date layout is ANSIC', tpl: '{{ Date "" }}', want: 'Tue Mar  5 14:07:09 2024' },
  { tpl: '{{ Date }}', err: { type: 'exec', msg: 'wrong number of args for Date: want 1 got 0' } },
  { tpl: '{{ L.T "email.unsub" }}|{{ L.T "email.viewInBrowser" }}|{{ L.T "email.optin.confirmSubTitle" }}', want: 'Unsubscribe|View in browser|Confirm subscription' },
  { tpl: '{{ L.T "no.such.key" }}', want: 'no.such.key' },
  { tpl: '{{ L.T "public.poweredBy" }}|{{ L.T "email.unsubHelp" }}', mode: 'html', want: 'Sent with|Rather not get these e-mails?' },
  { tpl: '{{ L.Ts "email.optin.confirmSubWelcome" }} {{ L.Tc "email.unsub" 2 }}', want: 'Hello Unsubscribe' },
  { tpl: '{{ Safe "<b>bold</b>" }}', mode: 'html', want: '<b>bold</b>' },
  { tpl: '{{ "<b>bold</b>" }}', mode: 'html', want: '&lt;b&gt;bold&lt;/b&gt;' },
  { tpl: '{{ .html }}', data: { html: new SafeHTML('<i>ok</i>') }, mode: 'html', want: '<i>ok</i>' },
  { tpl: '{{ Safe .x }}', data: { x: 5 }, mode: 'html', want: '5' },
];
