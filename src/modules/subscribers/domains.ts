/**
 * E-mail domain rules: listmonk's `privacy.domain_allowlist` and `privacy.domain_blocklist` (reference
 * §12 defaults, and its table of subscriber field rules, "e-mail domain"). When the allowlist is not
 * empty an address's domain must be on it (the blocklist is then not consulted); otherwise a domain on
 * the blocklist is refused. An entry `*.example.com` matches `example.com` and its one-level
 * subdomains (`news.example.com`); for a deeper name only the first label is replaced by `*`, so
 * `a.b.example.com` is matched by `*.b.example.com`, not by `*.example.com` (listmonk's rule).
 *
 * Applied where an address becomes a subscriber's: API create, a PUT or PATCH that changes the
 * address, the public subscription forms, and each import row. Addresses already stored are not
 * re-checked (a subscriber added before a rule keeps working, and can be edited).
 */
import { FieldError } from '../../errors.js';

/** Compiled rules: lower-case domains and `*.` patterns. */
export interface DomainRules {
  allow: ReadonlySet<string>;
  block: ReadonlySet<string>;
}

/** No rule: every domain is accepted. */
export const NO_DOMAIN_RULES: DomainRules = { allow: new Set(), block: new Set() };

const compiled = new WeakMap<readonly string[], ReadonlySet<string>>();

/** The rules of the two settings' values (each array compiled once, so a request costs no copy). */
export function domainRules(allow: readonly string[], block: readonly string[]): DomainRules {
  return { allow: setOf(allow), block: setOf(block) };
}

function setOf(list: readonly string[]): ReadonlySet<string> {
  let set = compiled.get(list);
  if (set === undefined) {
    set = new Set(list.map((d) => d.trim().toLowerCase()));
    compiled.set(list, set);
  }
  return set;
}

function matches(domain: string, set: ReadonlySet<string>): boolean {
  if (set.has(domain) || set.has(`*.${domain}`)) return true;
  const dot = domain.indexOf('.');
  return dot > 0 && set.has(`*.${domain.slice(dot + 1)}`);
}

/** Why `email` (already a valid address) is refused by `rules`, or null when it is accepted. */
export function domainRefusal(email: string, rules: DomainRules): string | null {
  if (rules.allow.size === 0 && rules.block.size === 0) return null;
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  if (rules.allow.size > 0) return matches(domain, rules.allow) ? null : 'the e-mail domain is not on the allowlist';
  return matches(domain, rules.block) ? 'the e-mail domain is blocklisted' : null;
}

/** Throws FieldError(`field`) when `rules` refuse `email`. */
export function checkDomain(email: string, rules: DomainRules, field = 'email'): void {
  const refusal = domainRefusal(email, rules);
  if (refusal !== null) throw new FieldError(field, refusal);
}

const LABEL = String.raw`[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?`;
const DOMAIN_PATTERN = new RegExp(`^(?:\\*\\.)?${LABEL}(?:\\.${LABEL})*$`, 'u');

/**
 * Settings normalisation of a domain list: entries trimmed and lower-cased, blanks and repeats
 * dropped (listmonk's form takes one domain per line). Non-arrays are left to the schema.
 */
export function normalizeDomainList(raw: unknown): unknown {
  if (!Array.isArray(raw) || !raw.every((d) => typeof d === 'string')) return raw;
  return [...new Set((raw as string[]).map((d) => d.trim().toLowerCase()).filter((d) => d !== ''))];
}

/** Settings check of a domain list: each entry a domain name, optionally starting with `*.`. */
export function checkDomainList(list: string[]): string | null {
  const bad = list.findIndex((d) => d.length > 253 || !DOMAIN_PATTERN.test(d));
  return bad === -1 ? null : `item ${bad + 1} ("${list[bad]!.slice(0, 100)}") must be a domain name, optionally starting with "*."`;
}
