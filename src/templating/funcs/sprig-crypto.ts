/**
 * Sprig v3's hash, encryption and identifier functions that node:crypto makes direct and cheap:
 * `sha1sum`, `sha256sum`, `sha512sum`, `adler32sum`, `encryptAES`/`decryptAES` (AES-256-CBC, the
 * password zero-padded or cut to 32 bytes, PKCS#7 padding, a random IV in front, base64), `randBytes`
 * and `uuidv4`. Sprig's password hashing, key and certificate functions (`bcrypt`, `htpasswd`,
 * `derivePassword`, `genPrivateKey`, `buildCustomCert`, `genCA…`, `genSelfSignedCert…`,
 * `genSignedCert…`) are left out: see docs/differences-from-listmonk.md. From Sprig's crypto.go.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, randomUUID } from 'node:crypto';
import { EvalFailure } from '../errors.js';
import type { CallContext } from '../types.js';
import { str, toInt64 } from './conv.js';
import { checkSize, def, type FuncTable } from './registry.js';

type F = (c: CallContext, ...a: unknown[]) => unknown;

const hash = (alg: string): F => (_c, s) => createHash(alg).update(str(s), 'utf8').digest('hex');

/** hash/adler32's checksum of the UTF-8 bytes, printed in decimal as Sprig does. */
export function adler32(s: string): number {
  let a = 1;
  let b = 0;
  for (const byte of Buffer.from(s, 'utf8')) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return (b * 65536 + a) >>> 0;
}

/** The AES-256 key Sprig derives: the password's bytes, zero-padded or cut to 32. */
function aesKey(password: string): Buffer {
  const key = Buffer.alloc(32);
  Buffer.from(password, 'utf8').copy(key, 0, 0, 32);
  return key;
}

function encryptAES(_c: CallContext, password: unknown, plaintext: unknown): string {
  const text = str(plaintext);
  if (text === '') return '';
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', aesKey(str(password)), iv);
  return Buffer.concat([iv, cipher.update(text, 'utf8'), cipher.final()]).toString('base64');
}

/** Go's base64.StdEncoding.DecodeString (newlines ignored); throws Go's error text. */
function base64Strict(s: string): Buffer {
  const t = s.replace(/[\r\n]/g, '');
  const bad = /[^A-Za-z0-9+/=]/.exec(t);
  if (bad) throw new EvalFailure(`illegal base64 data at input byte ${bad.index}`);
  const pad = t.indexOf('=');
  if (t.length % 4 !== 0 || (pad !== -1 && (pad < t.length - 2 || /[^=]/.test(t.slice(pad))))) {
    throw new EvalFailure(`illegal base64 data at input byte ${pad !== -1 ? pad : t.length - (t.length % 4)}`);
  }
  return Buffer.from(t, 'base64');
}

/** Sprig's decryptAES, failing where Go panics (short input, partial blocks, a bad padding length). */
function decryptAES(_c: CallContext, password: unknown, crypt64: unknown): string {
  const text = str(crypt64);
  if (text === '') return '';
  const crypt = base64Strict(text);
  if (crypt.length < 16) throw new EvalFailure(`runtime error: slice bounds out of range [:16] with capacity ${crypt.length}`);
  const body = crypt.subarray(16);
  if (body.length % 16 !== 0) throw new EvalFailure('crypto/cipher: input not full blocks');
  if (body.length === 0) throw new EvalFailure('runtime error: index out of range [-1]');
  const decipher = createDecipheriv('aes-256-cbc', aesKey(str(password)), crypt.subarray(0, 16));
  decipher.setAutoPadding(false);
  const plain = Buffer.concat([decipher.update(body), decipher.final()]);
  const padding = plain[plain.length - 1] as number;
  const end = plain.length - padding;
  if (end < 0) throw new EvalFailure(`runtime error: slice bounds out of range [:${end}]`);
  return plain.subarray(0, end).toString('utf8');
}

function randBytesB64(c: CallContext, count: unknown): string {
  const n = toInt64(count);
  if (n < 0) throw new EvalFailure('runtime error: makeslice: len out of range');
  checkSize(c, Math.ceil(n / 3) * 4, 'randBytes');
  return randomBytes(n).toString('base64');
}

/** The Sprig crypto functions implemented here, by name. */
export const SPRIG_CRYPTO: FuncTable = {
  sha1sum: def(hash('sha1'), 1),
  sha256sum: def(hash('sha256'), 1),
  sha512sum: def(hash('sha512'), 1),
  adler32sum: def((_c, s) => String(adler32(str(s))), 1),
  encryptAES: def(encryptAES as F, 2),
  decryptAES: def(decryptAES as F, 2),
  randBytes: def(randBytesB64 as F, 1),
  uuidv4: def(() => randomUUID(), 0),
};
