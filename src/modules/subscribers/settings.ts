/**
 * Settings owned by the subscribers module (conventions §10): the statement timeout of subscriber
 * filters (issue 3 §2, default 5 s), whether double opt-in e-mails go out automatically
 * (listmonk's `app.send_optin_confirmation`, reference §4.3, §12), and the e-mail domain allow and
 * block lists (listmonk's `privacy.domain_allowlist` / `privacy.domain_blocklist`). Each setting is
 * declared with its own `defineSetting({ key: … })`, as test/unit/configuration-doc.test.ts finds them.
 */
import { Type } from 'typebox';
import { DURATION_PATTERN, parseDuration } from '../../util/duration.js';
import { defineSetting, type SettingDef } from '../../settings/definitions.js';
import { checkDomainList, normalizeDomainList } from './domains.js';

/** Shortest and longest accepted filter timeouts, in milliseconds. */
export const QUERY_TIMEOUT_RANGE = { min: 100, max: 3_600_000 } as const;

/** The subscribers module's setting declarations. */
export function subscriberSettings() {
  return {
    queryTimeout: defineSetting({
      key: 'app.subscriber_query_timeout',
      schema: Type.String({ pattern: DURATION_PATTERN }),
      default: '5s',
      description:
        'Statement timeout of subscriber filters (the `query` SQL expression, `search`, list filters, bulk query operations and the CSV export), e.g. `5s`, `800ms`. On the embedded store, which cannot interrupt a statement, a `query` expression is evaluated in steps and stopped between two steps once this time has passed.',
      check: (v) => {
        const ms = parseDuration(v);
        return ms === null || ms < QUERY_TIMEOUT_RANGE.min || ms > QUERY_TIMEOUT_RANGE.max ? 'must be a duration from 100ms to 1h' : null;
      },
    }),
    domainBlocklist: defineSetting({
      key: 'privacy.domain_blocklist',
      schema: Type.Array(Type.String({ maxLength: 260 }), { maxItems: 100_000 }),
      default: [] as string[],
      description: 'E-mail domains refused for subscribers (API, public forms, import); `*.example.com` also covers its subdomains. Ignored while the allowlist is not empty.',
      normalize: normalizeDomainList,
      check: checkDomainList,
    }),
    domainAllowlist: defineSetting({
      key: 'privacy.domain_allowlist',
      schema: Type.Array(Type.String({ maxLength: 260 }), { maxItems: 100_000 }),
      default: [] as string[],
      description: 'When not empty, the only e-mail domains accepted for subscribers (API, public forms, import).',
      normalize: normalizeDomainList,
      check: checkDomainList,
    }),
    sendOptinConfirmation: defineSetting({
      key: 'app.send_optin_confirmation',
      schema: Type.Boolean(),
      default: true,
      description:
        'Send the double opt-in e-mail automatically when a subscriber gets unconfirmed memberships of double opt-in lists (create, update, list changes, public subscription). `POST /api/subscribers/:id/optin` sends regardless.',
    }),
  } satisfies Record<string, SettingDef>;
}

/** The timeout setting in milliseconds (a valid stored value always parses). */
export function timeoutMs(value: string): number {
  return parseDuration(value) ?? 5000;
}
