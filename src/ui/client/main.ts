/**
 * The admin UI's one script on every page (bundled by esbuild into /admin/static/main-<hash>.js).
 * Everything here is an enhancement: each page works with plain links and forms without it.
 *
 * - htmx (0BSD) for in-place updates, sending the session's CSRF token (from
 *   `<meta name="csrf-token">`) as `X-CSRF-Token` on every request it makes;
 * - the navigation toggle on narrow screens; closing the profile menu on Esc or an outside click;
 * - table selection: "select this page" and the row checkboxes;
 * - `data-confirm` questions in the shared <dialog>, `data-open-dialog` openers;
 * - inline tabs with arrow keys; `data-guard` forms ask before leaving with unsaved changes.
 */
import htmx from 'htmx.org';

const root = document.documentElement;
root.classList.add('js');

function csrfToken(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? '';
}

// htmx 4: every request's headers can be changed in `htmx:config:request`.
document.addEventListener('htmx:config:request', (event) => {
  const ctx = (event as CustomEvent<{ ctx?: { request?: { headers?: Record<string, string> } } }>).detail.ctx;
  const token = csrfToken();
  if (ctx?.request?.headers && token) ctx.request.headers['X-CSRF-Token'] = token;
});
(window as unknown as { htmx: typeof htmx }).htmx = htmx;

/**
 * The navigation toggle below 900 px. Served as a link to #sidebar (CSS shows the menu when it is the
 * :target, so it works without this script); here it becomes a button that opens and closes the menu.
 */
function setupNavToggle(): void {
  const toggle = document.querySelector<HTMLAnchorElement>('[data-nav-toggle]');
  const nav = document.getElementById('sidebar');
  if (!toggle || !nav) return;
  toggle.setAttribute('role', 'button');
  toggle.setAttribute('aria-expanded', 'false');
  const set = (open: boolean) => {
    toggle.setAttribute('aria-expanded', String(open));
    nav.classList.toggle('open', open);
  };
  toggle.addEventListener('click', (e) => {
    e.preventDefault();
    set(toggle.getAttribute('aria-expanded') !== 'true');
  });
  toggle.addEventListener('keydown', (e) => {
    if (e.key === ' ') {
      e.preventDefault();
      set(toggle.getAttribute('aria-expanded') !== 'true');
    }
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && nav.classList.contains('open')) {
      set(false);
      toggle.focus();
    }
  });
}

/** <details data-menu>: closes on Esc (focus back on its summary) and on a click outside. */
function setupMenus(): void {
  document.addEventListener('click', (e) => {
    for (const d of document.querySelectorAll<HTMLDetailsElement>('details[data-menu][open]')) {
      if (!d.contains(e.target as Node)) d.open = false;
    }
  });
  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape') return;
    for (const d of document.querySelectorAll<HTMLDetailsElement>('details[data-menu][open]')) {
      d.open = false;
      d.querySelector('summary')?.focus();
    }
  });
}

/** Table checkboxes: the header box selects the page; it shows mixed when some rows are selected. */
function setupSelection(): void {
  document.addEventListener('change', (e) => {
    const box = e.target as HTMLInputElement;
    const table = box.closest('[data-table]');
    if (!table) return;
    const rows = [...table.querySelectorAll<HTMLInputElement>('input[data-select-row]')];
    const head = table.querySelector<HTMLInputElement>('input[data-select-page]');
    const matching = table.querySelector<HTMLInputElement>('input[data-select-matching]');
    if (box.matches('[data-select-page]')) {
      for (const r of rows) r.checked = box.checked;
      if (!box.checked && matching) matching.checked = false;
    } else if (box.matches('[data-select-matching]')) {
      if (box.checked) for (const r of rows) r.checked = true;
    }
    const n = rows.filter((r) => r.checked).length;
    if (head) {
      head.checked = n > 0 && n === rows.length;
      head.indeterminate = n > 0 && n < rows.length;
    }
    if (matching && n < rows.length) matching.checked = false;
  });
}

/** The shared confirm dialog (made on first use when the page has none). */
function confirmDialog(): HTMLDialogElement {
  let d = document.getElementById('confirm-dialog') as HTMLDialogElement | null;
  if (d) return d;
  d = document.createElement('dialog');
  d.id = 'confirm-dialog';
  d.className = 'dialog';
  d.setAttribute('aria-labelledby', 'confirm-dialog-text');
  const p = document.createElement('p');
  p.id = 'confirm-dialog-text';
  p.className = 'dialog-text';
  const form = document.createElement('form');
  form.method = 'dialog';
  form.className = 'dialog-actions';
  const cancel = document.createElement('button');
  cancel.className = 'button secondary';
  cancel.value = 'cancel';
  cancel.textContent = document.documentElement.dataset.cancelLabel ?? 'Cancel';
  const ok = document.createElement('button');
  ok.className = 'button';
  ok.value = 'ok';
  ok.textContent = 'OK';
  form.append(cancel, ok);
  d.append(p, form);
  document.body.append(d);
  return d;
}

/** `data-confirm="question"` on a submit button or link: ask first, OK focused (listmonk §4.4). */
function setupConfirm(): void {
  document.addEventListener('click', (e) => {
    const el = (e.target as Element).closest<HTMLElement>('[data-confirm]');
    if (!el || el.dataset.confirmed === '1') return;
    e.preventDefault();
    const d = confirmDialog();
    const text = d.querySelector('.dialog-text');
    if (text) text.textContent = el.dataset.confirm ?? '';
    d.returnValue = '';
    d.showModal();
    d.querySelector<HTMLButtonElement>('button[value="ok"]')?.focus();
    d.addEventListener(
      'close',
      () => {
        if (d.returnValue !== 'ok') return el.focus();
        el.dataset.confirmed = '1';
        el.click();
        delete el.dataset.confirmed;
      },
      { once: true },
    );
  });
}

/** `data-open-dialog="<id>"` opens that <dialog> as a modal. */
function setupDialogs(): void {
  document.addEventListener('click', (e) => {
    const opener = (e.target as Element).closest<HTMLElement>('[data-open-dialog]');
    if (!opener) return;
    const d = document.getElementById(opener.dataset.openDialog ?? '');
    if (d instanceof HTMLDialogElement) {
      e.preventDefault();
      d.showModal();
    }
  });
}

/** Inline tabs: click or arrow keys switch panels without a request; the URL keeps `?tab=`. */
function setupTabs(): void {
  for (const list of document.querySelectorAll<HTMLElement>('[data-tabs="inline"]')) {
    const tabs = [...list.querySelectorAll<HTMLAnchorElement>('[role="tab"]')];
    const select = (tab: HTMLAnchorElement, focus: boolean) => {
      for (const t of tabs) {
        const on = t === tab;
        t.setAttribute('aria-selected', String(on));
        t.tabIndex = on ? 0 : -1;
        const panel = document.getElementById(t.getAttribute('aria-controls') ?? '');
        if (panel) panel.hidden = !on;
      }
      if (focus) tab.focus();
      history.replaceState(null, '', tab.href);
    };
    list.addEventListener('click', (e) => {
      const tab = (e.target as Element).closest<HTMLAnchorElement>('[role="tab"]');
      if (!tab) return;
      e.preventDefault();
      select(tab, false);
    });
    list.addEventListener('keydown', (e) => {
      const i = tabs.indexOf(document.activeElement as HTMLAnchorElement);
      if (i < 0) return;
      const next = e.key === 'ArrowRight' || e.key === 'ArrowDown' ? i + 1 : e.key === 'ArrowLeft' || e.key === 'ArrowUp' ? i - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? tabs.length - 1 : null;
      if (next === null) return;
      e.preventDefault();
      select(tabs[(next + tabs.length) % tabs.length] as HTMLAnchorElement, true);
    });
  }
}

/** Forms with `data-guard`: leaving with unsaved changes asks first (listmonk §4.3). */
function setupGuards(): void {
  // A form re-rendered by the server with what the user typed (a failed save) starts with unsaved changes.
  let dirty = document.querySelector('form[data-guard][data-dirty="true"]') !== null;
  let submitting = false;
  document.addEventListener('input', (e) => {
    if ((e.target as Element).closest('form[data-guard]')) dirty = true;
  });
  document.addEventListener('submit', () => {
    submitting = true;
  });
  window.addEventListener('beforeunload', (e) => {
    if (dirty && !submitting) e.preventDefault();
  });
}

setupNavToggle();
setupMenus();
setupSelection();
setupConfirm();
setupDialogs();
setupTabs();
setupGuards();
