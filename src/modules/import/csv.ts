/**
 * CSV parsing for imports with csv-parse, streaming: records come out as `[fields, line]` where `line`
 * is the file line the record ends on (csv-parse's live `info.lines`, read at the moment the record is
 * produced, so it is exact even though consumers read later). Line breaks may be LF, CRLF or CR. One
 * record is at most {@link MAX_RECORD_CHARS} characters, so an unclosed quote cannot swallow the file
 * into memory: it is a parse error.
 */
import { Parser, type CsvError } from 'csv-parse';
import { FieldError } from '../../errors.js';
import { HeaderError, mapHeader, type Columns } from './rows.js';
import { openCsv, type ImportSource } from './source.js';

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

/**
 * Reads the header row of a source. Throws FieldError('file') when the file is not readable CSV, has
 * no header row, or its header has no `email` column.
 */
export async function readHeader(src: ImportSource, delimiter: string, maxBytes: number): Promise<Columns> {
  const stream = await openCsv(src, maxBytes);
  const parser = csvParser(delimiter, 1);
  stream.on('error', (err) => parser.destroy(err));
  stream.pipe(parser);
  try {
    for await (const [fields] of parser as AsyncIterable<NumberedRecord>) return mapHeader(fields);
  } catch (err) {
    if (err instanceof HeaderError) throw new FieldError('file', err.message);
    const csv = describeCsvError(err);
    throw new FieldError('file', csv ?? `could not be read (${(err as Error).message})`);
  } finally {
    stream.destroy();
    parser.destroy();
  }
  throw new FieldError('file', 'has no readable header row');
}
