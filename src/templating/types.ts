/**
 * Public types of the template language. See README.md in this folder for the language itself.
 */

/** `html`: contextual auto-escaping like Go's html/template; `text`: no escaping (Go's text/template). */
export type TemplateMode = 'html' | 'text';

/** One named template source, e.g. `{ name: 'base', source: templateBody }`. */
export interface TemplateSource {
  name: string;
  source: string;
}

/** Limits applied to one `execute` call. Every bound, when exceeded, throws TemplateExecError. */
export interface ExecLimits {
  /** Node evaluations (actions, commands, range iterations, template calls); default 1,000,000. */
  maxSteps?: number;
  /** UTF-8 bytes of output, also the size cap of any single string a function builds; default 10 MB. */
  maxOutputBytes?: number;
  /** Nesting of `template`/`block` calls; default 100 (Go allows 100,000; JS stacks are smaller). */
  maxDepth?: number;
}

/** ExecLimits with every default filled in. */
export type ResolvedLimits = Required<ExecLimits>;

/** Defaults of ExecLimits. */
export const DEFAULT_LIMITS: ResolvedLimits = Object.freeze({
  maxSteps: 1_000_000,
  maxOutputBytes: 10 * 1024 * 1024,
  maxDepth: 100,
});

/**
 * Per-message hooks used by listmonk's functions (`TrackLink`, `UnsubscribeURL`, …). All optional:
 * a missing URL hook falls back to listmonk's URL formula built from `rootUrl` and the UUIDs in the
 * data (`.Campaign.UUID`, `.Subscriber.UUID`); a missing `trackLink` returns the URL untouched
 * (as listmonk does with tracking disabled); a missing `trackView` returns ''.
 * Hooks are called synchronously and must not throw for ordinary input.
 */
export interface RenderEnv {
  /** Root URL without trailing slash, e.g. `https://lists.example.com`. */
  rootUrl?: string;
  /** What `LogoURL` returns (setting `app.logo_url`); default ''. */
  logoUrl?: string;
  /** Language of `L` (a catalogue in src/i18n, setting `app.lang`); default and fallback 'en'. */
  lang?: string;
  /** Returns the tracked URL for `url` (the caller registers links ahead of time, see trackedUrls()). */
  trackLink?(url: string, root: unknown): string;
  /** Returns the `<img …>` view-tracking tag (inserted as safe HTML) or ''. */
  trackView?(root: unknown): string;
  unsubscribeUrl?(root: unknown): string;
  manageUrl?(root: unknown): string;
  optinUrl?(root: unknown): string;
  messageUrl?(root: unknown): string;
  archiveUrl?(root: unknown): string;
  /** Clock for `Date` and `now`; default real time. */
  now?(): Date;
}

/** What every template function receives first. `root` is the data passed to `execute`. */
export interface CallContext {
  root: unknown;
  env: RenderEnv;
  /** Limits of the running execution; functions that build strings keep under maxOutputBytes. */
  limits: ResolvedLimits;
  /**
   * Counts `units` of work against maxSteps (throws TemplateExecError when exceeded). Every call
   * is already charged for the size of its arguments and result (one unit per list element or per
   * 64 characters); functions doing more than linear work charge the rest themselves.
   */
  charge(units: number): void;
}

/** A template function: `ctx` first, then the template arguments (a piped value comes last). */
export type TemplateFunc = (ctx: CallContext, ...args: unknown[]) => unknown;

/** Extra functions by name, merged over the built-ins at compile time. */
export type FuncMap = Record<string, TemplateFunc>;

/** Options of compile(). */
export interface CompileOptions {
  mode: TemplateMode;
  /** Extra functions merged over the built-ins (listmonk + Sprig + Go built-ins). */
  funcs?: FuncMap;
  /** Apply listmonk's `URL@TrackLink` shorthand rewrite before parsing; default true (campaign sources). */
  shorthands?: boolean;
}

/** Marks a string as safe HTML (what `Safe` and `TrackView` return); the html escaper inserts it raw. */
export class SafeHTML {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}
