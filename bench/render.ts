/**
 * Render benchmark: the default campaign template (src/modules/templates/defaults/campaign-default.tpl)
 * wrapping a ~5 KB campaign body with 10 actions (first name, an attribute, TrackLink,
 * UnsubscribeURL, e-mail), html mode. Compiled once; measures renders per second on one core.
 *
 * Baseline, same run: plain JS concatenation of the same static chunks with the same values
 * substituted (no template engine, no escaping): a lower bound on the cost of producing the bytes.
 *
 * Run: npx tsx bench/render.ts   (prints figures; updates the "render" section of docs/benchmarks.md)
 */
import { readFileSync } from 'node:fs';
import { writeSection } from './report.js';
import { cpus } from 'node:os';
import { catalogue } from '../src/i18n/catalog.js';
import { CampaignMessageData, campaignView, compile, type RenderEnv, subscriberView } from '../src/templating/index.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`../test/unit/templating/fixtures/${name}`, import.meta.url), 'utf8');

const base = readFileSync(new URL('../src/modules/templates/defaults/campaign-default.tpl', import.meta.url), 'utf8');
const body = fixture('campaign-body.html');
const ROOT = 'https://lists.example.com';

const subscriber = subscriberView({
  id: 42, uuid: '5f1c2a9e-0d3b-4b8e-9a61-2f9c4d7e8b10', email: 'ann.lee@example.com', name: 'Ann Lee',
  status: 'enabled', attribs: { city: 'Bengaluru' }, created_at: '2023-06-01T09:30:00Z', updated_at: '2024-02-01T10:00:00Z',
});
// listmonk's data model, as messages get it (src/templating/listmonk-model.ts).
const campaign = campaignView({
  id: 7, uuid: '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a', name: 'March digest', subject: 'March digest', from_email: 'News <news@example.com>',
  body, altbody: null, content_type: 'richtext', headers: [], tags: [], attribs: {}, template_id: 1, messenger: 'email', type: 'regular',
  send_at: null, started_at: '2024-03-01T09:00:00Z', created_at: '2024-02-28T10:00:00Z', updated_at: '2024-03-01T09:00:00Z', status: 'running',
});
const data = new CampaignMessageData(campaign, subscriber);

// Links are registered before sending; rendering only looks them up.
const linkIds = new Map<string, string>();
const env: RenderEnv = {
  rootUrl: ROOT,
  trackLink: (url) => `${ROOT}/link/${linkIds.get(url) ?? 'unknown'}/${campaign.UUID}/${subscriber.UUID}`,
  trackView: () => `<img src="${ROOT}/campaign/${campaign.UUID}/${subscriber.UUID}/px.png" width="1" height="1" alt="">`,
};

const template = compile([{ name: 'base', source: base }, { name: 'content', source: body }], { mode: 'html' });
template.trackedUrls().forEach((u, i) => linkIds.set(u, `link-${i}`));

const EN = catalogue('en').strings;

/** The value each action produces, as a plain function: what the baseline substitutes. */
function baselineValue(action: string): () => string {
  const a = action.trim();
  let m: RegExpExecArray | null;
  if (a === '.Campaign.Subject') return () => campaign.Subject;
  if ((m = /^\.Subscriber\.Attribs\.(\w+)$/.exec(a))) {
    const k = m[1] as string;
    return () => String(subscriber.Attribs[k]);
  }
  if ((m = /^\.Subscriber\.(\w+)$/.exec(a))) {
    const k = m[1] as keyof typeof subscriber;
    return () => String(subscriber[k]);
  }
  if ((m = /^TrackLink "(.+)"$/.exec(a))) {
    const url = m[1] as string;
    return () => env.trackLink?.(url, data) ?? url;
  }
  if ((m = /^L\.T "(.+)"$/.exec(a))) {
    const s = EN[m[1] as string] as string;
    return () => s;
  }
  if (a === 'UnsubscribeURL') return () => `${ROOT}/subscription/${campaign.UUID}/${subscriber.UUID}`;
  if (a === 'MessageURL') return () => `${ROOT}/campaign/${campaign.UUID}/${subscriber.UUID}`;
  if (a === 'TrackView') return () => env.trackView?.(data) ?? '';
  throw new Error(`baseline has no value for {{ ${a} }}`);
}

const composed = base.replace(/\{\{\s*template "content" \.\s*\}\}/, body);
const parts = composed.split(/\{\{(.*?)\}\}/s);
const chunks = parts.filter((_p, i) => i % 2 === 0);
const values = parts.filter((_p, i) => i % 2 === 1).map(baselineValue);

function baseline(): string {
  let out = chunks[0] as string;
  for (let i = 0; i < values.length; i++) out += (values[i] as () => string)() + (chunks[i + 1] as string);
  return out;
}

/** Median renders/s over `rounds` rounds of `n` renders each, after a warm-up. */
function measure(fn: () => string, n: number, rounds: number): { perSec: number; bytes: number } {
  let bytes = 0;
  for (let i = 0; i < n; i++) bytes = fn().length;
  const rates: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) bytes = fn().length;
    const ns = Number(process.hrtime.bigint() - t0);
    rates.push(n / (ns / 1e9));
  }
  rates.sort((a, b) => a - b);
  return { perSec: rates[Math.floor(rates.length / 2)] as number, bytes };
}

const N = 20_000;
const ROUNDS = 7;
const tpl = measure(() => template.execute(data, env), N, ROUNDS);
const raw = measure(baseline, N * 5, ROUNDS);
const ratio = raw.perSec / tpl.perSec;
const actions = values.length;

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores`;
const date = new Date().toISOString().slice(0, 10);

console.log(`template render : ${fmt(tpl.perSec)} renders/s (${tpl.bytes} chars out, ${actions} actions)`);
console.log(`baseline concat : ${fmt(raw.perSec)} renders/s (${raw.bytes} chars out)`);
console.log(`ratio           : baseline is ${ratio.toFixed(1)}x faster (template reaches ${(100 / ratio).toFixed(1)}% of it)`);

const section = `## render

Measured ${date} on ${machine}, Node ${process.version}, one process (one core).

Workload: the default campaign template (\`src/modules/templates/defaults/campaign-default.tpl\`) wrapping a
${(Buffer.byteLength(body) / 1024).toFixed(1)} KB campaign body (\`campaign-body.html\`), ${actions} actions in total
(\`.Subscriber.FirstName\`, an attribute, \`TrackLink\`, \`UnsubscribeURL\`, \`L.T\`, \`TrackView\`…), html mode
with contextual escaping. The template is compiled once; each render is one \`execute(data, env)\`.
Method: ${N.toLocaleString('en-US')} warm-up renders, then ${ROUNDS} rounds of ${N.toLocaleString('en-US')} renders; the median round is reported.
Baseline: plain string concatenation of the same static chunks with the same values substituted
(no engine, no escaping), measured the same way in the same run. Neither side flattens or encodes
the result string (sending does that once per message either way).

| | renders/s |
|---|---:|
| template (\`compile\` once, \`execute\` per message) | ${fmt(tpl.perSec)} |
| baseline (string concatenation) | ${fmt(raw.perSec)} |

Ratio: the baseline is ${ratio.toFixed(1)}× faster; the template reaches ${(100 / ratio).toFixed(1)}% of it. Target: ≥ 20,000 renders/s.
Run: \`npx tsx bench/render.ts\`.
`;

writeSection('render', section);
