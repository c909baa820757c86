/**
 * A test-only page table exercising the UI kit through the real app: a page with every component (in
 * the shell, for a principal set by a test hook), a form that fails or redirects with a notice, an htmx
 * fragment, a handler that throws, and the login view. Registered with `buildTestApp({ routes })`.
 */
import type { FastifyInstance } from 'fastify';
import type { Permission } from '../../src/http/access.js';
import { Dialog } from '../../src/ui/components/dialog.js';
import { CsrfField, ErrorSummary, Field, type FormErrors } from '../../src/ui/components/form.js';
import { EmptyState, PageHeader, StatTiles, Badge } from '../../src/ui/components/misc.js';
import { Table } from '../../src/ui/components/table.js';
import { TabPanel, Tabs } from '../../src/ui/components/tabs.js';
import { fragment, page, publicPage, redirect, registerPages, safeNext, view } from '../../src/ui/pages.js';
import { LoginView, SetupView } from '../../src/ui/views/auth.js';
import { BadRequestError, ForbiddenError } from '../../src/errors.js';
import { makePrincipal } from './ui.js';

interface Row {
  id: number;
  name: string;
  subscribers: number;
  status: string;
}
const ROWS: Row[] = [
  { id: 1, name: 'Weekly digest', subscribers: 12480, status: 'enabled' },
  { id: 2, name: 'Product updates', subscribers: 3021, status: 'enabled' },
  { id: 3, name: 'Beta testers <b>', subscribers: 87, status: 'disabled' },
];

function DemoBody({ csrf, errors, values, tab }: { csrf: string; errors: FormErrors; values: Record<string, string>; tab: string }) {
  const labels = { name: 'List name', email: 'Reply-to address' };
  return (
    <>
      <PageHeader title="Lists" count={ROWS.length}>
        <button type="button" class="button secondary" hx-get="/admin/kit-demo/echo" hx-target="#echo" data-cy="btn-echo">Check htmx</button>
        <button type="button" class="button secondary" data-open-dialog="demo-dialog">Open dialog</button>
        <a class="button" href="/admin/kit-demo/new" data-cy="btn-new">New list</a>
      </PageHeader>
      <div id="echo" />
      <StatTiles
        tiles={[
          { label: 'Lists', value: 14, cy: 'lists', details: [{ label: 'Public', value: 9 }, { label: 'Private', value: 5 }] },
          { label: 'Subscribers', value: 1_204_551, cy: 'subscribers', details: [{ label: 'Blocklisted', value: 1203 }, { label: 'Orphans', value: 48 }] },
          { label: 'Messages sent', value: 9876543, cy: 'messages' },
        ]}
      />
      <form id="bulk" method="post" action="/admin/kit-demo/bulk">
        <CsrfField token={csrf} />
      </form>
      <Table<Row>
        caption="Mailing lists"
        rows={ROWS}
        rowKey={(r) => r.id}
        path="/admin/kit-demo"
        query={{ tab }}
        sort={{ by: 'name', order: 'asc' }}
        paging={{ page: 1, perPage: 3, total: 42 }}
        select={{ form: 'bulk', value: (r) => r.id, label: (r) => `Select ${r.name}`, allCy: 'select-all-lists' }}
        columns={[
          { key: 'name', label: 'Name', sortable: true, cell: (r) => <a href={`/admin/lists/${r.id}`}>{r.name}</a> },
          { key: 'status', label: 'Status', cell: (r) => <Badge tone={r.status}>{r.status}</Badge> },
          { key: 'subscribers', label: 'Subscribers', sortable: true, numeric: true, cell: (r) => r.subscribers.toLocaleString('en') },
        ]}
      />
      <h2 class="section-title">Settings</h2>
      <Tabs id="demo" label="Settings sections" selected={tab} inline tabs={[{ id: 'general', label: 'General', href: '?tab=general' }, { id: 'privacy', label: 'Privacy', href: '?tab=privacy' }]} />
      <TabPanel tabsId="demo" id="general" selected={tab === 'general'}>
        <form method="post" action="/admin/kit-demo" class="form-stack card" data-guard>
          <CsrfField token={csrf} />
          <ErrorSummary errors={errors} labels={labels} />
          <Field name="name" label={labels.name} value={values.name ?? ''} required error={errors.name} hint="Shown to subscribers." />
          <Field name="email" label={labels.email} type="email" value={values.email ?? ''} error={errors.email} />
          <Field name="optin" label="Double opt-in" type="checkbox" value={values.optin === 'true'} hint="Ask new subscribers to confirm." />
          <Field name="type" label="Type" type="select" value={values.type ?? 'public'} options={[{ value: 'public', label: 'Public' }, { value: 'private', label: 'Private' }]} />
          <div class="page-actions">
            <button type="submit" class="button" data-cy="btn-save">Save</button>
            <button type="submit" class="button danger" formaction="/admin/kit-demo/delete" data-confirm="Delete this list?" data-cy="btn-delete">Delete</button>
          </div>
        </form>
      </TabPanel>
      <TabPanel tabsId="demo" id="privacy" selected={tab === 'privacy'}>
        <EmptyState message="No privacy settings yet." />
      </TabPanel>
      <Dialog id="demo-dialog" title="A dialog">
        <p>Dialogs trap focus and close with Esc.</p>
      </Dialog>
    </>
  );
}

/** The demo principal's permissions (a limited user: no settings:maintain, no users). */
export const DEMO_PERMISSIONS: Permission[] = ['lists:get_all', 'lists:manage_all', 'subscribers:get_all', 'campaigns:get', 'settings:get'];

/** Registers the demo pages (all public routes; a hook gives /admin/kit-demo* a principal). */
export function demoRoutes(app: FastifyInstance): void {
  app.addHook('preHandler', async (request) => {
    if (request.url.startsWith('/admin/kit-demo')) request.principal = makePrincipal(DEMO_PERMISSIONS);
  });
  // As the auth hook refuses a page: in onRequest, with the principal known.
  app.addHook('onRequest', async (request) => {
    if (request.url !== '/admin/kit-demo/forbidden') return;
    request.principal = makePrincipal(DEMO_PERMISSIONS);
    throw new ForbiddenError('permission denied: settings:manage');
  });
  registerPages(app, [
    publicPage('GET', '/admin/kit-demo', (req, ctx) => {
      const tab = (req.query as { tab?: string }).tab === 'privacy' ? 'privacy' : 'general';
      return view('Lists', <DemoBody csrf={ctx.csrf} errors={{}} values={{ name: 'Weekly digest' }} tab={tab} />);
    }),
    publicPage('POST', '/admin/kit-demo', (req, ctx) => {
      const body = req.body as Record<string, string>;
      const errors: Record<string, string> = {};
      if (!body.name?.trim()) errors.name = 'Give the list a name.';
      if (body.email && !body.email.includes('@')) errors.email = 'This is not an e-mail address.';
      if (Object.keys(errors).length > 0) return view('Lists', <DemoBody csrf={ctx.csrf} errors={errors} values={body} tab="general" />, { status: 422 });
      return redirect('/admin/kit-demo', { kind: 'success', key: 'globals.messages.updated', params: { name: body.name as string } });
    }),
    publicPage('POST', '/admin/kit-demo/delete', () => redirect('/admin/kit-demo', { kind: 'success', key: 'globals.messages.deleted', params: { name: 'Weekly digest' } })),
    publicPage('GET', '/admin/kit-demo/fragment', () => fragment(<p id="frag">Fragment</p>)),
    publicPage('GET', '/admin/kit-demo/echo', (req) => fragment(<p id="echoed">htmx sent X-CSRF-Token: {String(req.headers['x-csrf-token'])}</p>)),
    publicPage('GET', '/admin/kit-demo/fail', () => {
      throw new BadRequestError('query: not a valid filter');
    }),
    publicPage('GET', '/admin/kit-demo/forbidden', () => view('never', <p>never</p>)),
    page('GET', '/admin/kit-private', 'settings:get', (_req, ctx) => view('Private', <p id="who">{ctx.principal.username}</p>)),
    publicPage('GET', '/admin/kit-demo/crash', () => {
      throw new Error('secret internal detail');
    }),
  ]);
  // The login and setup views, as the lead's handlers will show them (no session yet: no principal).
  registerPages(app, [
    publicPage('GET', '/admin/kit-login', (req, ctx) => {
      const q = req.query as { error?: string; oidc?: string; next?: string };
      const v = LoginView({ csrf: ctx.csrf, next: safeNext(q.next), error: q.error ? 'The user name or password is wrong.' : null, oidc: q.oidc ? { name: 'Example ID', action: '/auth/oidc' } : null, username: q.error ? 'writer' : '' });
      return view(v.title, v.body);
    }),
    publicPage('GET', '/admin/kit-setup', (_req, ctx) => {
      const v = SetupView({ csrf: ctx.csrf, email: 'me@example', errors: { email: 'This is not an e-mail address.', password2: 'The passwords differ.' } });
      return view(v.title, v.body, { status: 422 });
    }),
  ]);
}
