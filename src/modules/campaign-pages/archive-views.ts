/**
 * The archive's own pages, built by Mailroom (every value escaped): the HTML list of archived
 * campaigns and the RSS 2.0 feed (reference §17).
 */
import { escapeHtml, html, page } from '../../http/html.js';
import type { ArchiveEntry } from './service.js';

/** `1 March 2026`. */
function day(d: Date): string {
  return d.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
}

/** The archive list page: newest first, with links to older and newer pages. */
export function archiveListPage(entries: ArchiveEntry[], pageNo: number, totalPages: number): string {
  const items = entries.map((e) => html`<li><a href="${e.url}">${e.subject}</a> <span class="muted">${day(e.published_at)}</span></li>`);
  const nav = [
    pageNo > 1 ? html`<a href="?page=${pageNo - 1}">&larr; Newer</a>` : '',
    pageNo < totalPages ? html`<a href="?page=${pageNo + 1}">Older &rarr;</a>` : '',
  ];
  const list = entries.length > 0 ? html`<ul>${items}</ul>` : html`<p class="muted">Nothing has been published here yet.</p>`;
  return page('Archive', html`<h1>Archive</h1>
${list}
<p>${nav[0]} ${nav[1]}</p>
<p class="muted"><a href="archive.xml">RSS feed</a></p>`);
}

// Characters XML 1.0 does not allow, even escaped.
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/gu;

function xml(text: string): string {
  return escapeHtml(text.replace(XML_INVALID, ''));
}

/** The RSS 2.0 feed of the archive; each item's description is its HTML when `withContent`. */
export function archiveRss(rootUrl: string, entries: ArchiveEntry[]): string {
  const items = entries.map((e) => `  <item>
    <title>${xml(e.subject)}</title>
    <link>${xml(e.url)}</link>
    <guid isPermaLink="true">${xml(e.url)}</guid>
    <pubDate>${e.published_at.toUTCString()}</pubDate>${e.html === null ? '' : `\n    <description>${xml(e.html)}</description>`}
  </item>`);
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
<channel>
  <title>Archive</title>
  <link>${xml(`${rootUrl}/archive`)}</link>
  <description>${xml(`Campaigns published at ${rootUrl}`)}</description>
  <atom:link href="${xml(`${rootUrl}/archive.xml`)}" rel="self" type="application/rss+xml"/>
${items.join('\n')}
</channel>
</rss>
`;
}
