/**
 * listmonk's nullable column types (gopkg.in/volatiletech/null.v6) as template values, so listmonk
 * templates that reach into them work unchanged (issue 15 item 8):
 *
 * - `null.Time`: `.Time` (a time.Time; Go's zero time when null) and `.Valid`. listmonk's documented
 *   form `{{ .Subscriber.CreatedAt.Time.Format "2006-01-02" }}` works, and so does the shorter
 *   `.CreatedAt.Format …` (every time.Time method is forwarded to `.Time`; Go has no such forwarding).
 * - `null.String`: `.String` and `.Valid`; `null.Int`: `.Int` and `.Valid`.
 *
 * As in Go they are structs: always true in `if`, and they compare by value with `eq`. Where Go
 * prints the struct (`{2024-01-02 03:04:05 +0000 UTC true}`, `{text true}`), Mailroom prints the value
 * (a time as time.Time.String(), the text, the number) and nothing when null; JSON is the value or
 * `null`, as null.v6's MarshalJSON writes it.
 */
import { timeString, zeroTime } from './go-time.js';

/** Base of the null.v6 stand-ins: how they print and encode. */
export abstract class GoNull {
  abstract readonly Valid: boolean;
  /** What an action prints: the value, or '' when null. */
  abstract text(): string;
  /** What JSON encodes: the value, or null when null. */
  abstract jsonValue(): unknown;
  /** Whether `other` holds the same value (Go's == on the struct). */
  abstract same(other: unknown): boolean;
}

/** null.Time: `.Time` and `.Valid`; time methods forwarded to `.Time` (see values.getField). */
export class NullTime extends GoNull {
  readonly Time: Date;
  readonly Valid: boolean;

  /** A null.Time of `d`; null, undefined or an invalid date is a null one (zero `.Time`, `.Valid` false). */
  constructor(d: Date | string | null | undefined) {
    super();
    const t = d === null || d === undefined ? null : d instanceof Date ? d : new Date(d);
    this.Valid = t !== null && !Number.isNaN(t.getTime());
    this.Time = this.Valid ? (t as Date) : zeroTime();
  }

  text(): string {
    return this.Valid ? timeString(this.Time) : '';
  }

  jsonValue(): unknown {
    return this.Valid ? this.Time : null;
  }

  same(o: unknown): boolean {
    return o instanceof NullTime && o.Valid === this.Valid && o.Time.getTime() === this.Time.getTime();
  }
}

/** null.String: `.String` and `.Valid`. */
export class NullString extends GoNull {
  readonly String: string;
  readonly Valid: boolean;

  /** A null.String of `s`; null or undefined is a null one (`.String` '', `.Valid` false). */
  constructor(s: string | null | undefined) {
    super();
    this.Valid = typeof s === 'string';
    this.String = this.Valid ? (s as string) : '';
  }

  text(): string {
    return this.String;
  }

  jsonValue(): unknown {
    return this.Valid ? this.String : null;
  }

  same(o: unknown): boolean {
    return o instanceof NullString && o.Valid === this.Valid && o.String === this.String;
  }
}

/** null.Int: `.Int` and `.Valid`. */
export class NullInt extends GoNull {
  readonly Int: number;
  readonly Valid: boolean;

  /** A null.Int of `n`; null or undefined is a null one (`.Int` 0, `.Valid` false). */
  constructor(n: number | null | undefined) {
    super();
    this.Valid = typeof n === 'number' && Number.isFinite(n);
    this.Int = this.Valid ? Math.trunc(n as number) : 0;
  }

  text(): string {
    return this.Valid ? String(this.Int) : '';
  }

  jsonValue(): unknown {
    return this.Valid ? this.Int : null;
  }

  same(o: unknown): boolean {
    return o instanceof NullInt && o.Valid === this.Valid && o.Int === this.Int;
  }
}

/** A time argument: a Date, or the `.Time` of a null.Time (Go's zero time when null); null otherwise. */
export function asTime(v: unknown): Date | null {
  if (v instanceof Date) return v;
  if (v instanceof NullTime) return v.Time;
  return null;
}

/** Go type names for messages and %T. */
export function goNullTypeName(v: GoNull): string {
  return v instanceof NullTime ? 'null.Time' : v instanceof NullString ? 'null.String' : 'null.Int';
}
