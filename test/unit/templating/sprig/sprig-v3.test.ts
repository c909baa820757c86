/**
 * Sprig v3 as listmonk registers it (issue 15 item 7): every function of Sprig 3.3's
 * GenericFuncMap except env/expandenv/getHostByName (as listmonk) and the few Mailroom leaves out
 * on purpose (docs/differences-from-listmonk.md), with Sprig's semantics, and every walking
 * function bounded by the step budget (issue 14 finding 4).
 */
import { describe, expect, it } from 'vitest';
import { compile, TemplateExecError, TemplateSyntaxError } from '../../../../src/templating/index.js';
import { BUILTIN_FUNCS } from '../../../../src/templating/funcs/index.js';
import { caseName, runCase } from '../run-case.js';
import * as cases from './sprig-v3.cases.js';

/** Sprig 3.3.0's genericMap keys (functions.go), 211 names. */
const SPRIG_V3 = `hello ago date date_in_zone date_modify dateInZone dateModify duration durationRound htmlDate
htmlDateInZone must_date_modify mustDateModify mustToDate now toDate unixEpoch abbrev abbrevboth trunc trim upper lower
title untitle substr repeat trimall trimAll trimSuffix trimPrefix nospace initials randAlphaNum randAlpha randAscii
randNumeric swapcase shuffle snakecase camelcase kebabcase wrap wrapWith contains hasPrefix hasSuffix quote squote cat
indent nindent replace plural sha1sum sha256sum sha512sum adler32sum toString atoi int64 int float64 seq toDecimal split
splitList splitn toStrings until untilStep add1 add sub div mod mul randInt add1f addf subf divf mulf biggest max min
maxf minf ceil floor round join sortAlpha default empty coalesce all any compact mustCompact fromJson toJson
toPrettyJson toRawJson mustFromJson mustToJson mustToPrettyJson mustToRawJson ternary deepCopy mustDeepCopy typeOf
typeIs typeIsLike kindOf kindIs deepEqual env expandenv getHostByName base dir clean ext isAbs osBase osClean osDir
osExt osIsAbs b64enc b64dec b32enc b32dec tuple list dict get set unset hasKey pluck keys pick omit merge
mergeOverwrite mustMerge mustMergeOverwrite values append push mustAppend mustPush prepend mustPrepend first mustFirst
rest mustRest last mustLast initial mustInitial reverse mustReverse uniq mustUniq without mustWithout has mustHas slice
mustSlice concat dig chunk mustChunk bcrypt htpasswd genPrivateKey derivePassword buildCustomCert genCA genCAWithKey
genSelfSignedCert genSelfSignedCertWithKey genSignedCert genSignedCertWithKey encryptAES decryptAES randBytes uuidv4
semver semverCompare fail regexMatch mustRegexMatch regexFindAll mustRegexFindAll regexFind mustRegexFind
regexReplaceAll mustRegexReplaceAll regexReplaceAllLiteral mustRegexReplaceAllLiteral regexSplit mustRegexSplit
regexQuoteMeta urlParse urlJoin`.split(/\s+/);

/** Removed by listmonk itself (CVE-2025-49136). */
const LISTMONK_REMOVES = ['env', 'expandenv', 'getHostByName'];
/** Left out by Mailroom, each with its reason in docs/differences-from-listmonk.md. */
const MAILROOM_LEAVES_OUT = ['bcrypt', 'htpasswd', 'derivePassword', 'genPrivateKey', 'buildCustomCert', 'genCA',
  'genCAWithKey', 'genSelfSignedCert', 'genSelfSignedCertWithKey', 'genSignedCert', 'genSignedCertWithKey'];

describe('Sprig v3 function map', () => {
  it('has the 211 names of Sprig 3.3 (listmonk registers 208 of them)', () => {
    expect(new Set(SPRIG_V3).size).toBe(211);
  });

  it('registers every function listmonk registers except the documented exclusions', () => {
    const expected = SPRIG_V3.filter((n) => !LISTMONK_REMOVES.includes(n) && !MAILROOM_LEAVES_OUT.includes(n));
    expect(expected.length).toBe(197);
    const missing = expected.filter((n) => typeof BUILTIN_FUNCS[n]?.fn !== 'function');
    expect(missing).toEqual([]);
  });

  it.each([...LISTMONK_REMOVES, ...MAILROOM_LEAVES_OUT])('%s is not defined (a compile error, like Go for an unknown function)', (name) => {
    expect(() => compile([{ name: 'content', source: `{{ ${name} "x" }}` }], { mode: 'text' })).toThrow(TemplateSyntaxError);
    expect(() => compile([{ name: 'content', source: `{{ ${name} "x" }}` }], { mode: 'text' })).toThrow(`function "${name}" not defined`);
  });

  it('documents every left-out function in docs/differences-from-listmonk.md', async () => {
    const { readFile } = await import('node:fs/promises');
    const doc = await readFile(new URL('../../../../docs/differences-from-listmonk.md', import.meta.url), 'utf8');
    for (const name of MAILROOM_LEAVES_OUT) expect(doc, name).toContain(`\`${name}\``);
  });
});

for (const [group, list] of Object.entries(cases)) {
  describe(`sprig v3: ${group}`, () => {
    it.each(list.map((c) => [caseName(c), c] as const))('%s', (_n, c) => runCase(c));
  });
}

/** Renders `source` with a small step budget and returns the error and the time it took. */
function bounded(source: string, maxSteps = 100_000): { error: unknown; ms: number } {
  const t = compile([{ name: 'content', source }], { mode: 'text' });
  const start = performance.now();
  let error: unknown;
  try {
    t.execute({}, {}, { maxSteps });
  } catch (e) {
    error = e;
  }
  return { error, ms: performance.now() - start };
}

describe('value walking is charged to the step budget (issue 14 finding 4)', () => {
  const doubling = '{{ $a := list 1 }}{{ range 40 }}{{ $a = list $a $a }}{{ end }}';
  it.each(['toJson', 'toPrettyJson', 'toRawJson', 'mustToJson', 'mustToPrettyJson', 'mustToRawJson', 'deepCopy', 'mustDeepCopy'])(
    '%s of 2^40 shared leaves stops at the limit in milliseconds',
    (fn) => {
      const { error, ms } = bounded(`${doubling}{{ ${fn} $a }}`);
      expect(error).toBeInstanceOf(TemplateExecError);
      expect((error as Error).message).toContain('exceeded maximum of 100000 steps');
      expect(ms).toBeLessThan(10_000); // the unbounded walk took 25–44 s
    },
  );

  it('deepEqual of two 2^40-leaf values stops at the limit', () => {
    const { error, ms } = bounded(`${doubling}{{ deepEqual $a $a }}`);
    expect((error as Error).message).toContain('exceeded maximum of 100000 steps');
    expect(ms).toBeLessThan(10_000); // the unbounded walk took 25–44 s
  });

  it('merge, deepCopy and the JSON encoders of a cyclic dict stop instead of recursing forever', () => {
    const cyclic = '{{ $d := dict "a" 1 }}{{ $_ := set $d "self" $d }}';
    const expected: Record<string, RegExp> = {
      'deepCopy $d': /deepCopy: the value contains itself/,
      'merge $d $d': /error calling merge: maps nested more than 1000 deep/,
      'mergeOverwrite $d $d': /maps nested more than 1000 deep/,
      'mustToJson $d': /json: unsupported value: encountered a cycle via map\[string\]interface \{\}/,
    };
    for (const [call, msg] of Object.entries(expected)) {
      const { error, ms } = bounded(`${cyclic}{{ ${call} }}`);
      expect(error, call).toBeInstanceOf(TemplateExecError);
      expect((error as Error).message, call).toMatch(msg);
      expect(ms).toBeLessThan(10_000); // the unbounded walk took 25–44 s
    }
    expect(compile([{ name: 'c', source: `${cyclic}[{{ toJson $d }}]` }], { mode: 'text' }).execute({})).toBe('[]');
    expect(compile([{ name: 'c', source: `${cyclic}{{ deepEqual $d $d }}` }], { mode: 'text' }).execute({})).toBe('true');
  });

  it('compiling ever-new patterns in a loop is charged and stops at the limit', () => {
    const { error, ms } = bounded('{{ range $i := until 100000 }}{{ regexMatch (printf "a%dz" $i) "x" }}{{ end }}');
    expect((error as Error).message).toContain('exceeded maximum of 100000 steps');
    expect(ms).toBeLessThan(10_000); // the unbounded walk took 25–44 s
  });

  it('regexReplaceAll cannot build a string past the output limit', () => {
    const t = compile([{ name: 'content', source: '{{ regexReplaceAll "" (repeat 1000 "a") (repeat 100 "b") }}' }], { mode: 'text' });
    expect(() => t.execute({}, {}, { maxOutputBytes: 10_000 })).toThrow(/limit/);
  });
});
