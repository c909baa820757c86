/**
 * Import use cases (spec 4.6, reference §6): start an import from an upload, report its status and
 * log, stop or clear it. Everything checkable is checked before the import is claimed: the params,
 * the file (CSV or ZIP, size, header row with an `email` column) and the lists. The claim is one
 * conditional UPDATE of the single `imports` row, so two imports never run at once, across instances.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { FastifyRequest } from 'fastify';
import { AppError, BadRequestError, ConflictError, FieldError } from '../../errors.js';
import { parseJsonDocument } from '../../http/json-body.js';
import { manageableLists } from '../../http/list-scope.js';
import { describeValidation } from '../../http/error-handler.js';
import { validatorCompiler } from '../../http/validation.js';
import { formatBytes } from '../../util/bytes.js';
import type { Importer } from '../../workers/importer.js';
import type { SettingsService } from '../settings/service.js';
import { readHeader } from './csv.js';
import { NO_DOMAIN_RULES, type DomainRules } from '../subscribers/domains.js';
import type { ImportRepo, WriteOptions } from './repo.js';
import { ImportParams, type ImportStatus } from './schemas.js';
import type { ImportSettings } from './settings.js';
import { identify, type ImportSource } from './source.js';
import { receiveImport } from './upload.js';

/** listmonk's message (import.alreadyRunning). */
const ALREADY_RUNNING = 'An import is already running. Wait for it to finish or stop it before trying again.';

const validateParams = validatorCompiler({ schema: ImportParams, method: 'POST', url: '/api/import/subscribers', httpPart: 'body' }) as ((v: unknown) => boolean) & {
  errors?: Parameters<typeof describeValidation>[0] | null;
};

/** Parses and validates the `params` field; FieldError naming `params` or `params.<key>`. */
export function parseParams(raw: string | undefined): ImportParams {
  if (raw === undefined) throw new FieldError('params', 'is required: a JSON object such as {"mode": "subscribe"}');
  let value: unknown;
  try {
    value = parseJsonDocument(raw, 'params');
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new FieldError('params', `malformed JSON (${(err as Error).message.slice(0, 200)})`);
  }
  if (!validateParams(value)) {
    const problem = describeValidation(validateParams.errors ?? [], 'body');
    throw new BadRequestError(problem.startsWith('body: ') ? `params: ${problem.slice(6)}` : `params.${problem}`);
  }
  const params = value as ImportParams;
  if (params.delim !== undefined && ['"', '\r', '\n'].includes(params.delim)) {
    throw new FieldError('params.delim', 'must be one character other than a double quote or a line break');
  }
  if (params.mode === 'blocklist' && params.subscription_status !== undefined && params.subscription_status !== 'unsubscribed') {
    throw new FieldError('params.subscription_status', 'must be unsubscribed in blocklist mode (blocklisted subscribers are never subscribed)');
  }
  return params;
}

/** How batches are written for these params (see ImportRepo.upsertBatch, ImportRepo.applyMemberships and the rules). */
export function writeOptions(p: ImportParams, listIds: number[]): WriteOptions {
  const blocklist = p.mode === 'blocklist';
  return {
    newStatus: blocklist ? 'blocklisted' : 'enabled',
    blocklist,
    overwrite: p.overwrite_userinfo ?? p.overwrite ?? false,
    keepExisting: !blocklist,
    listIds,
    subscriptionStatus: blocklist ? 'unsubscribed' : (p.subscription_status ?? 'unconfirmed'),
    overwriteStatus: p.overwrite_subscription_status ?? p.overwrite ?? false,
  };
}

/** Collaborators of {@link ImportService}. */
export interface ImportServiceDeps {
  repo: ImportRepo;
  importer: Importer;
  settings: SettingsService;
  defs: ImportSettings;
  /** This instance's id (owner of the imports it runs). */
  owner: string;
  /** The e-mail domain rules now; an import keeps the rules in force when it starts. */
  domains?: () => DomainRules;
}

/** Import use cases. */
export class ImportService {
  constructor(private readonly d: ImportServiceDeps) {}

  /** The status object (GET /api/import/subscribers). */
  async status(): Promise<ImportStatus> {
    await this.d.importer.reapStale();
    const row = await this.d.repo.get();
    return { name: row.name, total: row.total, imported: row.imported, skipped: row.skipped, status: row.status };
  }

  /** The current import's log, one line per event, oldest first. */
  async logs(): Promise<string> {
    const rows = await this.d.repo.readLog();
    return rows.map((r) => `${r.created_at.toISOString()} ${r.message}\n`).join('');
  }

  /** DELETE: stops an importing run (status `stopping`), or clears a finished or failed one. */
  async stop(): Promise<ImportStatus> {
    await this.d.importer.reapStale();
    if (!(await this.d.repo.requestStop())) await this.d.repo.clear();
    return this.status();
  }

  /**
   * Starts an import from the request. Throws ConflictError (409) while one is running, FieldError
   * (400) for bad params, file or lists, PayloadTooLargeError (413) past `import.max_file_size`,
   * ForbiddenError (403 `Permission denied: lists`) when lists were given and the request's principal
   * manages none of them (lists it does not manage are left out; issue 16).
   */
  async start(request: FastifyRequest): Promise<ImportStatus> {
    const active = await this.status();
    if (active.status === 'importing' || active.status === 'stopping') throw new ConflictError(ALREADY_RUNNING);
    const runId = randomUUID();
    const path = this.d.importer.uploadPath(runId);
    const maxBytes = this.d.settings.get(this.d.defs.maxFileSize);
    const received = await receiveImport(request, path, maxBytes);
    try {
      const params = parseParams(received.params);
      const delimiter = params.delim ?? ',';
      const source = await identify(path, received.filename, maxBytes);
      await readHeader(source, delimiter, maxBytes);
      // Only lists the user manages (listmonk ImportSubscribers; 403 `Permission denied: lists` when none).
      const listIds = manageableLists(request.principal, [...new Set(params.lists ?? [])]);
      const found = await this.d.repo.existingLists(listIds);
      const missing = listIds.filter((id) => !found.includes(id));
      if (missing.length > 0) throw new FieldError('params.lists', `unknown list id(s): ${missing.join(', ')}`);
      const name = received.filename.replace(/\p{Cc}/gu, '').slice(0, 255);
      const write = writeOptions(params, listIds);
      if (!(await this.d.repo.claim({ runId, name, params, owner: this.d.owner }))) throw new ConflictError(ALREADY_RUNNING);
      const domains = this.d.domains?.() ?? NO_DOMAIN_RULES;
      this.d.importer.launch({ runId, name, source, delimiter, write, maxBytes, domains, description: describe(name, source, delimiter, write) });
    } catch (err) {
      await rm(path, { force: true });
      throw err;
    }
    return this.status();
  }
}

/** The first log line: what is imported and how. */
function describe(name: string, src: ImportSource, delimiter: string, w: WriteOptions): string {
  const what = src.kind === 'zip' ? `${src.entry} from the ZIP file "${name}"` : `"${name}"`;
  const lists = w.listIds.length > 0 ? `into list(s) ${w.listIds.join(', ')} as ${w.subscriptionStatus}` : 'into no list';
  const existing = w.overwrite ? (w.blocklist ? 'updated and blocklisted' : 'updated') : 'left as they are';
  return `Importing ${what} (${formatBytes(src.bytes)}, delimiter ${JSON.stringify(delimiter)}) in ${w.blocklist ? 'blocklist' : 'subscribe'} mode ${lists}; existing subscribers are ${existing}.`;
}
