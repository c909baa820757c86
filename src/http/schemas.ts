/**
 * TypeBox building blocks shared by every module's route schemas: the `{"data": …}` envelope, the
 * error body, ids, timestamps and pagination parameters (spec part 1).
 */
import { Type, type Static, type TSchema } from 'typebox';

/** `{"message": "…"}`: the body of every error answer (issue "Foundation" §4). */
export const ErrorBody = Type.Object({ message: Type.String() }, { $id: 'ErrorBody' });

/** Wraps a payload schema in the success envelope `{"data": payload}` (spec 1.1). */
export function Envelope<T extends TSchema>(payload: T) {
  return Type.Object({ data: payload });
}

/** `{"data": true}`: answer of operations that return no resource (spec 1.2). */
export const TrueEnvelope = Envelope(Type.Literal(true));

/** Standard error answers declared on every route (documented in the OpenAPI document). */
export const errorResponses = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  413: ErrorBody,
  415: ErrorBody,
  429: ErrorBody,
  500: ErrorBody,
  503: ErrorBody,
} as const;

/** A positive database id (1 … 2^31-1): path ids, list ids in bodies. */
export const Id = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });

/** Path parameters `{id}`. */
export const IdParams = Type.Object({ id: Id });
export type IdParams = Static<typeof IdParams>;

/** An ISO 8601 timestamp with fractional seconds and offset (spec 1.5); serialised from a Date. */
export const Timestamp = Type.String({ format: 'date-time' });
/** A nullable timestamp. */
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

/** A UUID string. */
export const Uuid = Type.String({ format: 'uuid' });

/** Sort direction: `asc`/`desc` in any letter case (listmonk accepts only lowercase). */
export const Order = Type.String({ pattern: '^([aA][sS][cC]|[dD][eE][sS][cC])$' });

/** `page` and `per_page` query parameters (spec 1.4). */
export const PageQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  per_page: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), Type.Literal('all')])),
};

/** A paginated collection `{results, total, per_page, page}` (spec 1.3). */
export function Page<T extends TSchema>(item: T) {
  return Type.Object({
    results: Type.Array(item),
    total: Type.Integer(),
    per_page: Type.Integer(),
    page: Type.Integer(),
  });
}

/** A paginated collection that also echoes `query` (and listmonk's `search`): subscribers, campaigns. */
export function QueryPage<T extends TSchema>(item: T) {
  return Type.Object({
    results: Type.Array(item),
    query: Type.String(),
    search: Type.String(),
    total: Type.Integer(),
    per_page: Type.Integer(),
    page: Type.Integer(),
  });
}

/** A list of short strings: tags on lists and campaigns. */
export const Tags = Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100 });
