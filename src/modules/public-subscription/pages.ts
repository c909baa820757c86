/**
 * HTML of the public subscription form and the double opt-in pages (reference §17). Every value is
 * escaped by the `html` tag (src/http/html.ts); forms post to the same path, so they work without
 * JavaScript.
 */
import { html, type RawHtml } from '../../http/html.js';
import type { OptinListView, PublicList } from './service.js';

/** What the form shows again after a refused submission. */
export interface FormValues {
  email: string;
  name: string;
  selected: string[];
}

// Off-screen rather than display:none, which some bots detect; people never see or fill it.
const HONEYPOT = html`<div aria-hidden="true" style="position:absolute;left:-10000px;top:auto;width:1px;height:1px;overflow:hidden">
<label>Leave this field empty <input type="text" name="nonce" value="" tabindex="-1" autocomplete="off"></label>
</div>`;

/** The subscription form: e-mail, name, a checkbox per public list, the honeypot. */
export function formPage(lists: PublicList[], values: FormValues, error: string | null): RawHtml {
  if (lists.length === 0) return html`<h1>Subscribe</h1><p>There are no lists to subscribe to at the moment.</p>`;
  const checked = (uuid: string) => values.selected.includes(uuid) || lists.length === 1;
  const boxes = lists.map((l) => html`<label><input type="checkbox" name="l" value="${l.uuid}"${checked(l.uuid) ? html` checked` : html``}> ${l.name}</label>\n`);
  return html`<h1>Subscribe</h1>
${error === null ? html`` : html`<p role="alert" style="color:#b00020"><strong>${error}</strong></p>`}
<form method="post" action="/subscription/form">
<label>E-mail<br><input type="email" name="email" value="${values.email}" required maxlength="1000" autocomplete="email"></label>
<label>Name (optional)<br><input type="text" name="name" value="${values.name}" maxlength="2000" autocomplete="name"></label>
<fieldset style="border:0;padding:0;margin:16px 0"><legend>Lists</legend>
${boxes}</fieldset>
${HONEYPOT}
<button type="submit">Subscribe</button>
</form>`;
}

/** The answer to a subscription (the same whether or not the address was known). */
export function subscribedPage(doubleOptin: boolean): RawHtml {
  return doubleOptin
    ? html`<h1>Almost done</h1><p>We have sent you an e-mail. Click the link in it to confirm your subscription.</p><p class="muted">Nothing there? Check your spam folder.</p>`
    : html`<h1>Thank you</h1><p>You are subscribed.</p>`;
}

/** The opt-in page: what will be confirmed, and a button that POSTs (a GET never confirms). */
export function optinConfirmPage(lists: OptinListView[], action: string): RawHtml {
  if (lists.length === 0) return html`<h1>Nothing to confirm</h1><p>There are no subscriptions waiting for confirmation.</p>`;
  return html`<h1>Confirm your subscription</h1>
<p>Confirm that you want to receive e-mails from:</p>
<ul>${lists.map((l) => html`<li>${listName(l)}</li>`)}</ul>
<form method="post" action="${action}">
${lists.map((l) => html`<input type="hidden" name="l" value="${l.uuid}">`)}
<button type="submit">Confirm subscription</button>
</form>`;
}

/** The answer to a confirmation. */
export function optinDonePage(confirmed: OptinListView[]): RawHtml {
  if (confirmed.length === 0) return html`<h1>Nothing to confirm</h1><p>Your subscriptions are already confirmed, or there is nothing waiting for confirmation.</p>`;
  return html`<h1>Subscription confirmed</h1>
<p>Thank you. You are now subscribed to:</p>
<ul>${confirmed.map((l) => html`<li>${listName(l)}</li>`)}</ul>`;
}

/** A short page with a heading and one sentence. */
export function messagePage(title: string, text: string): RawHtml {
  return html`<h1>${title}</h1><p>${text}</p>`;
}

function listName(l: OptinListView): string {
  return l.type === 'private' ? 'A private list' : l.name;
}
