/**
 * A real browser for UI tests: Debian's Chromium driven by playwright-core (the same as
 * test/e2e/cors-browser.test.ts), one per test file, with helpers to open a page at phone or desktop
 * size in light or dark, to run axe-core (failing on serious or critical violations), to collect CSP
 * violations and console errors, and to take screenshots into ./screenshots/ (gitignored; look at them).
 *
 * Needs /usr/bin/chromium (or MAILROOM_TEST_CHROMIUM). Outside CI a machine without it skips the file
 * (use `describe.skipIf(!browserAvailable)`); in CI its absence fails.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

/** The Chromium binary used. */
export const CHROMIUM = process.env.MAILROOM_TEST_CHROMIUM ?? '/usr/bin/chromium';
/** Whether it exists (browser tests skip when not, except in CI). */
export const browserAvailable = existsSync(CHROMIUM);
if (!browserAvailable && process.env.CI) throw new Error(`browser tests need Chromium at ${CHROMIUM} (.ci/run installs Debian's chromium)`);

/** The two sizes every page is checked at (issue 16): a phone and a desktop. */
export const VIEWPORTS = {
  phone: { width: 390, height: 844 },
  desktop: { width: 1440, height: 900 },
} as const;
/** A viewport name. */
export type ViewportName = keyof typeof VIEWPORTS;
/** A colour scheme. */
export type Scheme = 'light' | 'dark';

/**
 * Launches one Chromium for the calling test file (beforeAll) and closes it (afterAll). Returns a getter:
 * call it inside tests. When Chromium is absent the getter throws; guard the file with `browserAvailable`.
 */
export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (!browserAvailable) return;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error(`no browser: Chromium not found at ${CHROMIUM}`);
    return browser;
  };
}

/** An opened page with what it reported: CSP violations and console errors, as they happen. */
export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  /** Messages of Content-Security-Policy violations seen so far. */
  cspViolations: string[];
  /** Console errors and uncaught page errors seen so far. */
  errors: string[];
  close(): Promise<void>;
}

/**
 * Opens `url` in a new context of `size` and `scheme` (`javaScript: false` to check a page works as plain
 * links and forms); waits for the load event.
 */
export async function openPage(browser: Browser, url: string, opts: { size?: ViewportName; scheme?: Scheme; javaScript?: boolean } = {}): Promise<OpenedPage> {
  const context = await browser.newContext({ viewport: VIEWPORTS[opts.size ?? 'desktop'], colorScheme: opts.scheme ?? 'light', reducedMotion: 'reduce', javaScriptEnabled: opts.javaScript ?? true });
  const page = await context.newPage();
  const cspViolations: string[] = [];
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    if (/Content.Security.Policy/iu.test(m.text())) cspViolations.push(m.text());
    else errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url, { waitUntil: 'load' });
  return { context, page, cspViolations, errors, close: () => context.close() };
}

/** Re-opens the same URL under another size/scheme in the same context's page (emulated media). */
export async function setScheme(page: Page, scheme: Scheme): Promise<void> {
  await page.emulateMedia({ colorScheme: scheme });
}

let axeSource: string | undefined;

/** One axe violation, short. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core on the page (WCAG 2.1 A/AA rules and best practices) and returns its serious and
 * critical violations. The source is evaluated through the DevTools protocol, which the page's CSP
 * does not govern, so the page under test keeps its real policy.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
    const res = await axe.run(document, { resultTypes: ['violations'] });
    return res.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => String(n.target.join(' '))) }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Throws with a readable list when axe finds serious or critical violations. */
export async function expectAccessible(page: Page, label = page.url()): Promise<void> {
  const v = await axeViolations(page);
  if (v.length > 0) throw new Error(`axe found ${v.length} serious/critical violation(s) on ${label}:\n${v.map((x) => `- ${x.id} (${x.impact}): ${x.help} at ${x.targets.slice(0, 5).join(', ')}`).join('\n')}`);
}

/** Where screenshots go (gitignored). */
export const SCREENSHOT_DIR = new URL('../../screenshots/', import.meta.url);

/** Saves a screenshot (the full page unless `fullPage: false`, e.g. for an open dialog) as screenshots/<name>.png; returns its path. */
export async function screenshot(page: Page, name: string, opts: { fullPage?: boolean } = {}): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = new URL(`${name}.png`, SCREENSHOT_DIR).pathname;
  await page.screenshot({ path, fullPage: opts.fullPage ?? true });
  return path;
}
