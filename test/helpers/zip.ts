/**
 * ZIP files for import tests, made with yazl, and the two kinds of hostile archive yazl refuses to
 * make, produced by editing its output byte for byte: entry names with `../`, and an entry that
 * declares a smaller inflated size than it really has (a ZIP bomb that lies).
 */
import yazl from 'yazl';

/** A ZIP holding `entries` (name, content), deflated; a name ending in `/` is a directory. */
export function zipOf(entries: Array<[string, string | Buffer]>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of entries) {
    if (name.endsWith('/')) zip.addEmptyDirectory(name.slice(0, -1));
    else zip.addBuffer(Buffer.from(content), name);
  }
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

/** Replaces every occurrence of the name `from` by `to` (same byte length) in local and central headers. */
export function renameEntry(zip: Buffer, from: string, to: string): Buffer {
  if (Buffer.byteLength(from) !== Buffer.byteLength(to)) throw new Error('names must have the same length');
  const out = Buffer.from(zip);
  const needle = Buffer.from(from);
  for (let at = out.indexOf(needle); at !== -1; at = out.indexOf(needle, at + 1)) Buffer.from(to).copy(out, at);
  return out;
}

/** Sets the declared inflated size of every entry (local headers at +22, central headers at +24). */
export function declareSize(zip: Buffer, size: number): Buffer {
  const out = Buffer.from(zip);
  for (let i = 0; i + 4 <= out.length; i++) {
    const sig = out.readUInt32LE(i);
    if (sig === 0x04034b50) out.writeUInt32LE(size, i + 22);
    else if (sig === 0x02014b50) out.writeUInt32LE(size, i + 24);
  }
  return out;
}
