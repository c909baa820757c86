/**
 * What every admin page's view and layout know about the request (conventions §13): who is signed in,
 * the CSRF token forms must carry, where we are, the notice to show, and the site's name and logo.
 */
import type { Principal } from '../http/access.js';
import type { AssetSet } from './assets.js';
import type { Notice } from './notice.js';

/** The installation's name and logo, shown in the header (settings `app.site_name`, `app.logo_url`). */
export interface SiteInfo {
  /** Shown beside the logo and in the page title; default "Mailroom". */
  name: string;
  /** An image URL (setting `app.logo_url`); '' or null: Mailroom's own mark. */
  logoUrl: string | null;
}

/** The context of a page for a signed-in principal. */
export interface PageContext {
  principal: Principal;
  /** The session's CSRF token: every form's hidden `_csrf`, and the `csrf-token` meta htmx sends. '' without a session. */
  csrf: string;
  /** The request's path without the query (for `aria-current` and the refresh link). */
  path: string;
  /** The request's URL path and query, as received (for `next` and the refresh link). */
  url: string;
  /** The notice brought back from the previous POST, or null. */
  notice: Notice | null;
  site: SiteInfo;
  assets: AssetSet;
}

/** The context of a public page (sign-in, setup, password reset, errors): maybe nobody is signed in. */
export interface PublicPageContext extends Omit<PageContext, 'principal'> {
  principal: Principal | null;
}
