/**
 * Shared by every benchmark: writes one `## <name>` section of docs/benchmarks.md, replacing the
 * previous run's section and leaving the others alone, and describes the machine a run was made on.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

const DOC = new URL('../docs/benchmarks.md', import.meta.url);
const HEADER = `# Benchmarks

Figures written by \`npm run bench\` (each benchmark replaces its own section). Every benchmark compares
against a baseline measured in the same run on the same machine, because absolute timings on a shared
2-core machine are noisy; read the ratios first.
`;

/** One line describing where and when a run happened (CPU, cores, memory, Node, date). */
export function machineLine(): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  const mem = Math.round(totalmem() / 2 ** 30);
  return `${new Date().toISOString().slice(0, 10)}, ${cpu}, ${cpus().length} cores, ${mem} GiB, Node ${process.version}`;
}

/** Replaces (or appends) the section `## <name>` of docs/benchmarks.md with `markdown` (which starts with that heading). */
export function writeSection(name: string, markdown: string): void {
  if (!markdown.startsWith(`## ${name}\n`)) throw new Error(`section must start with "## ${name}"`);
  const doc = existsSync(DOC) ? readFileSync(DOC, 'utf8') : HEADER;
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
  const re = new RegExp(`## ${escaped}\\n[\\s\\S]*?(?=\\n## |$)`, 'u');
  const next = re.test(doc) ? doc.replace(re, () => `${markdown.trimEnd()}\n`) : `${doc.trimEnd()}\n\n${markdown.trimEnd()}`;
  writeFileSync(DOC, `${next.trimEnd()}\n`);
  console.log(`updated docs/benchmarks.md (section "${name}")`);
}
