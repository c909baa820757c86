/**
 * `null` in request bodies (issue 15 item 2): optional fields that do not accept null lose it (not
 * given), nullable fields keep it, required fields keep it for validation to refuse, free-form records
 * are left alone.
 */
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { acceptsNull, dropNullOptionals } from '../../src/http/nulls.js';
import { validatorCompiler } from '../../src/http/validation.js';

const Body = Type.Intersect([
  Type.Object({ name: Type.String() }),
  Type.Partial(Type.Object({
    type: Type.Enum(['regular', 'optin']),
    send_at: Type.Union([Type.String(), Type.Null()]),
    attribs: Type.Record(Type.String(), Type.Unknown()),
    nested: Type.Object({ host: Type.String(), port: Type.Optional(Type.Integer()) }),
    items: Type.Array(Type.Object({ a: Type.Optional(Type.String()) })),
    anything: Type.Unknown(),
  })),
]);

describe('dropNullOptionals', () => {
  it('drops optional non-nullable nulls, at any declared depth, and keeps the rest', () => {
    const body = { name: null, type: null, send_at: null, attribs: { x: null }, nested: { host: null, port: null }, items: [{ a: null }, null], anything: null };
    dropNullOptionals(Body, body);
    expect(body).toEqual({ name: null, send_at: null, attribs: { x: null }, nested: { host: null }, items: [{}, null], anything: null });
  });

  it('knows which schemas accept null', () => {
    expect(acceptsNull(Type.Union([Type.Integer(), Type.Null()]))).toBe(true);
    expect(acceptsNull(Type.Unknown())).toBe(true);
    expect(acceptsNull(Type.Enum(['a', 'b']))).toBe(false);
    expect(acceptsNull(Type.Literal('x'))).toBe(false);
    expect(acceptsNull(Type.Array(Type.String()))).toBe(false);
  });
});

describe('the body validator', () => {
  const validate = validatorCompiler({ schema: Body, method: 'POST', url: '/x', httpPart: 'body' }) as unknown as ((v: unknown) => boolean) & { errors?: Array<{ keyword: string; instancePath: string; message?: string }> | null };

  it('accepts nulls for optional fields and names a required one sent as null', () => {
    expect(validate({ name: 'n', type: null, nested: { host: 'h', port: null } })).toBe(true);
    expect(validate({ name: null })).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ keyword: 'null', instancePath: '/name', message: 'must not be null' });
    expect(validate({ name: 'n', nested: { host: null } })).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ keyword: 'null', instancePath: '/nested/host' });
  });
});
