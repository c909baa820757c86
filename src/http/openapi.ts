/**
 * The API describes itself (issue "Trustworthy" §1): an OpenAPI 3.1 document generated from the route
 * schemas by @fastify/swagger at `GET /api/openapi.json`, and a readable reference page rendered from it
 * at `GET /api/docs` (server-side HTML, no scripts). Both sit under `/api`, so they need credentials like
 * the rest of the API.
 */
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { RouteAccess } from './access.js';
import { html, page, type RawHtml } from './html.js';

/** Registers the generator. Must run before any route is registered. */
export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Mailroom API',
        version,
        description: "Mailroom's HTTP API: listmonk-compatible subscribers, lists, templates, campaigns, transactional messages, media and import.",
      },
      components: { securitySchemes: { basic: { type: 'http', scheme: 'basic' } } },
      security: [{ basic: [] }],
    },
    hideUntagged: false,
    transform: ({ schema, url, route }) => {
      // Public routes answer without credentials: say so in the document. Others name what they need
      // (`x-permissions`: any one of the listed permissions; empty: any signed-in user; issue 16).
      const config = route.config as { public?: boolean; permission?: RouteAccess } | undefined;
      const out = { ...(schema ?? {}) } as Record<string, unknown>;
      if (config?.public === true) out.security = [];
      else if (config?.permission !== undefined) out['x-permissions'] = config.permission === 'authenticated' ? [] : [config.permission].flat();
      return { schema: out as never, url };
    },
  });
  app.get('/api/openapi.json', { schema: { hide: true }, config: { permission: 'authenticated' } }, async () => app.swagger());
  app.get('/api/docs', { schema: { hide: true }, config: { permission: 'authenticated' } }, async (_req, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'")
      .send(renderReference(app.swagger() as OpenAPIV3_1.Document)),
  );
}

type Operation = OpenAPIV3_1.OperationObject;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function schemaText(schema: unknown): string {
  return JSON.stringify(schema, null, 2);
}

function renderOperation(method: string, path: string, op: Operation): RawHtml {
  const params = (op.parameters ?? []) as OpenAPIV3_1.ParameterObject[];
  const body = (op.requestBody as OpenAPIV3_1.RequestBodyObject | undefined)?.content;
  const responses = Object.entries(op.responses ?? {}) as Array<[string, OpenAPIV3_1.ResponseObject]>;
  const ok = responses.find(([code]) => code.startsWith('2'));
  const okSchema = ok?.[1].content?.['application/json']?.schema;
  const errors = responses.filter(([code]) => !code.startsWith('2')).map(([code]) => code);
  const perms = (op as { 'x-permissions'?: string[] })['x-permissions'];
  const needs = perms === undefined ? '' : perms.length === 0 ? ' (any signed-in user)' : ` (needs ${perms.join(' or ')})`;
  return html`<section class="op">
<h3><span class="m">${method.toUpperCase()}</span> <code>${path}</code></h3>
<p>${op.summary ?? ''}${op.security?.length === 0 ? ' (no credentials needed)' : needs}</p>
${params.length > 0 ? html`<table><tr><th>parameter</th><th>in</th><th>required</th><th>schema</th></tr>${params.map((p) => html`<tr><td><code>${p.name}</code></td><td>${p.in}</td><td>${p.required ? 'yes' : 'no'}</td><td><code>${JSON.stringify(p.schema)}</code></td></tr>`)}</table>` : html``}
${body ? html`<details><summary>request body (${Object.keys(body).join(', ')})</summary><pre>${schemaText(Object.values(body)[0]?.schema)}</pre></details>` : html``}
${okSchema ? html`<details><summary>response ${ok?.[0] ?? ''}</summary><pre>${schemaText(okSchema)}</pre></details>` : html``}
${errors.length > 0 ? html`<p class="muted">errors: ${errors.join(', ')} — body <code>{"message": "…"}</code></p>` : html``}
</section>`;
}

/** Renders the OpenAPI document as a readable HTML reference, grouped by tag. */
export function renderReference(doc: OpenAPIV3_1.Document): string {
  const byTag = new Map<string, RawHtml[]>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item?.[method] as Operation | undefined;
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'other';
      const list = byTag.get(tag) ?? [];
      list.push(renderOperation(method, path, op));
      byTag.set(tag, list);
    }
  }
  const tags = [...byTag.keys()].sort();
  const body = html`<h1>${doc.info.title} ${doc.info.version}</h1>
<p>${doc.info.description ?? ''} Machine-readable: <a href="/api/openapi.json">/api/openapi.json</a>.</p>
<p>Every <code>/api</code> route needs HTTP Basic credentials unless marked otherwise. Successful answers are <code>{"data": …}</code>; errors are <code>{"message": "…"}</code>.</p>
<nav>${tags.map((t) => html`<a href="#${t}">${t}</a> `)}</nav>
${tags.map((t) => html`<h2 id="${t}">${t}</h2>${byTag.get(t) ?? []}`)}
<style>main{max-width:960px}.op{border-top:1px solid #e5e7eb;padding:8px 0}.m{font-weight:bold;color:#0055d4}table{border-collapse:collapse;font-size:14px}td,th{border:1px solid #e5e7eb;padding:2px 6px;text-align:left}pre{background:#f6f8fa;padding:8px;overflow:auto;font-size:12px}</style>`;
  return page(`${doc.info.title} reference`, body);
}
