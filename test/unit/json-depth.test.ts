/**
 * The depth check of JSON request bodies (issue 14 finding 9): one pass over the text, naming the
 * top-level field whose value nests more than MAX_JSON_DEPTH levels.
 */
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, tooDeep } from '../../src/http/json-body.js';

const nested = (levels: number, inner = '1') => '{"a":'.repeat(levels - 1) + `{"a":${inner}}` + '}'.repeat(levels - 1);
const arrays = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

describe('tooDeep', () => {
  it('measures each field of a body on its own, the outer object not counting', () => {
    expect(tooDeep(`{"attribs":${nested(MAX_JSON_DEPTH)}}`)).toBeNull();
    expect(tooDeep(`{"attribs":${nested(MAX_JSON_DEPTH + 1)}}`)).toBe('attribs');
    expect(tooDeep(`{"name":"x","attribs":${arrays(MAX_JSON_DEPTH + 1)}}`)).toBe('attribs');
    expect(tooDeep(`{"a":${nested(50)},"data":${nested(5000)}}`)).toBe('data');
  });

  it('names the outer value `body` when it is not an object, and the value itself for a cell', () => {
    expect(tooDeep(arrays(MAX_JSON_DEPTH + 2))).toBe('body');
    expect(tooDeep(arrays(MAX_JSON_DEPTH + 1))).toBeNull();
    expect(tooDeep(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH, 0)).toBeNull();
    expect(tooDeep(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH, 0)).toBe('');
  });

  it('skips brackets, quotes and colons inside strings, and decodes escaped keys', () => {
    const text = `{"s":"${'[{'.repeat(500)}\\"]:","k\\u0065y":${nested(MAX_JSON_DEPTH + 1, '"}]\\\\"')}}`;
    expect(tooDeep(text)).toBe('key');
    expect(tooDeep(`{"s":"${'['.repeat(5000)}"}`)).toBeNull();
  });

  it('scans a 1 MiB body of brackets in milliseconds, not the half second JSON.parse takes', () => {
    const text = arrays(512 * 1024);
    const started = performance.now();
    expect(tooDeep(text)).toBe('body');
    expect(performance.now() - started).toBeLessThan(200);
  });
});
