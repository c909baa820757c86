/**
 * Schemas of public subscription (spec 4.1 "POST /api/public/subscription", reference §17): a JSON body
 * (`email`, `name`, `list_uuids`) or a form body (`email`, `name`, repeated `l`); both names are
 * accepted in both encodings, a single value or several. `nonce` is the honeypot.
 */
import { Type, type Static } from 'typebox';

const UuidOrList = Type.Union([
  Type.String({ maxLength: 100 }),
  Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 }),
]);

export const PublicSubscribeBody = Type.Object({
  email: Type.String({ maxLength: 1000 }),
  name: Type.Optional(Type.String({ maxLength: 10_000 })),
  list_uuids: Type.Optional(UuidOrList),
  l: Type.Optional(UuidOrList),
  nonce: Type.Optional(Type.String({ maxLength: 1000 })),
});
export type PublicSubscribeBody = Static<typeof PublicSubscribeBody>;

/**
 * The form body: every field optional, so an incomplete form is answered by the form page itself;
 * `next` is where to go after subscribing, followed only when it is one of `security.trusted_urls`.
 */
export const FormBody = Type.Partial(Type.Object({ ...PublicSubscribeBody.properties, next: Type.String({ maxLength: 2000 }) }));
export type FormBody = Static<typeof FormBody>;

/** GET /api/public/lists: a bare array, as listmonk answers (reference §1.1). */
export const PublicLists = Type.Array(Type.Object({ uuid: Type.String(), name: Type.String() }));

/** `?l=<uuid>` on the form (preselected lists) and the opt-in pages. */
export const ListUuidQuery = Type.Object({ l: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 })) });

export const OptinParams = Type.Object({ subscriberUuid: Type.String({ maxLength: 64 }) });

/** `list_uuids` and `l` merged into one array. */
export function listUuidsOf(body: { list_uuids?: string | string[] | undefined; l?: string | string[] | undefined }): string[] {
  const asArray = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  return [...asArray(body.list_uuids), ...asArray(body.l)];
}
