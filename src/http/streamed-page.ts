/**
 * A paginated answer (spec 1.3: `{"data": {"results": [...], ...}}`) written while its results are
 * still being read, so a page of a million subscribers never sits in memory (issue 14 finding 9,
 * issue 15 item 4). Every byte is the route's own 200 serializer's output: the envelope around an
 * empty `results` is split at `"results":[]`, and each batch is serialized in the same envelope and
 * cut out of it, so the answer is byte for byte what serializing the whole page at once would give.
 *
 * Until {@link PageSink.start} the answer has not begun, and an error is answered as usual (4xx/5xx).
 * After it, an error (or a client that stops reading for {@link STREAM_STALL_MS}) destroys the
 * connection before the last chunk: the client sees a failed transfer (an unterminated chunked body,
 * JSON without its closing brackets), never a complete-looking 200 with rows missing.
 */
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/**
 * How long (ms) the writer waits for a client that stopped reading before it abandons the answer: the
 * reader holds a database transaction meanwhile (on the embedded store, the only connection).
 */
export const STREAM_STALL_MS = 30_000;

/** Receives a page while it is read. */
export interface PageSink<T, M extends object> {
  /**
   * Begins the answer with the envelope's other fields (`total`, `per_page`, `page`, …), once, before
   * the first batch; a failure before this is answered with its usual status.
   */
  start(meta: M): void;
  /**
   * Writes a batch of results (empty batches are allowed). Resolves when the client is ready for more;
   * rejects with {@link AnswerAbandoned} when the answer was abandoned (client gone or stalled): the
   * reader must stop then.
   */
  write(rows: readonly T[]): Promise<void>;
}

/** The answer being streamed was abandoned (the client went away or stopped reading). */
export class AnswerAbandoned extends Error {
  constructor(message = 'the client went away before the answer was complete') {
    super(message);
    this.name = 'AnswerAbandoned';
  }
}

const RESULTS = '"results":[]';

/**
 * Answers `reply` with the page `read` produces: `read` calls `sink.start(meta)` once it knows the
 * envelope (after its first batch is read, so its early errors are ordinary answers), then
 * `sink.write` for each batch in order, and resolves when done. Resolves with `reply` once the answer
 * has begun; rejects with `read`'s error when it fails before `start` (or never calls it). The route
 * must have a 200 response schema whose `data` has `results` as its first property. `stallMs`: see
 * {@link STREAM_STALL_MS}.
 */
export function streamPage<T, M extends object, R extends FastifyReply>(reply: R, read: (sink: PageSink<T, M>) => Promise<void>, stallMs = STREAM_STALL_MS): Promise<R> {
  return new Promise<R>((resolve, reject) => {
    let out: Readable | null = null;
    let frame: { meta: M; prefix: string; suffix: string } | null = null;
    let wroteRows = false;
    let wanted = false;
    let wake: (() => void) | null = null;
    const signal = (): void => {
      const w = wake;
      wake = null;
      w?.();
    };
    // The route's own compiled 200 serializer (Fastify keys them by the status as a string).
    const serialize = (meta: M, rows: readonly T[]): string => (reply as FastifyReply).serializeInput({ data: { ...meta, results: rows } }, '200') as string;

    /** Resolves when the client wants more; rejects when the answer was destroyed or stalled. */
    const demand = async (stream: Readable): Promise<void> => {
      while (!wanted && !stream.destroyed) {
        await new Promise<void>((done) => {
          const timer = setTimeout(() => {
            stream.destroy(new AnswerAbandoned(`the client read nothing for ${stallMs} ms; the answer was abandoned`));
            done();
          }, stallMs);
          wake = () => {
            clearTimeout(timer);
            done();
          };
        });
      }
      if (stream.destroyed) throw new AnswerAbandoned();
    };

    const sink: PageSink<T, M> = {
      start(meta) {
        if (frame !== null) throw new Error('streamPage: start called twice');
        const empty = serialize(meta, []);
        const at = empty.indexOf(RESULTS);
        if (at === -1) throw new Error('streamPage: the route has no 200 schema with results');
        frame = { meta, prefix: empty.slice(0, at + RESULTS.length - 1), suffix: empty.slice(at + RESULTS.length - 1) };
        const stream = new Readable({
          read() {
            wanted = true;
            signal();
          },
          destroy(err, callback) {
            signal();
            callback(err);
          },
        });
        out = stream;
        stream.push(frame.prefix);
        void reply.type('application/json; charset=utf-8').send(stream);
        resolve(reply);
      },
      async write(rows) {
        const stream = out;
        if (stream === null || frame === null) throw new Error('streamPage: write before start');
        if (stream.destroyed) throw new AnswerAbandoned();
        if (rows.length === 0) return;
        const whole = serialize(frame.meta, rows);
        if (!whole.startsWith(frame.prefix) || !whole.endsWith(frame.suffix)) throw new Error('streamPage: a batch serialized outside the envelope');
        const items = whole.slice(frame.prefix.length, whole.length - frame.suffix.length);
        wanted = false;
        stream.push(wroteRows ? `,${items}` : items);
        wroteRows = true;
        await demand(stream);
      },
    };

    read(sink).then(
      () => {
        if (out === null || frame === null) return reject(new Error('streamPage: the page was never started'));
        if (out.destroyed) return;
        out.push(frame.suffix);
        out.push(null);
      },
      (err: unknown) => {
        if (out === null) return reject(err);
        out.destroy(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
