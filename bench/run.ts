/**
 * `npm run bench [name…]`: runs the benchmarks under bench/ one after another (all of them, or the
 * named ones), each in its own process so one's memory does not disturb the next. Each writes its
 * section of docs/benchmarks.md.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('./', import.meta.url));
const NOT_BENCHMARKS = new Set(['run.ts', 'report.ts']);
const all = readdirSync(dir).filter((f) => f.endsWith('.ts') && !NOT_BENCHMARKS.has(f) && !f.startsWith('_')).map((f) => f.slice(0, -3)).sort();
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !all.includes(w));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; available: ${all.join(', ')}`);
  process.exit(2);
}
let failed = 0;
for (const name of wanted.length > 0 ? wanted : all) {
  console.log(`\n=== bench/${name} ===`);
  const res = spawnSync(process.execPath, ['--import', 'tsx', `${dir}${name}.ts`], { stdio: 'inherit', env: process.env });
  if (res.status !== 0) failed += 1;
}
process.exit(failed > 0 ? 1 : 0);
