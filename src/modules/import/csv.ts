/**
 * CSV parsing for imports with csv-parse, streaming: records come out as `[fields, line]` where `line`
 * is the file line the record ends on (csv-parse's live `info.lines`, read at the moment the record is
 * produced, so it is exact even though consumers read later). Line breaks may be LF, CRLF or CR. One
 * record is at most {@link MAX_RECORD_CHARS} characters, so an unclosed quote cannot swallow the file
 * into memory: it is a parse error.
 */
import { pipeline } from 'node:stream';
import { Parser, type CsvError } from 'csv-parse';
import { FieldError } from '../../errors.js';
import { HeaderError, mapHeader, type Columns } from './rows.js';
import { openCsv, owned, type ImportSource } from './source.js';

/** Longest record accepted, in characters (attributes are at most 64 KiB). */
export const MAX_RECORD_CHARS = 1024 * 1024;

/** A parsed record and the line it ends on. */
export type NumberedRecord = [fields: string[], endLine: number];

/** csv-parse's stream parser, tagging each record with the line it ends on. */
class NumberedParser extends Parser {
  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    return chunk === null ? super.push(null) : super.push([chunk, this.info.lines], encoding);
  }
}

/**
 * A streaming parser for `delimiter`-separated text; write bytes, iterate {@link NumberedRecord}s.
 * With `toLine`, parsing stops after that line (so later content cannot fail it).
 */
export function csvParser(delimiter: string, toLine?: number): Parser {
  return new NumberedParser({
    ...(toLine !== undefined ? { to_line: toLine } : {}),
    delimiter,
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
    record_delimiter: ['\r\n', '\n', '\r'],
    max_record_size: MAX_RECORD_CHARS,
  });
}

/** A csv-parse error as a sentence naming the line. */
export function describeCsvError(err: unknown): string | null {
  const e = err as Partial<CsvError> & { lines?: number };
  if (typeof e.code !== 'string' || (!e.code.startsWith('CSV_') && e.code !== 'INVALID_OPENING_QUOTE')) return null;
  return `malformed CSV at line ${e.lines ?? '?'}: ${(e.message ?? '').replace(/\s+/gu, ' ').slice(0, 300)}`;
}

/** The records of an opened source, read one at a time (see {@link openRecords}). */
export interface CsvRecords {
  /**
   * The next record, or `done` at the end of the file. Throws the first error of any stream of the
   * chain (a csv-parse error, SourceError, a file-system error), whenever it happened, even before
   * the first call.
   */
  next(): Promise<IteratorResult<NumberedRecord>>;
  /** Ends the chain early (closes the file); idempotent. */
  close(): void;
}

/**
 * Opens a source's records: the file read (or the ZIP entry, inflated and byte-limited) piped into
 * the CSV parser with `stream.pipeline`, so a failure of any stream destroys the whole chain, and
 * every stream has its errors handled from the moment it exists (issue 14 finding 2: a parser error
 * emitted before the reader listened, at the first byte or after the last row, ended the process).
 * Nothing is read faster than `next()` asks, beyond the streams' buffers. With `toLine`, parsing
 * stops after that line. Throws what {@link openCsv} throws.
 */
export async function openRecords(src: ImportSource, delimiter: string, maxBytes: number, toLine?: number): Promise<CsvRecords> {
  const source = await openCsv(src, maxBytes);
  const parser = owned(csvParser(delimiter, toLine));
  let failure: Error | null = null;
  let closed = false;
  pipeline(source, parser, (err) => {
    if (err && !closed) failure ??= err;
  });
  const records = (parser as AsyncIterable<NumberedRecord>)[Symbol.asyncIterator]();
  return {
    async next() {
      let result: IteratorResult<NumberedRecord>;
      try {
        result = await records.next();
      } catch (err) {
        throw failure ?? err;
      }
      // A chain that failed after the parser's last record (the file's end, a ZIP limit) fails the read;
      // a premature close does not: the parser ends early itself with `toLine`.
      if (result.done === true && failure !== null && (failure as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') throw failure;
      return result;
    },
    close() {
      closed = true;
      source.destroy();
      parser.destroy();
    },
  };
}

/**
 * Reads the header row of a source. Throws FieldError('file') when the file is not readable CSV, has
 * no header row, or its header has no `email` column.
 */
export async function readHeader(src: ImportSource, delimiter: string, maxBytes: number): Promise<Columns> {
  const records = await openRecords(src, delimiter, maxBytes, 1);
  try {
    const first = await records.next();
    if (first.done === true) throw new FieldError('file', 'has no readable header row');
    return mapHeader(first.value[0]);
  } catch (err) {
    if (err instanceof FieldError) throw err;
    if (err instanceof HeaderError) throw new FieldError('file', err.message);
    const csv = describeCsvError(err);
    throw new FieldError('file', csv ?? `could not be read (${(err as Error).message})`);
  } finally {
    records.close();
  }
}
