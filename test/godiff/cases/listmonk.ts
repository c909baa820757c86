/**
 * Whole campaign messages, compiled and rendered as listmonk's campaign manager does (subject, body
 * inside its template, altbody, headers), with listmonk's data model (.Campaign, .Subscriber, the
 * message's .Subject), its functions and its shorthand rewrites; and our own templates exercising the
 * constructs of listmonk's shipped templates (default.tpl, base.html and the system e-mails).
 */
import { campaign } from './helpers.js';
import type { GoCase } from './types.js';

const c = campaign('data');
const f = campaign('func');
const tpl = campaign('template');

/** A campaign template in the shape of listmonk's default.tpl (our own markup). */
const DEFAULT_LIKE = `<!doctype html>
<html>
  <head>
    <title>{{ .Campaign.Subject }}</title>
    <meta http-equiv="Content-Type" content="text/html; charset=utf-8">
    <style>
      body { background: #eee; font-family: 'Helvetica Neue', sans-serif; }
      .wrap { max-width: 500px; margin: 0 auto; }
      @media screen and (max-width: 600px) { .wrap { max-width: auto; } }
    </style>
  </head>
  <body>
    <div class="gutter">&nbsp;</div>
    <div class="wrap">
      {{ template "content" . }}
    </div>
    <div class="footer" style="text-align: center;">
      <p>
        <a href="{{ UnsubscribeURL }}" style="color: #888;">{{ L.T "email.unsub" }}</a>
        &nbsp;&nbsp;
        <a href="{{ MessageURL }}"style="color: #888;">{{ L.T "email.viewInBrowser" }}</a>
      </p>
    </div>
    <div class="gutter">&nbsp;{{ TrackView }}</div>
  </body>
</html>
`;

/** A body in the shape of listmonk's sample campaign (our own wording). */
const SAMPLE_BODY = `<h1>Hi {{ .Subscriber.FirstName }}</h1>
<p>Your surname is {{ .Subscriber.LastName }} and you live in {{ .Subscriber.Attribs.city }}.</p>
{{ if eq .Subscriber.Attribs.city "Bergen" }}
  <p>Rainy today?</p>
{{ else }}
  <p>Where are you?</p>
{{ end }}
<p><a href="{{ TrackLink "https://example.com/read?id=1&amp;src=mail" }}">Read more</a></p>
<p><a href="https://example.com/shop@TrackLink">Shop</a></p>`;

export const LISTMONK: GoCase[] = [
  // .Subscriber
  c('subscriber-uuid', '{{ .Subscriber.UUID }}'),
  c('subscriber-email', '<a href="mailto:{{ .Subscriber.Email }}">{{ .Subscriber.Email }}</a>'),
  c('subscriber-name', '{{ .Subscriber.Name }}'),
  c('subscriber-name-escaped', '<p>{{ .Subscriber.Name }}</p>', { subscriber: { name: 'Ann <Lee> & "Co"' } }),
  c('subscriber-first-name', '{{ .Subscriber.FirstName }}'),
  c('subscriber-last-name', '{{ .Subscriber.LastName }}'),
  c('first-name-short-words', '{{ .Subscriber.FirstName }}|{{ .Subscriber.LastName }}', { subscriber: { name: 'Jo Ann Smith Li' } }),
  c('first-name-all-short', '{{ .Subscriber.FirstName }}|{{ .Subscriber.LastName }}', { subscriber: { name: 'Al Bo' } }),
  c('first-name-unicode', '{{ .Subscriber.FirstName }}|{{ .Subscriber.LastName }}', { subscriber: { name: 'Zoë Øy Åse' } }),
  c('first-name-empty', '[{{ .Subscriber.FirstName }}]', { subscriber: { name: '' } }),
  c('subscriber-status', '{{ .Subscriber.Status }}'),
  c('subscriber-id', '{{ .Subscriber.ID }}'),
  c('subscriber-id-compare', '{{ if gt .Subscriber.ID 10 }}big{{ end }}'),
  c('attrib-string', '{{ .Subscriber.Attribs.city }}'),
  c('attrib-float', '{{ .Subscriber.Attribs.score }}'),
  c('attrib-integral-number', '{{ .Subscriber.Attribs.visits }}'),
  c('attrib-big-number', '{{ .Subscriber.Attribs.points }}', { subscriber: { attribs: { points: 2500000 } }, deliberate: 'one-number-type' }),
  c('attrib-list', '{{ .Subscriber.Attribs.tags }}'),
  c('attrib-range', '{{ range .Subscriber.Attribs.tags }}<b>{{ . }}</b>{{ end }}'),
  c('attrib-nested', '{{ .Subscriber.Attribs.nested.k }}'),
  c('attrib-missing', '[{{ .Subscriber.Attribs.nope }}]'),
  c('attrib-missing-nested', '[{{ .Subscriber.Attribs.nope.deeper }}]'),
  c('attrib-eq', '{{ if eq .Subscriber.Attribs.city "Bergen" }}yes{{ else }}no{{ end }}'),
  c('attrib-eq-number', '{{ if eq .Subscriber.Attribs.visits 12.0 }}twelve{{ end }}'),
  c('attrib-eq-number-int-literal', '{{ if eq .Subscriber.Attribs.visits 12 }}twelve{{ end }}', { deliberate: 'one-number-type' }),
  c('attrib-gt-float', '{{ if gt .Subscriber.Attribs.score 5.0 }}high{{ end }}'),
  c('attrib-index', '{{ index .Subscriber.Attribs "city" }}'),
  c('attrib-map', '{{ .Subscriber.Attribs.nested }}'),
  c('attribs-all', '{{ .Subscriber.Attribs }}'),
  c('attrib-with', '{{ with .Subscriber.Attribs.plan }}Plan: {{ . }}{{ end }}'),
  c('attrib-default', '{{ .Subscriber.Attribs.nickname | default .Subscriber.FirstName }}'),
  c('attrib-json', '<script>var a = {{ .Subscriber.Attribs }};</script>'),
  c('attrib-in-url', '<a href="https://example.com/?city={{ .Subscriber.Attribs.city }}&id={{ .Subscriber.UUID }}">x</a>'),
  c('subscriber-created-at', '{{ .Subscriber.CreatedAt }}', { deliberate: 'null-print' }),
  c('subscriber-created-at-time-format', '{{ .Subscriber.CreatedAt.Time.Format "2006-01-02" }}'),
  c('subscriber-created-at-format', '{{ .Subscriber.CreatedAt.Format "2006-01-02" }}', { deliberate: 'time-methods' }),
  c('subscriber-updated-at-valid', '{{ .Subscriber.UpdatedAt.Valid }}'),
  c('subscriber-lists', '{{ .Subscriber.Lists }}', { deliberate: 'lists-value' }),
  c('subscriber-misspelt-field', '{{ .Subscriber.Firstname }}'),
  c('subscriber-method-with-args', '{{ .Subscriber.FirstName "x" }}'),
  // .Campaign
  c('campaign-uuid', '{{ .Campaign.UUID }}'),
  c('campaign-name', '{{ .Campaign.Name }}'),
  c('campaign-subject', '{{ .Campaign.Subject }}'),
  c('campaign-from', '{{ .Campaign.FromEmail }}'),
  c('campaign-id', '{{ .Campaign.ID }}'),
  c('campaign-status', '{{ .Campaign.Status }}'),
  c('campaign-content-type', '{{ .Campaign.ContentType }}'),
  c('campaign-type', '{{ .Campaign.Type }}'),
  c('campaign-messenger', '{{ .Campaign.Messenger }}'),
  c('campaign-tags', '{{ .Campaign.Tags }}'),
  c('campaign-tags-join', '{{ join ", " .Campaign.Tags }}'),
  c('campaign-attribs', '{{ .Campaign.Attribs.theme }} #{{ .Campaign.Attribs.edition }}'),
  c('campaign-counters', '{{ .Campaign.Views }}/{{ .Campaign.Clicks }}/{{ .Campaign.Bounces }}/{{ .Campaign.Sent }}/{{ .Campaign.ToSend }}'),
  c('campaign-template-id', '{{ .Campaign.TemplateID }}', { deliberate: 'null-print' }),
  c('campaign-created-at-time', '{{ .Campaign.CreatedAt.Time.Format "Jan 2006" }}'),
  c('campaign-started-at-time', '{{ .Campaign.StartedAt.Time.Format "2006-01-02 15:04" }}'),
  c('campaign-send-at-valid', '{{ if .Campaign.SendAt.Valid }}scheduled {{ .Campaign.SendAt.Time.Format "Jan 2" }}{{ else }}now{{ end }}', { campaign: { send_at: '2024-03-10T10:00:00Z' } }),
  c('campaign-send-at-null', '{{ if .Campaign.SendAt.Valid }}scheduled{{ else }}now{{ end }}'),
  c('campaign-archive', '{{ .Campaign.Archive }}'),
  c('campaign-misspelt-field', '{{ .Campaign.Titel }}'),
  c('message-subject', '<title>{{ .Subject }}</title>'),
  c('message-subject-rendered', '{{ .Subject }}', { campaign: { subject: 'Hi {{ .Subscriber.FirstName }}' } }),
  // listmonk's functions
  f('tracklink', '<a href="{{ TrackLink "https://example.com/a" }}">a</a>'),
  f('tracklink-dot', '<a href="{{ TrackLink "https://example.com/a" . }}">a</a>'),
  f('tracklink-amp', '<a href="{{ TrackLink "https://example.com/?a=1&amp;b=2" }}">a</a>'),
  f('tracklink-query', '<a href="{{ TrackLink "https://example.com/?q=a b&c=é" }}">a</a>'),
  f('tracklink-text', '{{ TrackLink "https://example.com/t" }}'),
  f('tracklink-shorthand', '<a href="https://example.com/s?x=1@TrackLink">s</a>'),
  f('tracklink-shorthand-text', 'Visit https://example.com/page@TrackLink today'),
  f('tracklink-shorthand-two', '<a href="https://a.example.com/@TrackLink">a</a> <a href="https://b.example.com/x@TrackLink">b</a>'),
  f('tracklink-mailto', '<a href="{{ TrackLink "mailto:help@example.com" }}">mail</a>'),
  f('tracklink-var', '{{ $u := "https://example.com/v" }}<a href="{{ TrackLink $u . }}">v</a>'),
  f('tracklink-attrib', '<a href="{{ TrackLink .Subscriber.Attribs.site . }}">site</a>', { subscriber: { attribs: { site: 'https://ann.example.org/' } } }),
  f('tracklink-pipe', '<a href="{{ "https://example.com/p" | TrackLink }}">p</a>', { deliberate: 'shorthand' }),
  f('tracklink-untracked', '<a href="{{ TrackLink "https://example.com/u" }}">u</a>', { tracking: false }),
  f('trackview', '<p>x</p>{{ TrackView }}'),
  f('trackview-off', '<p>x</p>{{ TrackView }}', { tracking: false }),
  f('trackview-dot', '{{ TrackView . }}', { tracking: false }),
  f('unsubscribe-url', '<a href="{{ UnsubscribeURL }}">unsubscribe</a>'),
  f('unsubscribe-url-text', '{{ UnsubscribeURL }}'),
  f('unsubscribe-url-dot', '{{ UnsubscribeURL . }}'),
  f('unsubscribe-url-spaces', '{{UnsubscribeURL}}|{{   UnsubscribeURL   }}'),
  f('unsubscribe-url-trim', 'x {{- UnsubscribeURL -}} y', { deliberate: 'shorthand' }),
  f('manage-url', '<a href="{{ ManageURL }}">manage</a>'),
  f('optin-url', '<a href="{{ OptinURL }}">confirm</a>'),
  f('optin-url-text', '{{ OptinURL }}'),
  f('message-url', '<a href="{{ MessageURL }}">view</a>'),
  f('archive-url', '<a href="{{ ArchiveURL }}">archive</a>'),
  f('root-url', '<img src="{{ RootURL }}/logo.png">'),
  f('date', '{{ Date "2006-01-02" }}'),
  f('date-ansic', '{{ Date "" }}'),
  f('date-long', '{{ Date "Monday, 2 January 2006 15:04:05 MST" }}'),
  f('l-t', '{{ L.T "email.unsub" }}'),
  f('l-t-unknown', '{{ L.T "no.such.key" }}'),
  f('l-ts', '{{ L.Ts "email.optin.confirmSubWelcome" }}'),
  f('l-ts-params', '{{ L.Ts "no.such.key" "name" "x" }}'),
  f('l-ts-odd', '{{ L.Ts "email.unsub" "name" }}'),
  f('l-tc-one', '{{ L.Tc "globals.terms.list" 1 }}'),
  f('l-tc-many', '{{ L.Tc "globals.terms.list" 5 }}'),
  f('l-tc-zero', '{{ L.Tc "globals.terms.list" 0 }}'),
  f('l-in-attr', '<a title="{{ L.T "email.viewInBrowser" }}">x</a>'),
  f('safe', '{{ Safe "<!--[if mso]><table><![endif]-->" }}'),
  f('safe-attr', '<p title="{{ Safe "<b>x</b>" }}">'),
  f('sprig-in-campaign', '{{ .Subscriber.Name | upper }} {{ now | date "2006" }}'),
  // subjects (text/template, only when they hold a template expression)
  c('subject-plain', '', { target: 'subject' }),
  c('subject-template', '', { campaign: { subject: 'Hi {{ .Subscriber.FirstName }} & co <3' }, target: 'subject' }),
  c('subject-open-only', '', { campaign: { subject: 'Save {{ 50% today' }, target: 'subject' }),
  c('subject-close-only', '', { campaign: { subject: 'Done }} here' }, target: 'subject' }),
  c('subject-braces-reversed', '', { campaign: { subject: 'a }} b {{ c' }, target: 'subject' }),
  c('subject-function', '', { campaign: { subject: '{{ .Campaign.Name | upper }} for {{ .Subscriber.Attribs.city }}' }, target: 'subject' }),
  c('subject-missing-key', '', { campaign: { subject: 'Hi {{ .Subscriber.Attribs.nope }}' }, target: 'subject', deliberate: 'no-value' }),
  c('subject-date', '', { campaign: { subject: 'News {{ Date "January 2006" }}' }, target: 'subject' }),
  c('subject-error', '', { campaign: { subject: 'Hi {{ .Subscriber.Nope }}' }, target: 'subject' }),
  c('subject-syntax-error', '', { campaign: { subject: 'Hi {{ if }}' }, target: 'subject' }),
  // altbody (html/template in listmonk) and headers (text/template)
  c('altbody-verbatim', '<p>x</p>', { campaign: { altbody: 'Plain & simple <text>' }, target: 'altbody' }),
  c('altbody-template', '<p>x</p>', { campaign: { altbody: 'Hi {{ .Subscriber.FirstName }}, read {{ UnsubscribeURL }}' }, target: 'altbody' }),
  c('altbody-escaping', '<p>x</p>', { campaign: { altbody: 'Hi {{ .Subscriber.Name }}' }, subscriber: { name: 'Ann & <Lee>' }, target: 'altbody', deliberate: 'altbody-as-text' }),
  c('header-template', '<p>x</p>', { campaign: { headers: [{ 'X-Sub': '{{ .Subscriber.UUID }}' }] }, target: 'header:X-Sub' }),
  c('header-static', '<p>x</p>', { campaign: { headers: [{ 'X-Static': 'value {{ only' }] }, target: 'header:X-Static' }),
  c('header-no-escaping', '<p>x</p>', { campaign: { headers: [{ 'X-Name': '{{ .Subscriber.Name }}' }] }, subscriber: { name: 'A & <B>' }, target: 'header:X-Name' }),
  // content types
  c('plain-content', 'Hi {{ .Subscriber.Name }} <3', { campaign: { content_type: 'plain' }, subscriber: { name: 'Ann <Lee>' }, deliberate: 'plain-as-text' }),
  c('plain-content-no-html', 'Hi {{ .Subscriber.FirstName }}!', { campaign: { content_type: 'plain' } }),
  c('html-content', '<div>{{ .Subscriber.Email }}</div>', { campaign: { content_type: 'html' } }),
  c('visual-ignores-template', '<html><body>{{ .Subscriber.FirstName }}</body></html>', { campaign: { content_type: 'visual' }, template: '<div>{{ template "content" . }}</div>' }),
  // templates (base) around the body
  tpl('default-like', SAMPLE_BODY, { template: DEFAULT_LIKE }),
  tpl('default-like-untracked', SAMPLE_BODY.replace('&amp;', '&'), { template: DEFAULT_LIKE, tracking: false }),
  f('tracklink-amp-untracked', '<a href="{{ TrackLink "https://example.com/?a=1&amp;b=2" }}">a</a>', { tracking: false, deliberate: 'tracklink-amp' }),
  tpl('content-in-table', '<p>{{ .Subscriber.Name }}</p>', { template: '<table><tr><td class="content">{{ template "content" . }}</td></tr></table>' }),
  tpl('content-twice', '<b>{{ .Subscriber.FirstName }}</b>', { template: '{{ template "content" . }}<hr>{{ template "content" . }}' }),
  tpl('content-with-other-dot', '{{ .Name }}', { template: '{{ template "content" .Campaign }}' }),
  tpl('template-define-used', '<p>body</p>', { template: '{{ define "footer" }}<footer>{{ .Campaign.Name }}</footer>{{ end }}{{ template "content" . }}{{ template "footer" . }}' }),
  tpl('body-define-used-by-body', '{{ define "item" }}<li>{{ . }}</li>{{ end }}<ul>{{ range .Subscriber.Attribs.tags }}{{ template "item" . }}{{ end }}</ul>', { deliberate: 'define-in-body' }),
  tpl('body-block', '{{ block "greet" . }}Hello {{ .Subscriber.FirstName }}{{ end }}', { deliberate: 'define-in-body' }),
  tpl('template-head-subject-escaped', '<p>x</p>', { template: '<html><head><title>{{ .Campaign.Subject }}</title></head><body>{{ template "content" . }}</body></html>', campaign: { subject: 'Tom & Jerry <News>' } }),
  tpl('template-style-attr', '<p>x</p>', { template: '<div style="background: {{ .Campaign.Attribs.theme }}">{{ template "content" . }}</div>' }),
  tpl('template-mso', '<p>x</p>', { template: '<!--[if mso]><table width="600"><tr><td><![endif]-->{{ template "content" . }}<!--[if mso]></td></tr></table><![endif]-->', deliberate: 'html-comments' }),
  tpl('template-literal-braces', '<p>x</p>', { template: '{{ template "content" . }}<p>{{ "{{" }} .Subscriber.FirstName {{ "}}" }}</p>' }),
  tpl('template-missing-space-attr', '<p>x</p>', { template: '{{ template "content" . }}<a href="{{ MessageURL }}"style="color: #888;">view</a>' }),
  tpl('template-no-content', '<p>never shown</p>', { template: '<p>static template</p>' }),
  tpl('template-parse-error', '<p>x</p>', { template: '{{ template "content" . }}{{ end }}' }),
  tpl('body-parse-error', '<p>{{ if .Subscriber.Name }}x</p>'),
  tpl('body-exec-error', '<p>{{ index .Subscriber.Attribs.tags 9 }}</p>'),
  tpl('body-unknown-function', '<p>{{ NoSuchFunction }}</p>'),
  tpl('body-env-refused', '<p>{{ env "HOME" }}</p>'),
  tpl('body-expandenv-refused', '<p>{{ expandenv "$HOME" }}</p>'),
  tpl('body-getHostByName-refused', '<p>{{ getHostByName "example.com" }}</p>'),
  // system-e-mail-like constructs (maps as data, index on keys, header/footer defines)
  tpl('status-like', '{{ define "status" }}{{ template "header" . }}<h2>{{ .Campaign.Name }}</h2><table><tr><td>{{ L.T "email.status.status" }}</td><td>{{ .Campaign.Type }}</td></tr></table>{{ template "footer" }}{{ end }}{{ define "header" }}<html><body>{{ end }}{{ define "footer" }}</body></html>{{ end }}{{ template "status" . }}', { deliberate: 'define-in-body' }),
  tpl('range-lists-like-optin', '<ul>{{ range $i, $l := .Subscriber.Attribs.lists }}{{ if eq .type "public" }}<li>{{ .name }}</li>{{ else }}<li>{{ L.T "email.optin.privateList" }}</li>{{ end }}{{ end }}</ul>',
    { subscriber: { attribs: { lists: [{ type: 'public', name: 'News' }, { type: 'private', name: 'Secret' }] } } }),
  tpl('markdown-like-table', '<table><thead><tr><th>Item</th></tr></thead><tbody>{{ range .Subscriber.Attribs.tags }}<tr><td>{{ . }}</td></tr>{{ end }}</tbody></table>'),
  tpl('button-link', '<a class="button" href="{{ TrackLink "https://example.com/cta" }}" target="_blank" rel="noopener">Go</a>'),
  tpl('img-with-attribs', '<img src="https://example.com/{{ .Subscriber.Attribs.plan }}.png" alt="{{ .Subscriber.Name }}" width="100">'),
  // more listmonk details
  f('tracklink-no-spaces', '<a href="{{TrackLink "https://example.com/ns"}}">x</a>'),
  f('tracklink-trim-markers', '<a href="{{- TrackLink "https://example.com/tm" -}}">x</a>', { deliberate: 'shorthand' }),
  f('tracklink-single-quoted-attr', "<a href='{{ TrackLink \"https://example.com/sq\" }}'>x</a>"),
  f('tracklink-shorthand-parens', '<a href="https://example.com/p?a=(1)@TrackLink">x</a>'),
  f('tracklink-shorthand-quote', "<a href=\"https://example.com/it's@TrackLink\">x</a>", { deliberate: 'shorthand' }),
  f('tracklink-shorthand-unicode', '<a href="https://example.com/é@TrackLink">x</a>'),
  f('tracklink-shorthand-in-text-mode-subject', '', { campaign: { subject: 'Read https://example.com/s@TrackLink' }, target: 'subject' }),
  f('tracklink-shorthand-in-subject-template', '', { campaign: { subject: '{{ .Campaign.Name }}: https://example.com/s@TrackLink' }, target: 'subject' }),
  f('tracklink-same-url-twice', '<a href="{{ TrackLink "https://example.com/t" }}">1</a><a href="{{ TrackLink "https://example.com/t" }}">2</a>'),
  f('tracklink-in-text-attr', '<p data-link="{{ TrackLink "https://example.com/d" }}">x</p>'),
  f('unsubscribe-in-subject', '', { campaign: { subject: 'Bye {{ UnsubscribeURL }}' }, target: 'subject' }),
  f('unsubscribe-in-header', '<p>x</p>', { campaign: { headers: [{ 'List-Help': '<{{ UnsubscribeURL }}>' }] }, target: 'header:List-Help', deliberate: 'shorthand' }),
  f('unsubscribe-in-header-dot', '<p>x</p>', { campaign: { headers: [{ 'List-Help': '<{{ UnsubscribeURL . }}>' }] }, target: 'header:List-Help' }),
  f('manage-url-in-text', 'Manage: {{ ManageURL }}'),
  f('message-url-dot', '{{ MessageURL . }}'),
  f('optin-url-dot', '{{ OptinURL . }}'),
  f('archive-url-in-text', '{{ ArchiveURL }}'),
  f('root-url-in-js', '<script>var root = {{ RootURL }};</script>'),
  f('l-ts-param-known-key', '{{ L.Ts "globals.messages.notFound" "name" "List" }}'),
  f('l-ts-param-resolves-keys', '{{ L.Ts "globals.messages.notFound" "name" "{globals.terms.list}" }}'),
  f('l-ts-two-params', '{{ L.Ts "globals.messages.confirmDelete" "num" "3" "name" "lists" }}'),
  f('l-tc-negative', '{{ L.Tc "globals.terms.list" -1 }}'),
  f('l-t-pipe', '{{ "email.unsub" | L.T }}'),
  f('l-t-in-url-attr', '<a href="https://example.com/?l={{ L.T "email.unsub" }}">x</a>'),
  f('safe-pipe', '{{ "<b>x</b>" | Safe }}'),
  f('safe-in-script', '<script>var s = {{ Safe "<b>" }};</script>'),
  f('date-in-attr', '<p title="{{ Date "2006-01-02" }}">x</p>'),
  f('date-kitchen', '{{ Date "3:04PM" }}'),
  c('subscriber-name-in-js', '<script>var n = {{ .Subscriber.Name }};</script>', { subscriber: { name: "O'Brien </script>" } }),
  c('subscriber-attribs-bool', '{{ if .Subscriber.Attribs.vip }}VIP{{ else }}regular{{ end }}', { subscriber: { attribs: { vip: true } } }),
  c('subscriber-attribs-null', '[{{ .Subscriber.Attribs.gone }}]', { subscriber: { attribs: { gone: null } } }),
  c('subscriber-attribs-deep-list', '{{ range .Subscriber.Attribs.orders }}{{ .id }}:{{ .total }} {{ end }}', { subscriber: { attribs: { orders: [{ id: 1, total: 9.99 }, { id: 2, total: 100 }] } } }),
  c('subscriber-attribs-printf', '{{ printf "%.2f" .Subscriber.Attribs.score }}'),
  c('subscriber-attribs-int-printf', '{{ printf "%d" .Subscriber.Attribs.visits }}', { deliberate: 'one-number-type' }),
  c('subscriber-attribs-len', '{{ len .Subscriber.Attribs.tags }}'),
  c('subscriber-email-in-url', '<a href="https://example.com/?e={{ .Subscriber.Email }}">x</a>', { subscriber: { email: 'a+b@example.org' } }),
  c('subscriber-uuid-in-js-string', '<script>var u = "{{ .Subscriber.UUID }}";</script>'),
  c('campaign-name-escaped', '<h1>{{ .Campaign.Name }}</h1>', { campaign: { name: 'Q&A <2024>' } }),
  c('campaign-from-email-in-mailto', '<a href="mailto:{{ .Campaign.FromEmail }}">x</a>'),
  c('campaign-id-arith', '{{ add .Campaign.ID 1 }}'),
  c('campaign-uuid-and-subscriber', '{{ .Campaign.UUID }}/{{ .Subscriber.UUID }}'),
  c('header-two-sets', '<p>x</p>', { campaign: { headers: [{ 'X-A': '{{ .Campaign.Name }}' }, { 'X-B': 'static' }] }, target: 'header:X-A' }),
  c('altbody-with-link', '<p>x</p>', { campaign: { altbody: 'Read: {{ TrackLink "https://example.com/alt" }}' }, target: 'altbody' }),
  tpl('template-subject-in-title', '<p>x</p>', { template: '<title>{{ .Campaign.Subject }}</title>{{ template "content" . }}', campaign: { subject: 'Hi {{ .Subscriber.FirstName }}' } }),
  tpl('template-conditional-footer', '<p>x</p>', { template: '{{ template "content" . }}{{ if .Campaign.Attribs.footer }}<footer>{{ .Campaign.Attribs.footer }}</footer>{{ end }}', campaign: { attribs: { footer: 'Bye & thanks' } } }),
  tpl('template-with-css-vars', '<p>x</p>', { template: '<style>.c { color: {{ .Campaign.Attribs.color }}; }</style>{{ template "content" . }}', campaign: { attribs: { color: '#336699' } } }),
  tpl('template-table-layout', '<p>Body</p>', { template: '<table role="presentation" width="100%" cellpadding="0"><tr><td align="center"><table width="600"><tr><td style="padding: 20px; font-family: Arial, sans-serif;">{{ template "content" . }}</td></tr><tr><td style="font-size: 12px; color: #888;"><a href="{{ UnsubscribeURL }}" style="color: #888;">Unsubscribe</a> | <a href="{{ ManageURL }}">Manage</a></td></tr></table></td></tr></table>' }),
  tpl('template-preheader', '<p>Body</p>', { template: '<div style="display:none;max-height:0;overflow:hidden;">{{ .Campaign.Subject }} &#8199;&#65279;&#847;</div>{{ template "content" . }}' }),
  tpl('content-in-attribute', '{{ .Subscriber.Name }}', { template: '<div title="{{ template "content" . }}">x</div>', subscriber: { name: 'A "B" <c>' } }),
  tpl('content-in-script', '{{ .Subscriber.Name }}', { template: '<script>var n = {{ template "content" . }};</script>' }),
  tpl('content-in-url', '{{ .Subscriber.UUID }}', { template: '<a href="https://example.com/u/{{ template "content" . }}">x</a>' }),
  // constructs of listmonk's system e-mails (maps as data, index on keys, header/footer defines), our own markup
  {
    id: 'html/system/campaign-status-like', kind: 'html',
    tpl: '{{ define "header" }}<html><body><div class="wrap">{{ end }}{{ define "footer" }}</div></body></html>{{ end }}'
      + '{{ template "header" . }}<h2>{{ L.T "email.status.campaignUpdateTitle" }}</h2><table>'
      + '<tr><td>#</td><td>{{ index . "ID" }}</td></tr><tr><td>{{ index . "Name" }}</td><td>{{ index . "Status" }}</td></tr>'
      + '<tr><td>{{ L.T "email.status.campaignSent" }}</td><td>{{ index . "Sent" }} / {{ index . "ToSend" }}</td></tr>'
      + '{{ if ne (index . "Reason") "" }}<tr><td>{{ L.T "email.status.campaignReason" }}</td><td>{{ index . "Reason" }}</td></tr>{{ end }}'
      + '</table><p><a href="{{ RootURL }}/admin/campaigns/{{ index . "ID" }}">open</a></p>{{ template "footer" }}',
    data: { ID: { $int: 7 }, Name: 'March <news>', Status: 'finished', Sent: { $int: 42 }, ToSend: { $int: 42 }, Reason: 'done & dusted' },
  },
  {
    id: 'html/system/import-status-like', kind: 'html',
    tpl: '<p>{{ L.T "email.status.importFile" }}: {{ .Name }}</p><p>{{ L.T "email.status.status" }}: {{ .Status }}</p><p>{{ L.T "email.status.importRecords" }}: {{ .Imported }} / {{ .Total }}</p>',
    data: { Name: 'subs.csv', Status: 'finished', Imported: { $int: 990 }, Total: { $int: 1000 } },
  },
  {
    id: 'html/system/optin-like', kind: 'html',
    tpl: '<p>{{ L.T "email.optin.confirmSubWelcome" }} {{ .Subscriber.FirstName }}</p><ul>{{ range $i, $l := .Lists }}'
      + '{{ if eq .Type "public" }}<li>{{ .Name }}</li>{{ else }}<li>{{ L.T "email.optin.privateList" }}</li>{{ end }}{{ end }}</ul>'
      + '<p><a class="button" href="{{ .OptinURL }}">{{ L.T "email.optin.confirmSub" }}</a></p><p><a href="{{ .UnsubURL }}">{{ L.T "email.unsub" }}</a></p>',
    data: { Subscriber: { FirstName: 'Ann' }, Lists: [{ Type: 'public', Name: 'News & views' }, { Type: 'private', Name: 'Secret' }], OptinURL: 'https://lists.example.com/subscription/optin/abc?l=1&l=2', UnsubURL: 'https://lists.example.com/subscription/x/y' },
  },
  {
    id: 'html/system/optin-campaign-literal-braces', kind: 'html',
    tpl: '<p>{{ L.T "email.optin.confirmSubWelcome" }} {{ "{{" }}.Subscriber.FirstName {{ "}}" }}</p>',
  },
  {
    id: 'text/system/tx-sample-like', kind: 'text',
    tpl: 'Hello {{ .Subscriber.Name }}, order {{ .Tx.Data.order_id }} ships on {{ .Tx.Data.shipping_date }}. {{ L.T "public.poweredBy" }}',
    data: { Subscriber: { Name: 'Ann' }, Tx: { Data: { order_id: '1234', shipping_date: '2024-03-10' } } },
  },
  {
    id: 'html/system/tx-numbers', kind: 'html',
    tpl: '<p>Total: {{ .Tx.Data.total }} ({{ printf "%.2f" .Tx.Data.total }}), items: {{ len .Tx.Data.items }}, id {{ .Tx.Data.id }}</p>',
    data: { Tx: { Data: { total: 19.5, items: ['a', 'b'], id: 98765 } } },
  },
];
