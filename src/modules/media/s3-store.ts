/**
 * The S3-compatible media store (reference §11, listmonk's `upload.s3.*` settings) through the official
 * AWS SDK. Objects are written under `<bucket_path>/<key>`. Public buckets are linked directly
 * (`public_url`, or the endpoint with the bucket); private buckets are served by Mailroom at /uploads/.
 * The SDK is loaded on first use, so instances that store media on the filesystem never load it.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { Logger } from 'pino';
import type { MediaStore, StoredObject } from './store.js';

/** Connection settings of an S3 store. */
export interface S3Options {
  /** Endpoint URL of an S3-compatible service; '' for AWS. */
  endpoint: string;
  /** Public base URL of the bucket; '' to derive it from the endpoint. */
  publicUrl: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  bucket: string;
  /** Key prefix, e.g. `media/` ('' for the bucket root). */
  bucketPath: string;
  bucketType: 'public' | 'private';
}

type Sdk = typeof import('@aws-sdk/client-s3');

/** Media in an S3 bucket. */
export class S3Store implements MediaStore {
  readonly provider = 's3' as const;
  private readonly prefix: string;
  private sdk: Promise<{ client: S3Client; sdk: Sdk }> | null = null;

  constructor(
    private readonly opts: S3Options,
    private readonly log?: Logger,
  ) {
    const trimmed = opts.bucketPath.replace(/^\/+|\/+$/gu, '');
    this.prefix = trimmed === '' ? '' : `${trimmed}/`;
  }

  /** The SDK and a client for these settings, made on first use. */
  private connect(): Promise<{ client: S3Client; sdk: Sdk }> {
    this.sdk ??= import('@aws-sdk/client-s3').then((sdk) => {
      const quiet = () => undefined;
      const { opts, log } = this;
      const client = new sdk.S3Client({
        // The SDK's own diagnostics go to our log instead of the console.
        logger: { trace: quiet, debug: quiet, info: quiet, warn: (...a: unknown[]) => log?.warn({ sdk: a }, 's3 client warning'), error: (...a: unknown[]) => log?.error({ sdk: a }, 's3 client error') },
        region: opts.region || 'us-east-1',
        ...(opts.endpoint ? { endpoint: opts.endpoint, forcePathStyle: true } : {}),
        ...(opts.accessKeyId ? { credentials: { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey } } : {}),
        // Many S3-compatible services reject the SDK's newer default checksums; send them only when required.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
      return { client, sdk };
    });
    return this.sdk;
  }

  async put(key: string, source: { path: string } | { data: Buffer }, contentType: string): Promise<void> {
    const { client, sdk } = await this.connect();
    const body = 'data' in source ? source.data : createReadStream(source.path);
    const length = 'data' in source ? source.data.length : (await stat(source.path)).size;
    await client.send(new sdk.PutObjectCommand({ Bucket: this.opts.bucket, Key: this.prefix + key, Body: body, ContentType: contentType, ContentLength: length }));
  }

  async open(key: string): Promise<StoredObject | null> {
    const { client, sdk } = await this.connect();
    try {
      const res = await client.send(new sdk.GetObjectCommand({ Bucket: this.opts.bucket, Key: this.prefix + key }));
      if (res.Body === undefined) return null;
      return { stream: res.Body as Readable, size: res.ContentLength ?? null };
    } catch (err) {
      if (err instanceof sdk.S3ServiceException && (err.name === 'NoSuchKey' || err.$metadata.httpStatusCode === 404)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    const { client, sdk } = await this.connect();
    await client.send(new sdk.DeleteObjectCommand({ Bucket: this.opts.bucket, Key: this.prefix + key }));
  }

  publicUrl(key: string): string | null {
    if (this.opts.bucketType === 'private') return null;
    const base = this.opts.publicUrl
      ? this.opts.publicUrl.replace(/\/+$/u, '')
      : this.opts.endpoint
        ? `${this.opts.endpoint.replace(/\/+$/u, '')}/${this.opts.bucket}`
        : `https://${this.opts.bucket}.s3.${this.opts.region || 'us-east-1'}.amazonaws.com`;
    return `${base}/${this.prefix}${key}`;
  }

  /** Closes the SDK's connections. */
  destroy(): void {
    void this.sdk?.then(({ client }) => client.destroy());
  }
}
