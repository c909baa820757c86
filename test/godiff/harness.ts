/**
 * The differential test's machinery (issue 15): builds test/godiff/render.go with Debian's Go and
 * Sprig in GOPATH mode (cached by source hash under the OS temp directory), runs every case through
 * it in one Go process, renders the same cases with Mailroom, and classifies each case as agreeing,
 * deliberate, pending (another helper's branch), reference-limited (Go 1.19 is not listmonk's Go
 * 1.26) or unexplained.
 */
import { createHash } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CampaignMessageBuilder, type CampaignForMessage, type SubscriberForMessage } from '../../src/mail/campaign-message.js';
import { CampaignLinks, type LinkRegistry } from '../../src/modules/tracking/links.js';
import { compile, SafeHTML } from '../../src/templating/index.js';
import type { GoCase } from './cases/types.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const RENDER_GO = join(HERE, 'render.go');
/** Where Debian's golang-github-masterminds-sprig-dev puts Sprig (GOPATH layout). */
const DEBIAN_GOPATH = '/usr/share/gocode';
const SPRIG_DIR = join(DEBIAN_GOPATH, 'src/github.com/Masterminds/sprig');

/** The fixed clock both sides use for Date and now: 2024-03-05 14:07:09.25 UTC (a Tuesday). */
export const NOW = new Date(Date.UTC(2024, 2, 5, 14, 7, 9, 250));
/** The root URL both sides use. */
export const ROOT = 'https://lists.example.com';

/** The default campaign fixture (a stored campaign row, as listmonk's API names its fields). */
export const CAMPAIGN = {
  id: 7,
  uuid: '5b4d2b6c-1f2a-4c3d-9e8f-0a1b2c3d4e5f',
  name: 'March news',
  subject: 'News for March',
  from_email: 'News <news@example.com>',
  body: '<p>Hello</p>',
  body_source: null,
  altbody: null,
  content_type: 'richtext',
  status: 'running',
  type: 'regular',
  tags: ['monthly', 'news'],
  headers: [] as Array<Record<string, string>>,
  attribs: { edition: 3, theme: 'spring' },
  template_id: 1,
  messenger: 'email',
  archive: false,
  archive_slug: null,
  archive_template_id: null,
  archive_meta: {},
  send_at: null,
  started_at: '2024-03-01T09:00:00Z',
  created_at: '2024-02-20T10:11:12Z',
  updated_at: '2024-02-28T08:09:10Z',
  views: 12,
  clicks: 5,
  bounces: 1,
  to_send: 100,
  sent: 42,
  lists: [{ id: 1, name: 'Default list' }],
};

/** The default subscriber fixture (a subscribers row). */
export const SUBSCRIBER = {
  id: 42,
  uuid: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
  email: 'ann.lee@example.org',
  name: 'Ann Lee',
  status: 'enabled',
  attribs: { city: 'Bergen', plan: 'pro', score: 7.5, visits: 12, tags: ['a', 'b'], nested: { k: 'v' } },
  created_at: '2023-05-06T07:08:09.123Z',
  updated_at: '2024-01-02T03:04:05Z',
  lists: [{ id: 1, name: 'Default list' }],
};

/** One side's answer for a case. */
export interface Outcome {
  ok: boolean;
  out: string;
  err?: string;
}

/** The Go side's answer for the whole run. */
export interface GoRun {
  goVersion: string;
  funcs: string[];
  results: Array<Outcome & { id: string }>;
}

/** Why the Go side cannot run here, or null when it can. */
export function goUnavailable(): string | null {
  const v = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (v.error || v.status !== 0) return 'the go command is not installed (apt-get install golang-go)';
  if (!existsSync(SPRIG_DIR)) return `Sprig is not installed at ${SPRIG_DIR} (apt-get install golang-github-masterminds-sprig-dev)`;
  return null;
}

/** Builds render.go once per source and Go version; returns the binary's path. */
export function buildRenderer(): string {
  const goVersion = spawnSync('go', ['version'], { encoding: 'utf8' }).stdout.trim();
  const hash = createHash('sha256').update(readFileSync(RENDER_GO)).update(goVersion).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), 'mailroom-godiff');
  const bin = join(dir, `render-${hash}`);
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  const tmp = `${bin}.${process.pid}.tmp`;
  const env = {
    ...process.env,
    GO111MODULE: 'off',
    GOPATH: `${join(dir, 'gopath')}:${DEBIAN_GOPATH}`,
    GOCACHE: join(dir, 'gocache'),
    GOFLAGS: '',
    CGO_ENABLED: '0',
  };
  const r = spawnSync('go', ['build', '-o', tmp, RENDER_GO], { env, encoding: 'utf8', cwd: HERE });
  if (r.status !== 0) {
    rmSync(tmp, { force: true });
    throw new Error(`building ${RENDER_GO} failed:\n${r.stderr}${r.stdout}`);
  }
  renameSync(tmp, bin);
  return bin;
}

/** Turns the corpus' typed wrappers into Mailroom values ($int → number, $time → Date, $html → SafeHTML). */
export function toMailroom(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(toMailroom);
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 1) {
    const [k] = keys as [string];
    if (k === '$int') return o[k];
    if (k === '$time') return new Date(o[k] as string);
    if (k === '$html') return new SafeHTML(o[k] as string);
    if (k === '$strings' || k === '$ints') return o[k];
  }
  return Object.fromEntries(keys.map((key) => [key, toMailroom(o[key])]));
}

/** The stand-in for listmonk's links table: a UUID-shaped hash of the URL (render.go's FakeLinkUUID). */
export function fakeLinkUuid(url: string): string {
  const x = createHash('sha256').update(url).digest('hex').slice(0, 32);
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

/** The campaign and subscriber rows of a campaign case (fixtures with the case's fields over them). */
export function campaignRows(c: GoCase): { campaign: typeof CAMPAIGN; subscriber: typeof SUBSCRIBER } {
  return {
    campaign: { ...CAMPAIGN, ...(c.campaign ?? {}) } as typeof CAMPAIGN,
    subscriber: { ...SUBSCRIBER, ...(c.subscriber ?? {}) } as typeof SUBSCRIBER,
  };
}

const date = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(v as string));

function renderCampaignWithMailroom(c: GoCase): string {
  const { campaign: row, subscriber: s } = campaignRows(c);
  // Every column of the row, with dates as Date: the builder picks what it needs.
  const campaign = {
    ...row,
    altbody: row.altbody ?? null,
    send_at: date(row.send_at),
    started_at: date(row.started_at),
    created_at: date(row.created_at),
    updated_at: date(row.updated_at),
  } as unknown as CampaignForMessage;
  const sub = { ...s, created_at: date(s.created_at), updated_at: date(s.updated_at) } as unknown as SubscriberForMessage;
  const tracking = c.tracking !== false;
  const registry = { uuidFor: (_id: number, url: string) => fakeLinkUuid(url) } as unknown as LinkRegistry;
  const links = new CampaignLinks(registry, { id: row.id, uuid: row.uuid }, ROOT, true);
  const builder = new CampaignMessageBuilder(campaign, c.template ?? null, {
    rootUrl: ROOT,
    trackViews: tracking,
    individualTracking: true,
    ...(tracking ? { trackLink: (u: string, subUuid: string) => links.trackLink(u, subUuid) } : {}),
  });
  const m = builder.render(sub);
  const target = c.target ?? 'body';
  if (target === 'body') return m.html ?? m.text ?? '';
  if (target === 'subject') return m.subject;
  if (target === 'altbody') return m.text ?? '';
  const name = target.slice('header:'.length);
  return m.headers.find(([k]) => k === name)?.[1] ?? '';
}

/** Renders one case with Mailroom. */
export function renderWithMailroom(c: GoCase): Outcome {
  try {
    if (c.kind === 'campaign') return { ok: true, out: renderCampaignWithMailroom(c) };
    const sources = c.sources ?? [{ name: 'content', source: c.tpl ?? '' }];
    const t = compile(sources, { mode: c.kind });
    return { ok: true, out: t.execute(toMailroom(c.data), { rootUrl: ROOT, now: () => new Date(NOW.getTime()) }) };
  } catch (e) {
    return { ok: false, out: '', err: e instanceof Error ? e.message : String(e) };
  }
}

/** The case as render.go reads it. */
function toGoCase(c: GoCase): Record<string, unknown> {
  if (c.kind !== 'campaign') {
    return { id: c.id, kind: c.kind, sources: c.sources ?? [{ name: 'content', source: c.tpl ?? '' }], data: c.data ?? null };
  }
  const { campaign, subscriber } = campaignRows(c);
  return {
    id: c.id, kind: c.kind, campaign, subscriber, template: c.template ?? null, target: c.target ?? 'body',
    tracking: c.tracking !== false,
  };
}

/**
 * Runs every case through render.go in one process (its cases run on every core). The input is
 * passed as a file, so the Go process works while this process renders the Mailroom side.
 */
export function runGo(bin: string, cases: GoCase[], catalogue: Record<string, string>): Promise<GoRun> {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-godiff-run-'));
  const file = join(dir, 'cases.json');
  writeFileSync(file, JSON.stringify({ now: NOW.toISOString(), root: ROOT, catalogue, cases: cases.map(toGoCase) }));
  return new Promise((resolve, reject) => {
    const child = spawn(bin, [file], { env: { ...process.env, TZ: 'UTC' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => {
      rmSync(dir, { recursive: true, force: true });
      if (code !== 0) reject(new Error(`render.go failed (${code}): ${Buffer.concat(err).toString()}`));
      else resolve(JSON.parse(Buffer.concat(out).toString('utf8')) as GoRun);
    });
  });
}

/**
 * The English catalogue render.go's L uses, read from Mailroom (T gives the singular, Tc 2 the
 * plural), so both sides translate with the same strings and the test compares listmonk's rules
 * (plural choice, parameters, unknown keys), not wording. Keys Mailroom does not know are left out.
 */
export function mailroomCatalogue(cases: GoCase[]): Record<string, string> {
  const keys = new Set<string>();
  for (const c of cases) {
    const text = [c.tpl ?? '', ...(c.sources ?? []).map((s) => s.source), String(c.campaign?.body ?? ''), c.template ?? ''].join('\n');
    for (const m of text.matchAll(/L\.T[sc]?\s+"([^"]+)"/gu)) keys.add(m[1] as string);
  }
  const catalogue: Record<string, string> = {};
  for (const key of keys) {
    const q = JSON.stringify(key);
    const [one, many] = compile([{ name: 'c', source: `{{ L.T ${q} }}\u0000{{ L.Tc ${q} 2 }}` }], { mode: 'text' }).execute({}).split('\u0000') as [string, string];
    if (one === key && many === key) continue;
    catalogue[key] = one === many ? one : `${one} | ${many}`;
  }
  return catalogue;
}

/** How a case came out. */
export type Verdict = 'agree' | 'deliberate' | 'pending' | 'reference' | 'unexplained';

/** One case's comparison. */
export interface Comparison {
  c: GoCase;
  go: Outcome;
  mailroom: Outcome;
  same: boolean;
  verdict: Verdict;
}

/** Compares both sides' outcomes: equal output, or both failed. */
export function compare(c: GoCase, go: Outcome, mailroom: Outcome): Comparison {
  const same = go.ok === mailroom.ok && (!go.ok || go.out === mailroom.out);
  let verdict: Verdict = 'agree';
  if (!same) verdict = c.reference ? 'reference' : c.deliberate ? 'deliberate' : c.pending ? 'pending' : 'unexplained';
  return { c, go, mailroom, same, verdict };
}

/** A short, one-line rendering of an outcome for reports. */
export function show(o: Outcome): string {
  const s = o.ok ? JSON.stringify(o.out) : `ERROR ${o.err ?? ''}`;
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}
