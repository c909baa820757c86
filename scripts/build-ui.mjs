// Bundles the admin UI's browser assets (src/ui/client/*.ts, src/ui/static/admin.css) with esbuild into
// dist/ui/assets/<entry>-<hash>.<ext> plus manifest.json (entry → file), after `tsc` compiled
// dist/ui/assets.js. `npm start` then serves them without building anything (src/ui/assets.ts).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';

const { buildAssets } = await import('../dist/ui/assets.js');
const out = new URL('../dist/ui/assets/', import.meta.url);
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const built = await buildAssets(new URL('../src/ui/client/', import.meta.url), new URL('../src/ui/static/admin.css', import.meta.url));
const manifest = {};
for (const [entry, a] of built) {
  writeFileSync(new URL(a.file, out), a.body);
  manifest[entry] = a.file;
}
writeFileSync(new URL('manifest.json', out), JSON.stringify(manifest, null, 2) + '\n');
console.log(`ui assets: ${Object.values(manifest).join(', ')}`);
