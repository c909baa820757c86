/**
 * Issue 14 finding 4: values sharing structure. `{{ $a = list $a $a }}` forty times builds 2^40
 * leaves in 40 steps; every function or formatter that walks a value must charge its walk to the
 * step budget as it goes, so the render fails with the usual limit error in milliseconds (it used
 * to run 25–44 s on the event loop). Each walker is tried with such a value, as a list and as a
 * map, and must fail with `exceeded maximum of N steps` well within 2 s on a loaded machine.
 */
import { describe, expect, it } from 'vitest';
import { compile, type ExecLimits, TemplateExecError } from '../../../src/templating/index.js';
import { chargeWalk } from '../../../src/templating/funcs/registry.js';
import { formatValue } from '../../../src/templating/go-format.js';

/** $a and $b: equal lists of 2^40 leaves built separately; $d: a map of 2^40 leaves. */
const BUILD =
  '{{ $a := list 1 }}{{ $b := list 1 }}{{ $d := dict "k" "v" }}' +
  '{{ range 40 }}{{ $a = list $a $a }}{{ $b = list $b $b }}{{ $d = dict "x" $d "y" $d }}{{ end }}';

/** Generous: the walks stop after ~0.1–1 s on two loaded cores; the unbounded ones took 25 s. */
const FAST_MS = 10_000; // the bug took 25–44 s; generous for a loaded CI machine

function expectFastLimit(tail: string, mode: 'text' | 'html', limits?: ExecLimits): void {
  const t = compile([{ name: 'c', source: BUILD + tail }], { mode });
  const started = performance.now();
  let thrown: unknown;
  try {
    t.execute({}, {}, limits);
  } catch (e) {
    thrown = e;
  }
  const elapsed = performance.now() - started;
  expect(thrown, `${tail} must fail`).toBeInstanceOf(TemplateExecError);
  expect((thrown as Error).message).toMatch(/exceeded maximum of \d+ steps/);
  expect(elapsed, `${tail} took ${Math.round(elapsed)} ms`).toBeLessThan(FAST_MS);
}

describe('the exploit as reported, with the default limits', () => {
  it.each([
    '{{ print $a }}', '{{ $a }}', '{{ toJson $a }}', '{{ eq $a $b }}', '{{ join "," $a }}',
  ])('%s fails fast with the step limit', (tail) => expectFastLimit(tail, 'text'));
});

/** Every walker, each with a reduced budget so the file stays quick; an uncharged walk would never end. */
const TEXT_WALKERS = [
  // Go built-ins and fmt verbs
  '{{ println $a }}', '{{ printf "%v" $a }}', '{{ printf "%+v" $d }}', '{{ printf "%d" $a }}',
  '{{ printf "%s" $d }}', '{{ printf "%x" $a }}', '{{ printf "%q" $a }}', '{{ printf "%T %v" 1 $d }}',
  '{{ printf "" $a }}', '{{ printf "%d" "x" $a }}', '{{ printf $a }}', '{{ print 1 $d }}',
  '{{ ne $a $b }}', '{{ eq $d $d }}', '{{ html $a }}', '{{ js $a }}', '{{ urlquery $a }}',
  '{{ $a | print }}', '{{ index $a 0 0 0 }}', '{{ $d.x }}', '{{ $d }}',
  // deep equality
  '{{ has $a (list $b) }}', '{{ without (list $a) $b }}', '{{ uniq (list $a $b) }}',
  // JSON
  '{{ toJson $d }}', '{{ toPrettyJson $d }}', '{{ toRawJson $a }}', '{{ fromJson (toJson $a) }}',
  // Sprig string parameters (str/strval)
  '{{ join "," (list $d) }}', '{{ sortAlpha $a }}', '{{ toString $a }}', '{{ cat $a }}', '{{ quote $a }}',
  '{{ squote $d }}', '{{ upper $a }}', '{{ trim $d }}', '{{ replace "1" "2" $a }}', '{{ contains "x" $a }}',
  '{{ b64enc $a }}', '{{ splitList "," $a }}', '{{ wrap 10 $a }}', '{{ repeat 1 $a }}', '{{ dict $a 1 }}',
  '{{ trunc 3 $a }}', '{{ hasPrefix $a "x" }}', '{{ plural $a "b" 1 }}', '{{ fail $a }}',
  // listmonk functions
  '{{ Safe $a }}', '{{ TrackLink $a }}', '{{ L.T $a }}', '{{ L.Ts "email.unsub" "x" $a }}', '{{ Date $a }}',
];

const HTML_WALKERS = [
  '<p>{{ $a }}</p>', '<a title="{{ $d }}">x</a>', '<a title={{ $a }}>x</a>', '<a href="/x?q={{ $a }}">x</a>',
  '<a href="{{ $a }}">x</a>', '<script>var x = {{ $a }};</script>', '<script>var x = {{ $d }};</script>',
  '<script>var x = "{{ $a }}";</script>', '<style>p { color: {{ $a }} }</style>', '<!-- {{ $a }} -->',
  '<textarea>{{ $d }}</textarea>',
];

describe('every walker charges the step budget as it goes', () => {
  const limits = { maxSteps: 200_000 };
  it.each(TEXT_WALKERS)('text: %s', (tail) => expectFastLimit(tail, 'text', limits));
  it.each(HTML_WALKERS)('html: %s', (tail) => expectFastLimit(tail, 'html', limits));
});

describe('ordinary values are unaffected', () => {
  it('prints, encodes and compares nested values as before', () => {
    const t = compile([{
      name: 'c',
      source: '{{ $a := list 1 (list 2 3) (dict "k" "v") }}{{ $a }} {{ toJson $a }} {{ eq (len $a) 3 }} {{ has (list 2 3) $a }}',
    }], { mode: 'text' });
    expect(t.execute({})).toBe('[1 [2 3] map[k:v]] [1,[2,3],{"k":"v"}] true true');
  });

  it('a walk that fits the budget succeeds, and the same walk fails once the budget is smaller', () => {
    const src = '{{ $a := list 1 }}{{ range 10 }}{{ $a = list $a $a }}{{ end }}{{ len (print $a) }}';
    const t = compile([{ name: 'c', source: src }], { mode: 'text' });
    // 1024 leaves `[1]`, 1023 inner pairs of brackets and 1023 separating spaces.
    expect(t.execute({})).toBe(String(1024 * 3 + 1023 * 3));
    expect(() => t.execute({}, {}, { maxSteps: 500 })).toThrow(/exceeded maximum of 500 steps/);
  });
});

describe('chargeWalk, the helper for functions that walk values', () => {
  it('charges the running execution: a function walking with it fails with the step limit', () => {
    const t = compile([{ name: 'c', source: '{{ walk 10 }}{{ walk 10 }}' }], {
      mode: 'text',
      funcs: { walk: (_ctx, n) => { chargeWalk(Number(n)); return 'ok'; } },
    });
    expect(t.execute({}, {}, { maxSteps: 100 })).toBe('okok');
    expect(() => t.execute({}, {}, { maxSteps: 15 })).toThrow(/exceeded maximum of 15 steps/);
  });

  it('is a no-op outside an execution', () => {
    expect(() => chargeWalk(1e12)).not.toThrow();
    expect(formatValue([1, [2]])).toBe('[1 [2]]');
  });
});
