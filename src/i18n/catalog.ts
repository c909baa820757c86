/**
 * Message catalogues: one JSON file per language beside this module (`en.json`, `fr.json`, …),
 * listmonk's format (issue 15 item 9; listmonk `i18n/*.json`, `internal/i18n`): a flat object of
 * key → string, `"Singular | Plural"` for words with a plural, `{name}` for parameters, and the
 * required keys `_.code` (the file's language code) and `_.name` (its name). Adding a language is
 * adding a file; `scripts/copy-assets.mjs` copies the files into `dist/` so `npm start` finds them.
 *
 * As listmonk, a language is loaded over English, so a key it lacks reads in English. Templates
 * (`L.T`, `L.Ts`, `L.Tc`), system e-mails and public pages share these catalogues; the admin UI
 * will too. Files are read once per process and cached.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** Where the shipped catalogues are (src/i18n, or dist/i18n once built). */
export const CATALOGUE_DIR = new URL('./', import.meta.url);
const CODE = /^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/u;

/** A loaded catalogue: its code, its name and every key → string (English underneath). */
export interface Catalogue {
  code: string;
  name: string;
  strings: Readonly<Record<string, string>>;
}

const cache = new Map<string, Catalogue>();

/** Reads and checks one catalogue file. Throws Error naming the file and what is wrong with it. */
function readFile(dir: URL, code: string): Record<string, string> {
  const file = new URL(`./${code}.json`, dir);
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`i18n/${code}.json: must be a JSON object`);
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(parsed)) {
    if (typeof v !== 'string') throw new Error(`i18n/${code}.json: "${k}" must be a string`);
    out[k] = v;
  }
  if (out['_.code'] !== code) throw new Error(`i18n/${code}.json: "_.code" must be "${code}"`);
  if (!out['_.name']) throw new Error(`i18n/${code}.json: "_.name" is required`);
  return out;
}

/** Codes of the catalogues in `dir` (the `*.json` files; default: the shipped ones), sorted. */
export function availableLanguages(dir: URL = CATALOGUE_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .filter((c) => CODE.test(c))
    .sort();
}

/** Whether a catalogue file exists for `code` in `dir` (default: the shipped ones). */
export function hasLanguage(code: string, dir: URL = CATALOGUE_DIR): boolean {
  return CODE.test(code) && existsSync(new URL(`./${code}.json`, dir));
}

/**
 * The catalogue of `code` in `dir` (default: the shipped ones), loaded over English (cached).
 * Throws Error for an unknown code or a malformed file.
 */
export function catalogue(code = 'en', dir: URL = CATALOGUE_DIR): Catalogue {
  const key = `${dir.href} ${code}`;
  const hit = cache.get(key);
  if (hit) return hit;
  if (!hasLanguage(code, dir)) throw new Error(`i18n: no catalogue for language "${code}" (available: ${availableLanguages(dir).join(', ')})`);
  const own = readFile(dir, code);
  const strings = Object.freeze(code === 'en' ? own : Object.assign(Object.create(null) as Record<string, string>, catalogue('en', dir).strings, own));
  const c: Catalogue = { code, name: own['_.name'] as string, strings };
  cache.set(key, c);
  return c;
}
