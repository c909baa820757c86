/**
 * Hands rendered tx messages to a messenger and waits for each answer: a few at a time, temporary
 * failures (SMTP 4xx, connection errors) retried briefly, permanent refusals (SMTP 5xx) recorded.
 * A request waits for this, so the retries are bounded (about a second and a half in all).
 */
import { SendError, type Messenger, type OutgoingMessage } from '../../mail/messenger.js';

/** Messages pushed at once for one request. */
const CONCURRENCY = 10;
/** Waits before the second and third attempt after a temporary failure (ms). */
const RETRY_DELAYS_MS = [250, 1000];

/** What happened to each message. */
export interface Delivery {
  sent: number;
  /** Refused for good by the server (SMTP 5xx). */
  refused: Array<{ email: string; reason: string }>;
  /** Still failing temporarily after the retries. */
  failed: Array<{ email: string; reason: string }>;
}

function reasonOf(err: SendError): string {
  const text = err.message.replace(/\s+/gu, ' ').trim().slice(0, 200);
  return err.responseCode !== null && !text.startsWith(String(err.responseCode)) ? `${err.responseCode} ${text}` : text;
}

async function pushOne(messenger: Messenger, m: OutgoingMessage): Promise<SendError | null> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await messenger.push(m);
      return null;
    } catch (err) {
      const e = err instanceof SendError ? err : new SendError('transient', err instanceof Error ? err.message : String(err));
      const delay = RETRY_DELAYS_MS[attempt];
      if (e.kind === 'permanent' || delay === undefined) return e;
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

/**
 * Sends every message and reports the outcome; never throws for send failures. The reasons reported
 * are the errors' API-safe messages; `onDetail` receives the full detail of a failure whose message
 * hides it (a connection failure naming hosts and ports, issue 14 finding 10), for the server log.
 */
export async function deliver(messenger: Messenger, messages: OutgoingMessage[], onDetail: (email: string, detail: string) => void = () => undefined): Promise<Delivery> {
  const out: Delivery = { sent: 0, refused: [], failed: [] };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < messages.length) {
      const m = messages[next++]!;
      const err = await pushOne(messenger, m);
      if (err === null) {
        out.sent += 1;
        continue;
      }
      if (err.detail !== err.message) onDetail(m.to.address, err.detail);
      (err.kind === 'permanent' ? out.refused : out.failed).push({ email: m.to.address, reason: reasonOf(err) });
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, messages.length) }, worker));
  return out;
}
