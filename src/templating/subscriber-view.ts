/**
 * The `.Subscriber` object templates see (listmonk behaviour reference §16.2; listmonk's
 * models.Subscriber, field by field), built from a database row. It is a class instance, so a
 * misspelt field (`.Subscriber.Firstname`) is an execution error as in listmonk, while
 * `.Subscriber.Attribs.<key>` is a map (missing → empty). `CreatedAt`/`UpdatedAt` are listmonk's
 * null.Time: `.CreatedAt.Time.Format "…"` as in listmonk, `.CreatedAt.Format "…"` too.
 */
import { NullTime } from './go-null.js';

/** The subscriber columns the view needs (snake_case, as stored). */
export interface SubscriberRow {
  id: number;
  uuid: string;
  email: string;
  name: string;
  status: string;
  attribs?: Record<string, unknown> | null;
  created_at?: Date | string | null;
  updated_at?: Date | string | null;
  /** listmonk exposes the subscriber's lists as raw JSON text; passed through as given. */
  lists?: unknown;
}

const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

/**
 * listmonk's FirstName rule: the first space-separated word longer than 2 bytes, else the whole
 * name (`"Jo Ann Smith"` → `Ann`; `"Al"` → `Al`).
 */
export function firstNameOf(name: string): string {
  return name.split(' ').find((w) => byteLength(w) > 2) ?? name;
}

/** listmonk's LastName rule: the last such word, else the whole name. */
export function lastNameOf(name: string): string {
  const words = name.split(' ');
  for (let i = words.length - 1; i >= 0; i--) if (byteLength(words[i] as string) > 2) return words[i] as string;
  return name;
}

/** `.Subscriber`: listmonk's fields (ID, CreatedAt, UpdatedAt, UUID, Email, Name, Attribs, Status, Lists); FirstName/LastName computed on first use. */
export class SubscriberView {
  readonly ID: number;
  readonly UUID: string;
  readonly Email: string;
  readonly Name: string;
  readonly Status: string;
  readonly Attribs: Record<string, unknown>;
  readonly CreatedAt: NullTime;
  readonly UpdatedAt: NullTime;
  readonly Lists: unknown;
  #first: string | undefined;
  #last: string | undefined;

  constructor(row: SubscriberRow) {
    this.ID = row.id;
    this.UUID = row.uuid;
    this.Email = row.email;
    this.Name = row.name;
    this.Status = row.status;
    this.Attribs = row.attribs ?? {};
    this.CreatedAt = new NullTime(row.created_at);
    this.UpdatedAt = new NullTime(row.updated_at);
    this.Lists = row.lists ?? '[]';
  }

  get FirstName(): string {
    return (this.#first ??= firstNameOf(this.Name));
  }

  get LastName(): string {
    return (this.#last ??= lastNameOf(this.Name));
  }
}

/** Builds the `.Subscriber` value from a subscriber row. */
export function subscriberView(row: SubscriberRow): SubscriberView {
  return new SubscriberView(row);
}
