/**
 * Text-alternative benchmark: what the plain-text part of HTML campaign messages costs per message
 * (issue 4 §3: "generated from the HTML when absent"), on the render benchmark's workload — the default
 * campaign template around a ~5 KB newsletter body — built with the real CampaignMessageBuilder.
 *
 * Three ways, same run, one core:
 * - baseline: the whole message (HTML body, subject, headers) without a text part;
 * - Mailroom: the text part from a text template compiled once per campaign from the HTML sources
 *   (src/mail/text-alternative.ts), executed per message;
 * - naive: html-to-text (the shared, pre-built converter) run on every rendered message.
 * Also the one-time cost per campaign of compiling the text template, and what the text part costs
 * nodemailer when it builds the MIME message (encoding a second ~5 KB part), which every send pays.
 *
 * Run: npx tsx bench/text-alternative.ts   (prints figures; updates its section of docs/benchmarks.md)
 */
import { readFileSync } from 'node:fs';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { CampaignMessageBuilder, type CampaignForMessage, type SubscriberForMessage } from '../src/mail/campaign-message.js';
import { compileTextAlternative, htmlToText } from '../src/mail/text-alternative.js';
import { machineLine, writeSection } from './report.js';

const read = (path: string): string => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const base = read('src/modules/templates/defaults/campaign-default.tpl');
const body = read('test/unit/templating/fixtures/campaign-body.html');

const campaign: CampaignForMessage = {
  id: 4, uuid: '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a', name: 'March digest', subject: 'March digest for {{ .Subscriber.FirstName }}',
  from_email: 'News <news@example.com>', body, altbody: null, content_type: 'richtext', headers: [], tags: [], attribs: {},
  template_id: 1, messenger: 'email', type: 'regular', send_at: null, started_at: null, created_at: new Date(), updated_at: new Date(),
};
const subscriber: SubscriberForMessage = {
  id: 42, uuid: '5f1c2a9e-0d3b-4b8e-9a61-2f9c4d7e8b10', email: 'ann.lee@example.com', name: 'Ann Lee', status: 'enabled',
  attribs: { city: 'Bengaluru' }, created_at: new Date(), updated_at: new Date(),
};
const urls = { rootUrl: 'https://lists.example.com', trackViews: true };

const plain = new CampaignMessageBuilder(campaign, base, urls, { textAlternative: false });
const withText = new CampaignMessageBuilder(campaign, base, urls);
if (withText.textMode !== 'template') throw new Error(`expected the compiled text template, got ${withText.textMode}`);

/** Median messages/s over `rounds` rounds of `n` messages, after a warm-up round. */
function measure(fn: () => unknown, n: number, rounds: number): number {
  for (let i = 0; i < n; i++) fn();
  const rates: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    rates.push(n / (Number(process.hrtime.bigint() - t0) / 1e9));
  }
  rates.sort((a, b) => a - b);
  return rates[Math.floor(rates.length / 2)]!;
}

/** The same for an asynchronous step. */
async function measureAsync(fn: () => Promise<unknown>, n: number, rounds: number): Promise<number> {
  for (let i = 0; i < n; i++) await fn();
  const rates: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await fn();
    rates.push(n / (Number(process.hrtime.bigint() - t0) / 1e9));
  }
  rates.sort((a, b) => a - b);
  return rates[Math.floor(rates.length / 2)]!;
}

/** nodemailer's MIME build of a rendered message (what its SMTP transport does before sending). */
function buildMime(m: ReturnType<CampaignMessageBuilder['render']>, withText: boolean): Promise<Buffer> {
  const mail = new MailComposer({
    from: m.from, to: m.to, subject: m.subject, html: m.html, ...(withText ? { text: m.text } : {}),
    headers: m.headers.map(([key, value]) => ({ key, value })), messageId: `<${m.messageId}>`,
  });
  return new Promise((resolve, reject) => mail.compile().build((err, buf) => (err ? reject(err) : resolve(buf))));
}

const ROUNDS = 7;
const baseline = measure(() => plain.render(subscriber), 10_000, ROUNDS);
const mailroom = measure(() => withText.render(subscriber), 10_000, ROUNDS);
const naive = measure(() => {
  const m = plain.render(subscriber);
  return htmlToText(m.html!);
}, 1_000, ROUNDS);
const rendered = withText.render(subscriber);
const mimeHtml = await measureAsync(() => buildMime(rendered, false), 1_000, ROUNDS);
const mimeBoth = await measureAsync(() => buildMime(rendered, true), 1_000, ROUNDS);
const compileMs = 1000 / measure(() => compileTextAlternative([{ name: 'base', source: base }, { name: 'content', source: body }]), 100, ROUNDS);

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const us = (rate: number): string => (1e6 / rate).toFixed(1);
const extra = (rate: number): string => (1e6 / rate - 1e6 / baseline).toFixed(1);
const sample = withText.render(subscriber);
console.log(`baseline (no text part)        : ${fmt(baseline)} msgs/s, ${us(baseline)} µs/msg`);
console.log(`compiled text template         : ${fmt(mailroom)} msgs/s, ${us(mailroom)} µs/msg (+${extra(mailroom)} µs)`);
console.log(`html-to-text per message       : ${fmt(naive)} msgs/s, ${us(naive)} µs/msg (+${extra(naive)} µs)`);
console.log(`compiling the text template    : ${compileMs.toFixed(2)} ms once per campaign`);
console.log(`nodemailer MIME build          : ${us(mimeHtml)} µs HTML only, ${us(mimeBoth)} µs with the text part`);

writeSection('text-alternative', `## text-alternative

Measured ${machineLine()}, one process (one core).

Workload: whole campaign messages from \`CampaignMessageBuilder.render\` (HTML body, subject, headers) for
the render benchmark's workload: the default campaign template around the ${(Buffer.byteLength(body) / 1024).toFixed(1)} KB body
\`campaign-body.html\` (${(sample.html!.length / 1024).toFixed(1)} KB of HTML out, ${(sample.text!.length / 1024).toFixed(1)} KB of text). Method: a warm-up round,
then ${ROUNDS} rounds; the median round is reported. Baseline, same run: the same messages without a text part.

| text part | messages/s | µs per message | added per message |
|---|---:|---:|---:|
| none (baseline) | ${fmt(baseline)} | ${us(baseline)} | — |
| Mailroom: text template compiled once per campaign from the HTML sources | ${fmt(mailroom)} | ${us(mailroom)} | ${extra(mailroom)} µs |
| html-to-text on every message (shared pre-built converter) | ${fmt(naive)} | ${us(naive)} | ${extra(naive)} µs |

Compiling the text template costs ${compileMs.toFixed(1)} ms once per campaign. Running html-to-text on every message
would make producing a message ${(baseline / naive).toFixed(0)}× slower; the compiled text template keeps it at
${(100 * mailroom / baseline).toFixed(0)}% of the baseline's rate (the text template does about the work of the HTML render). Campaigns whose HTML cannot be converted as a
template (see \`src/mail/text-alternative.ts\`) fall back to the per-message row.

What the text part costs at send time: nodemailer's MIME build of the same message (\`MailComposer\`,
what its SMTP transport runs for every message) takes ${us(mimeHtml)} µs with the HTML part only and
${us(mimeBoth)} µs with the text part too (encoding ${(sample.text!.length / 1024).toFixed(1)} KB more). That, not producing the text,
is the larger cost of a text alternative; sending benchmarks must compare like with like.
Run: \`npx tsx bench/text-alternative.ts\`.
`);
