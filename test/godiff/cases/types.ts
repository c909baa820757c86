/**
 * The differential corpus' case shape (issue 15, "A differential test against Go itself"). Each case
 * is rendered by Go (test/godiff/render.go: html/template or text/template with Sprig, set up as
 * listmonk sets them up) and by Mailroom (src/templating, or the campaign message builder), and the
 * outputs are compared byte for byte; when either fails, both must fail (messages are not compared).
 *
 * Data is JSON, decoded by Go as encoding/json decodes it (numbers are float64, as in listmonk's
 * subscriber attribs and tx data). Go types JSON cannot express are written as one-key wrappers:
 * `{$int: 3}` (Go int, a plain number for Mailroom), `{$time: '2024-…Z'}` (time.Time / Date),
 * `{$html: '<b>'}` (template.HTML / SafeHTML), `{$strings: […]}` ([]string), `{$ints: […]}` ([]int).
 */

/** Why Mailroom deliberately differs from listmonk; each key is explained in DELIBERATE. */
export type DeliberateKey = keyof typeof DELIBERATE;

/** A helper whose branch is expected to make a pending case agree. */
export type PendingOwner = 'sprig' | 'tmpl';

/** One corpus case; exactly one of `tpl`/`sources` (html/text) or `campaign` (campaign) is used. */
export interface GoCase {
  /** Unique, readable identifier (also the test report's name for it). */
  id: string;
  /** `html`: html/template; `text`: text/template; `campaign`: a whole listmonk campaign message. */
  kind: 'html' | 'text' | 'campaign';
  /** html/text: the single source, named `content`. */
  tpl?: string;
  /** html/text: several sources, the first is the entry (listmonk's AddParseTree composition). */
  sources?: Array<{ name: string; source: string }>;
  /** html/text: the data (`.`), JSON with the wrappers above. */
  data?: unknown;
  /** campaign: fields over the default campaign fixture (snake_case, as stored). */
  campaign?: Record<string, unknown>;
  /** campaign: fields over the default subscriber fixture. */
  subscriber?: Record<string, unknown>;
  /** campaign: the campaign's template body (null or absent: `{{ template "content" . }}`). */
  template?: string | null;
  /** campaign: which output is compared (default `body`). */
  target?: 'body' | 'subject' | 'altbody' | `header:${string}`;
  /** campaign: link and view tracking on (default true). */
  tracking?: boolean;
  /** A deliberate difference: Mailroom differs from listmonk on purpose (see DELIBERATE). */
  deliberate?: DeliberateKey;
  /** A difference another helper's branch fixes (Sprig functions: sprig; data model, i18n, small ones: tmpl). */
  pending?: PendingOwner;
  /**
   * The reference cannot speak for listmonk here: Debian's Go 1.19 / Sprig 3.2.3 behave differently
   * from listmonk's Go 1.26 / Sprig 3.3.0 for this case; the text says how (and what listmonk does).
   */
  reference?: string;
  /** Free-text note shown when the case differs. */
  note?: string;
}

/**
 * Mailroom's deliberate differences from listmonk's templates, each with its reason. These rows are
 * the template section of docs/differences-from-listmonk.md (src/templating/README.md lists them too).
 */
export const DELIBERATE = {
  'no-value': 'A missing map key or a nil value prints nothing in text mode too; Go\'s text/template prints "<no value>" (subjects and headers would carry it).',
  'nil-chain': 'Fields of a nil or missing value are empty; Go fails with "nil pointer evaluating …".',
  'lenient-args': 'Functions accept any printable value where Go rejects the argument\'s type (Sprig string parameters, printf\'s format, index keys, slice of a string, Date, L.T, Safe…); Go fails ("wrong type for value", "should be string", Sprig\'s slice refuses strings).',
  'one-number-type': 'One number type: integral numbers are ints (they print as integers where Go prints float64 1e6 as 1e+06, %T says int, they index lists and range counts), %d/%f accept either, ints and floats compare by value (Go: "incompatible types for comparison"), and integers beyond 2^53 lose precision (JavaScript numbers).',
  'characters': 'len, index, slice, substr, trunc and abbrev count characters, not UTF-8 bytes.',
  'html-comments': 'HTML comments are kept (Outlook\'s <!--[if mso]> needs them) and actions in them are HTML-escaped; Go strips comments and their actions.',
  'data-images': 'Raster data: image URLs (base64 png/gif/jpeg/webp) are allowed in URL attributes; Go turns every data: URL into #ZgotmplZ.',
  'non-text-end': 'A template may end inside a tag, attribute or script; Go fails with "ends in a non-text context".',
  'strict-fromjson': 'fromJson fails on bad input (like mustFromJson); Sprig\'s fromJson silently returns nothing.',
  'sprig-date-iso': 'Sprig\'s date accepts ISO-8601 strings; Sprig ignores a string and formats the current time.',
  'trailing-pipe': 'A pipeline ending in "|" is a syntax error; Go accepts "{{ .x | }}".',
  'depth': 'Template calls nest at most 100 deep (Go: 100,000) to stay inside the JS stack.',
  'shorthand': 'listmonk\'s functions take an optional trailing "." in every spelling (Go needs listmonk\'s rewrite to add it), and the url@TrackLink shorthand takes only URLs without spaces or quotes.',
  'unsupported': 'Not supported: complex numbers, %p, %[n] argument indexes, %x/%X/%b of non-integral numbers (Go\'s hexadecimal floats).',
  'time-methods': '.CreatedAt.Format works as well as listmonk\'s .CreatedAt.Time.Format (a null.Time in listmonk has no Format method).',
  'define-in-body': 'Templates defined in a campaign body are visible to the whole message; listmonk adds only the body\'s main tree to the campaign template, so its defines are lost ("no such template").',
  'plain-as-text': 'plain campaigns are rendered as text (no HTML escaping) and not wrapped in the HTML template; listmonk wraps and HTML-escapes them.',
  'altbody-as-text': 'The altbody is rendered as text; listmonk renders it with html/template, HTML-escaping values in a plain-text part.',
  'tracklink-amp': 'TrackLink turns &amp; into & in its URL also when tracking is off; listmonk then returns the URL as written and html/template escapes it to &amp;amp; (a broken link).',
  'nospace-bytes': 'nospace removes whitespace and keeps other characters; Sprig\'s nospace works on bytes and mangles non-ASCII text (é becomes Ã©, a no-break space leaves Â).',
  'crypto-left-out': 'Sprig\'s password and certificate functions (bcrypt, htpasswd, derivePassword, genPrivateKey, genCA…, buildCustomCert) are not defined: each call costs more CPU than a message\'s step budget, and a password hash or private key has no place in an e-mail (docs/differences-from-listmonk.md).',
  'go-types': 'typeOf, typeIs, typeIsLike and kindOf report Mailroom\'s value types: one number type (int when integral) and every list []interface {}; Go reports float64 for JSON numbers and []string for toStrings.',
  'sprig-duration-int': 'duration reads any integer (duration 95 is 1m35s, as Sprig documents); Sprig reads only int64 and strings, so a number written in a template gives 0s.',
  'null-print': 'A null.Time or null.Int field (.Subscriber.CreatedAt, .Campaign.TemplateID) prints its value; listmonk prints the Go struct ({2023-05-06 … true}, {1 true}).',
  'lists-value': '.Subscriber.Lists is a list of maps (range, index and .name work on it, and it prints as one); listmonk holds the raw JSON bytes, which print as JSON text.',
} as const;
