// Copies the non-TypeScript files the server reads at run time (named SQL queries, HTML pages, e-mail
// templates) from src/ into dist/ beside the compiled modules, so `new URL('./x.sql', import.meta.url)`
// resolves the same way from src/ (tests, tsx) and from dist/ (npm start).
import { cpSync, readdirSync, statSync, mkdirSync } from 'node:fs';
import { join, relative, extname, dirname } from 'node:path';

const ASSET_EXTENSIONS = new Set(['.sql', '.html', '.tpl', '.css', '.svg', '.png', '.txt', '.json']);
const src = new URL('../src/', import.meta.url).pathname;
const dist = new URL('../dist/', import.meta.url).pathname;

function walk(dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) walk(path);
    else if (ASSET_EXTENSIONS.has(extname(entry))) {
      const target = join(dist, relative(src, path));
      mkdirSync(dirname(target), { recursive: true });
      cpSync(path, target);
    }
  }
}
walk(src);
