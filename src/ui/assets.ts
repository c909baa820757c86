/**
 * The admin UI's browser assets (issue 16: islands bundled by esbuild, content-hashed names, long cache
 * headers, no CDN). Entries: every `src/ui/client/*.ts` (one per island; `main.ts` on every page) and
 * the stylesheet `src/ui/static/admin.css`. Each is bundled and minified by esbuild and named
 * `<entry>-<first 12 hex of its SHA-256>.<js|css>`, so a changed file gets a new URL and every URL can be
 * cached for a year.
 *
 * Where they come from:
 * - `npm run build` writes them into `dist/ui/assets/` with `manifest.json` (entry → hashed file name),
 *   via scripts/build-ui.mjs, which calls {@link buildAssets}; `npm start` serves those files.
 * - Run from src/ (vitest, `npm run dev`), there is no manifest beside this module: the first request
 *   that needs an asset builds them all in memory (about a second; once per process).
 * Nothing is fetched from the network either way.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One built asset: its hashed file name, media type and bytes. */
export interface Asset {
  /** e.g. `main-3f2a9c01b2c4.js`. */
  file: string;
  contentType: string;
  body: Buffer;
}

/** The built assets: by entry name (`main.js`, `admin.css`) and by hashed file name. */
export interface AssetSet {
  byEntry: ReadonlyMap<string, Asset>;
  byFile: ReadonlyMap<string, Asset>;
}

/** URL path under which assets are served. */
export const STATIC_PREFIX = '/admin/static/';

const BUILT_DIR = new URL('./assets/', import.meta.url);
const SOURCE_CLIENT = new URL('./client/', import.meta.url);
const SOURCE_CSS = new URL('./static/admin.css', import.meta.url);

const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };

function hashed(entry: string, body: Buffer): string {
  const dot = entry.lastIndexOf('.');
  return `${entry.slice(0, dot)}-${createHash('sha256').update(body).digest('hex').slice(0, 12)}${entry.slice(dot)}`;
}

function asset(entry: string, body: Buffer, file = hashed(entry, body)): Asset {
  return { file, contentType: TYPES[entry.slice(entry.lastIndexOf('.') + 1)] ?? 'application/octet-stream', body };
}

/**
 * Bundles every entry with esbuild, in memory. `clientDir` / `cssFile` default to the sources beside
 * this module (src/ui, or dist/ui's sources' location given by scripts/build-ui.mjs). Returns entry name →
 * asset. Throws esbuild's error when a source does not compile.
 */
export async function buildAssets(clientDir: URL = SOURCE_CLIENT, cssFile: URL = SOURCE_CSS): Promise<Map<string, Asset>> {
  const esbuild = await import('esbuild');
  const entries = readdirSync(clientDir).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  const out = new Map<string, Asset>();
  const common = { bundle: true, minify: true, write: false, logLevel: 'silent', legalComments: 'none' } as const;
  const js = await esbuild.build({
    ...common,
    entryPoints: entries.map((f) => fileURLToPath(new URL(f, clientDir))),
    outdir: '/out',
    format: 'esm',
    target: ['es2022'],
    platform: 'browser',
  });
  for (const f of js.outputFiles) {
    const name = f.path.slice(f.path.lastIndexOf('/') + 1);
    out.set(name, asset(name, Buffer.from(f.contents)));
  }
  const css = await esbuild.build({ ...common, entryPoints: [fileURLToPath(cssFile)], outdir: '/out', loader: { '.css': 'css' } });
  for (const f of css.outputFiles) out.set('admin.css', asset('admin.css', Buffer.from(f.contents)));
  return out;
}

/** Reads the assets `npm run build` wrote beside this module, or null when there are none. */
function readBuilt(): Map<string, Asset> | null {
  const manifestUrl = new URL('manifest.json', BUILT_DIR);
  if (!existsSync(manifestUrl)) return null;
  const manifest = JSON.parse(readFileSync(manifestUrl, 'utf8')) as Record<string, string>;
  const out = new Map<string, Asset>();
  for (const [entry, file] of Object.entries(manifest)) out.set(entry, asset(entry, readFileSync(new URL(file, BUILT_DIR)), file));
  return out;
}

let loading: Promise<AssetSet> | undefined;

/** The assets of this process: the built ones, or built in memory on first call (cached). */
export function loadAssets(): Promise<AssetSet> {
  loading ??= (async () => {
    const byEntry = readBuilt() ?? (await buildAssets());
    return { byEntry, byFile: new Map([...byEntry.values()].map((a) => [a.file, a])) };
  })();
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

/** The URL of entry `name` (`main.js`, `admin.css`, `<island>.js`) in `set`. Throws for an unknown entry. */
export function assetUrl(set: AssetSet, name: string): string {
  const a = set.byEntry.get(name);
  if (a === undefined) throw new Error(`ui: no asset entry "${name}" (known: ${[...set.byEntry.keys()].join(', ')})`);
  return STATIC_PREFIX + a.file;
}
