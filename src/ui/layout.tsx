/**
 * The page frame (issue 16 "the shell"; listmonk admin UI map §1.1): the HTML document with the one
 * stylesheet and the main script, the top bar (logo, refresh, profile menu with logout), the navigation
 * grouped as listmonk's and gated by permissions, a skip link, and the notice area. No inline script or
 * style anywhere (the CSP refuses them): behaviour comes from /admin/static/main-*.js.
 */
import type { ComponentChildren, VNode } from 'preact';
import { assetUrl, type AssetSet } from './assets.js';
import type { PageContext, PublicPageContext, SiteInfo } from './context.js';
import { currentEntry, visibleNavigation } from './nav.js';
import { t } from './i18n.js';
import { NoticeBox } from './components/notice.js';
import { CsrfField } from './components/form.js';
import { ConfirmDialog } from './components/dialog.js';

/** Props of {@link Document}. */
export interface DocumentProps {
  /** The page's own title; the site name is appended. */
  title: string;
  site: SiteInfo;
  csrf: string;
  assets: AssetSet;
  /** Extra island entries to load besides `main.js` (e.g. `editor.js`). */
  islands?: readonly string[];
  /** A class on <body> (`layout-shell`, `layout-auth`). */
  bodyClass: string;
  children: ComponentChildren;
}

/**
 * The tab icon: Mailroom's envelope mark as a data: URL (allowed by the admin CSP's img-src), so the
 * browser never asks for /favicon.ico (a 404 and a console error on every page otherwise).
 */
const FAVICON = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="2" y="6" width="28" height="20" rx="4" fill="#2f5bd3"/><path d="M5 10l11 8 11-8" fill="none" stroke="#fff" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round"/></svg>')}`;

/** The whole HTML document (render with {@link renderDocument} of ./render.ts, which adds the doctype). */
export function Document(p: DocumentProps): VNode {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <meta name="color-scheme" content="light dark" />
        <meta name="csrf-token" content={p.csrf} />
        <title>{p.title === '' ? p.site.name : `${p.title} – ${p.site.name}`}</title>
        <link rel="icon" href={FAVICON} />
        <link rel="stylesheet" href={assetUrl(p.assets, 'admin.css')} />
        <script type="module" src={assetUrl(p.assets, 'main.js')} />
        {(p.islands ?? []).map((name) => (
          <script type="module" src={assetUrl(p.assets, name)} />
        ))}
      </head>
      <body class={p.bodyClass}>{p.children}</body>
    </html>
  );
}

/** Mailroom's own mark (an envelope), drawn inline: no request, no style attribute. */
export function Mark(): VNode {
  return (
    <svg class="mark" viewBox="0 0 32 32" width="28" height="28" aria-hidden="true" focusable="false">
      <rect x="2" y="6" width="28" height="20" rx="4" fill="currentColor" />
      <path d="M5 10l11 8 11-8" class="mark-fold" fill="none" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round" />
    </svg>
  );
}

/** The logo link: the configured logo image, or the mark and the site name. */
export function Brand({ site }: { site: SiteInfo }): VNode {
  return (
    <a class="brand" href="/admin">
      {site.logoUrl ? <img class="brand-logo" src={site.logoUrl} alt={site.name} /> : <><Mark /><span class="brand-name">{site.name}</span></>}
    </a>
  );
}

function initials(name: string): string {
  const parts = name.trim().split(/\s+/u).filter(Boolean);
  return ((parts[0]?.[0] ?? '?') + (parts.length > 1 ? (parts[parts.length - 1]?.[0] ?? '') : '')).toUpperCase();
}

/** The profile menu: who is signed in, the profile link, and logout (a POST form with `_csrf`). */
export function ProfileMenu({ ctx }: { ctx: PageContext }): VNode {
  const p = ctx.principal;
  const display = p.name || p.username;
  return (
    <details class="profile-menu" data-menu>
      <summary>
        <span class="avatar" aria-hidden="true">{initials(display)}</span>
        <span class="profile-name">{display}</span>
        <span class="visually-hidden">{t('menu.profileMenu')}</span>
      </summary>
      <div class="menu-pop">
        <p class="menu-who">
          <strong>{p.username}</strong>
          {p.name && p.name !== p.username ? <span class="muted">{p.name}</span> : null}
        </p>
        <a href="/admin/user/profile" data-cy="profile">{t('menu.profile')}</a>
        <form method="post" action="/admin/logout">
          <CsrfField token={ctx.csrf} />
          <button type="submit" class="link-button" data-cy="btn-logout">{t('menu.logout')}</button>
        </form>
      </div>
    </details>
  );
}

/** The navigation for `ctx.principal` (gated by `can`), the current entry marked `aria-current="page"`. */
export function Navigation({ ctx }: { ctx: PageContext }): VNode {
  const groups = visibleNavigation(ctx.principal);
  const current = currentEntry(ctx.path);
  return (
    <nav id="sidebar" class="sidebar menu" aria-label={t('menu.main')}>
      <ul class="nav-groups">
        {groups.map((g) =>
          g.items.length === 0 ? (
            <li>
              <a class="nav-top" href={g.url} aria-current={current === g.id ? 'page' : undefined} data-cy={g.cy ?? undefined}>
                {t(g.label)}
              </a>
            </li>
          ) : (
            <li>
              <details class="nav-group" name="sidebar-nav" data-cy={g.cy ?? undefined} open={g.items.some((i) => i.id === current) || undefined}>
                <summary>{t(g.label)}</summary>
                <ul>
                  {g.items.map((i) => (
                    <li>
                      <a href={i.url} data-cy={i.cy} aria-current={current === i.id ? 'page' : undefined}>
                        {t(i.label)}
                      </a>
                    </li>
                  ))}
                </ul>
              </details>
            </li>
          ),
        )}
      </ul>
    </nav>
  );
}

/** Props of {@link Shell}. */
export interface ShellProps {
  ctx: PageContext;
  title: string;
  islands?: readonly string[];
  children: ComponentChildren;
}

/** A signed-in page: top bar, navigation, notice area and the page's content in <main>. */
export function Shell({ ctx, title, islands, children }: ShellProps): VNode {
  return (
    <Document title={title} site={ctx.site} csrf={ctx.csrf} assets={ctx.assets} islands={islands ?? []} bodyClass="layout-shell">
      <a class="skip-link" href="#main">{t('menu.skipToContent')}</a>
      <header class="topbar">
        {/* A link to the menu (shown by :target without JavaScript); main.js makes it a toggle button. */}
        <a class="nav-toggle" href="#sidebar" aria-controls="sidebar" data-nav-toggle>
          <span class="nav-toggle-bars" aria-hidden="true" />
          <span>{t('menu.menu')}</span>
        </a>
        <Brand site={ctx.site} />
        <div class="topbar-end">
          <a class="icon-button" href={ctx.url} data-cy="btn-refresh" title={t('menu.refresh')}>
            <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
              <path d="M20 12a8 8 0 1 1-2.34-5.66M20 4v5h-5" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" />
            </svg>
            <span class="visually-hidden">{t('menu.refresh')}</span>
          </a>
          <ProfileMenu ctx={ctx} />
        </div>
      </header>
      <div class="frame">
        <Navigation ctx={ctx} />
        <main id="main" tabindex={-1}>
          <NoticeArea ctx={ctx} />
          {children}
        </main>
      </div>
      <ConfirmDialog />
    </Document>
  );
}

/** The notice area: a live region always present (htmx can swap notices into it), holding ctx's notice. */
export function NoticeArea({ ctx }: { ctx: { notice: PageContext['notice'] } }): VNode {
  return <div id="notices" class="notices">{ctx.notice ? <NoticeBox notice={ctx.notice} /> : null}</div>;
}

/** Props of {@link AuthShell}. */
export interface AuthShellProps {
  ctx: PublicPageContext;
  title: string;
  children: ComponentChildren;
}

/** A page for someone not signed in (sign-in, setup, reset, errors): the logo above one centred card. */
export function AuthShell({ ctx, title, children }: AuthShellProps): VNode {
  return (
    <Document title={title} site={ctx.site} csrf={ctx.csrf} assets={ctx.assets} bodyClass="layout-auth">
      <a class="skip-link" href="#main">{t('menu.skipToContent')}</a>
      <main id="main" class="auth-main" tabindex={-1}>
        <div class="auth-brand"><Brand site={ctx.site} /></div>
        <NoticeArea ctx={ctx} />
        <div class="card auth-card">{children}</div>
      </main>
    </Document>
  );
}
