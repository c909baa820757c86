/**
 * The OpenID Connect sign-in setting, listmonk's `security.oidc` (one key holding an object; listmonk
 * `models/settings.go`, `schema.sql`): enabled, provider_url, provider_name, client_id, client_secret,
 * auto_create_users, default_user_role_id, default_list_role_id. The client secret is masked on read
 * and kept when sent back masked or empty, but only while provider_url and client_id stay the same
 * (issue 14 finding 1: otherwise the stored secret would be handed to another provider).
 */
import { Type, type Static } from 'typebox';
import { defineSetting, isUnchangedSecret, maskSecret, secretMovedProblem, type SettingDef } from '../../settings/definitions.js';
import { FieldError } from '../../errors.js';

const RoleId = Type.Union([Type.Integer({ minimum: 1, maximum: 2_147_483_647 }), Type.Null()]);

/** The shape of `security.oidc`. */
export const OidcSettingSchema = Type.Object({
  enabled: Type.Boolean(),
  provider_url: Type.String({ maxLength: 2000 }),
  provider_name: Type.String({ maxLength: 200 }),
  client_id: Type.String({ maxLength: 2000 }),
  client_secret: Type.String({ maxLength: 2000 }),
  auto_create_users: Type.Boolean(),
  default_user_role_id: RoleId,
  default_list_role_id: RoleId,
});
/** The value of `security.oidc`. */
export type OidcSetting = Static<typeof OidcSettingSchema>;

/** Where a stored client secret is sent: changing one of these needs the secret again. */
const DESTINATION = ['provider_url', 'client_id'] as const;

/** True for a loopback host name (a provider on the same machine: tests, local development). */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(?:\.\d{1,3}){3}$/u.test(hostname);
}

/**
 * The problem with a provider URL, or null: an absolute https URL (http only on a loopback host), no
 * credentials, query or fragment (discovery appends `/.well-known/openid-configuration` to it).
 */
export function providerUrlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'provider_url must be an absolute URL such as https://accounts.example.com';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    return 'provider_url must use https (http only for a provider on this machine)';
  }
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') return 'provider_url must not hold credentials, a query or a fragment';
  return null;
}

/** Refusals of an enabled configuration that could not work. */
function check(v: OidcSetting): string | null {
  if (!v.enabled) return null;
  const urlProblem = providerUrlProblem(v.provider_url.trim());
  if (urlProblem !== null) return urlProblem;
  if (v.client_id.trim() === '') return 'client_id is required when OIDC sign-in is enabled';
  if (v.auto_create_users && v.default_user_role_id === null) return 'default_user_role_id is required when auto_create_users is on';
  return null;
}

/** The OIDC setting declaration. */
export function oidcSettings() {
  return {
    oidc: defineSetting({
      key: 'security.oidc',
      schema: OidcSettingSchema,
      default: {
        enabled: false,
        provider_url: '',
        provider_name: '',
        client_id: '',
        client_secret: '',
        auto_create_users: false,
        default_user_role_id: null,
        default_list_role_id: null,
      } as OidcSetting,
      description:
        'OpenID Connect sign-in (one provider): its issuer URL (discovery), the name shown on the login button, the client ID and secret registered with it (redirect URL: <root_url>/auth/oidc), and whether a user signing in for the first time is created with the default user and list roles. Users are matched by e-mail.',
      check,
      mask: (v: OidcSetting) => ({ ...v, client_secret: maskSecret(v.client_secret) }),
      keepSecrets: (next: OidcSetting, stored: OidcSetting, key: string) => {
        if (!isUnchangedSecret(next.client_secret)) return next;
        if (stored.client_secret === '') return { ...next, client_secret: '' };
        const changed = DESTINATION.filter((f) => next[f] !== stored[f]);
        if (changed.length > 0) throw new FieldError(`${key}.client_secret`, secretMovedProblem(changed, DESTINATION));
        return { ...next, client_secret: stored.client_secret };
      },
    }),
  } satisfies Record<string, SettingDef>;
}
