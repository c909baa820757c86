/**
 * listmonk's i18n object, what `{{ L }}` returns: `L.T "key"`, `L.Ts "key" "name" "value" …` and
 * `L.Tc "key" n`, with listmonk's rules (issue 15 item 9; listmonk `internal/i18n/i18n.go`):
 *
 * - an unknown key translates to the key itself;
 * - `"Singular | Plural"` strings: `T` and `Ts` give the singular; `Tc` gives the plural when
 *   n > 1 and the singular otherwise (0, 1 and negatives are singular); a string with more than two
 *   forms gives its first form for the plural too;
 * - `Ts` substitutes `{name}` with the value after it; an odd number of parameters answers
 *   `<key>: Invalid arguments`; `{key}` references inside a value are translated in turn
 *   (at most 8 rounds, so a value referring to itself cannot loop).
 *
 * Strings come from the catalogue files of src/i18n (one per language).
 */
import { catalogue, hasLanguage } from '../i18n/catalog.js';
import { str } from './funcs/conv.js';

const PARAM = /\{([a-z0-9.-]+)\}/giu;
const MAX_ROUNDS = 8;

function singular(s: string): string {
  return s.includes('|') ? (s.split('|')[0] as string).trim() : s;
}

function plural(s: string): string {
  if (!s.includes('|')) return s;
  const forms = s.split('|');
  return (forms.length === 2 ? (forms[1] as string) : (forms[0] as string)).trim();
}

/** Translations of one language. */
export class I18n {
  /** Singular forms, computed once: `T` runs for every message. */
  readonly #singular: Map<string, string>;
  readonly #strings: Readonly<Record<string, string>>;

  constructor(strings: Readonly<Record<string, string>>) {
    this.#strings = strings;
    this.#singular = new Map(Object.entries(strings).map(([k, v]) => [k, singular(v)]));
  }

  /** The translation of `key` (its singular form), or the key itself when unknown. */
  T(key: unknown): string {
    const k = str(key);
    return this.#singular.get(k) ?? k;
  }

  /** `T` with `{name}` parameters substituted; `<key>: Invalid arguments` for an odd number of them. */
  Ts(key: unknown, ...params: unknown[]): string {
    const k = str(key);
    if (params.length % 2 !== 0) return `${k}: Invalid arguments`;
    let s = this.#singular.get(k);
    if (s === undefined) return k;
    for (let i = 0; i < params.length; i += 2) s = s.split(`{${str(params[i])}}`).join(this.#resolve(str(params[i + 1])));
    return s;
  }

  /** The plural form of `key` when n > 1, else the singular (listmonk's rule); the key when unknown. */
  Tc(key: unknown, n: unknown): string {
    const k = str(key);
    const s = this.#strings[k];
    if (s === undefined) return k;
    const count = typeof n === 'number' ? n : Number(str(n));
    return count > 1 ? plural(s) : singular(s);
  }

  /** listmonk's subAllParams: `{key}` references inside a parameter value are translated. */
  #resolve(value: string): string {
    let v = value;
    for (let round = 0; round < MAX_ROUNDS && v.includes('{'); round++) {
      const next = v.replace(PARAM, (_m, ref: string) => this.T(ref));
      if (next === v) break;
      v = next;
    }
    return v;
  }

  /** The I18n of a language code (cached); an unknown or absent code gives English. */
  static for(lang?: string): I18n {
    const code = lang !== undefined && hasLanguage(lang) ? lang : 'en';
    let hit = byLang.get(code);
    if (!hit) {
      hit = new I18n(catalogue(code).strings);
      byLang.set(code, hit);
    }
    return hit;
  }
}

const byLang = new Map<string, I18n>();
