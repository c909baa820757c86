/**
 * Sprig functions, with Sprig's argument orders. Expected values follow Sprig v3's documentation.
 */
import type { Case } from './types.js';

export const strings: Case[] = [
  { tpl: '{{ upper "héllo" }} {{ lower "HeLLo" }}', want: 'HÉLLO hello' },
  { tpl: '{{ title "hello wide world" }}', want: 'Hello Wide World' },
  { tpl: `{{ title "o'neil mcdonald-smith" }}`, want: "O'Neil Mcdonald-Smith" },
  { tpl: '{{ untitle "Hello World" }}', want: 'hello world' },
  { tpl: '[{{ trim "  a b \\n" }}]', want: '[a b]' },
  { tpl: '{{ trimAll "$" "$$5.00$" }}', want: '5.00' },
  { tpl: '{{ trimPrefix "Mr. " "Mr. Smith" }}|{{ trimPrefix "x" "abc" }}', want: 'Smith|abc' },
  { tpl: '{{ trimSuffix ".com" "example.com" }}', want: 'example' },
  { tpl: '{{ replace "a" "o" "banana" }}', want: 'bonono' },
  { tpl: '{{ "hello world" | replace " " "-" }}', want: 'hello-world' },
  { tpl: '{{ replace "" "-" "ab" }}', want: '-a-b-' },
  { tpl: '{{ contains "cat" "catch" }} {{ contains "dog" "catch" }}', want: 'true false' },
  { tpl: '{{ hasPrefix "ca" "cat" }} {{ hasSuffix "at" "cat" }} {{ hasSuffix "x" "cat" }}', want: 'true true false' },
  { tpl: '{{ repeat 3 "ab" }}', want: 'ababab' },
  { tpl: '{{ repeat -1 "ab" }}', err: { type: 'exec', msg: 'error calling repeat: strings: negative Repeat count' } },
  { tpl: '{{ substr 0 5 "hello world" }}|{{ substr 6 -1 "hello world" }}|{{ substr -1 2 "hello" }}', want: 'hello|world|he' },
  { tpl: '{{ substr 1 3 "héllo" }}', want: 'él' },
  { tpl: '{{ substr 4 2 "hello" }}', err: { type: 'exec', msg: 'error calling substr: slice bounds out of range' } },
  { tpl: '{{ trunc 5 "hello world" }}|{{ trunc -5 "hello world" }}|{{ trunc 50 "hi" }}', want: 'hello|world|hi' },
  { tpl: '{{ abbrev 5 "hello world" }}|{{ abbrev 20 "hello world" }}|{{ abbrev 3 "hello" }}', want: 'he...|hello world|hello' },
  { tpl: '{{ nospace "h e l\\tl\\no" }}', want: 'hello' },
  { tpl: '{{ quote "a" 1 .missing "b\\"c" }}', data: {}, want: '"a" "1" "b\\"c"' },
  { tpl: '{{ squote "a" 1 }}', want: "'a' '1'" },
  { tpl: '{{ cat "hello" 1 .missing "world" }}', data: {}, want: 'hello 1 world' },
  { tpl: '{{ indent 2 "a\\nb" }}', want: '  a\n  b' },
  { tpl: '{{ nindent 2 "a" }}', want: '\n  a' },
  { tpl: '{{ wrap 10 "The quick brown fox jumps" }}', want: 'The quick\nbrown fox\njumps' },
  { tpl: '{{ wrap 3 "abcdefgh ij" }}', want: 'abcdefgh\nij' },
  { tpl: '{{ wrapWith 5 "<br>" "aaa bbb ccc" }}', want: 'aaa<br>bbb<br>ccc' },
  { tpl: '{{ plural "one" "many" 1 }} {{ plural "one" "many" 2 }}', want: 'one many' },
  { tpl: '{{ toString 5 }} {{ toString .missing }}', data: {}, want: '5 <nil>' },
  { name: 'string functions accept numbers', tpl: '{{ upper .n }}', data: { n: 12 }, want: '12' },
  { name: 'string functions treat missing values as empty', tpl: '[{{ .Subscriber.Attribs.city | upper }}]', data: { Subscriber: { Attribs: {} } }, want: '[]' },
];

export const defaults: Case[] = [
  { tpl: '{{ default "friend" .name }}', data: { name: '' }, want: 'friend' },
  { tpl: '{{ default "friend" .name }}', data: { name: 'Ann' }, want: 'Ann' },
  { tpl: '{{ .Subscriber.Attribs.nick | default "there" }}', data: { Subscriber: { Attribs: {} } }, want: 'there' },
  { tpl: '{{ default 10 0 }} {{ default 10 5 }} {{ default "x" false }}', want: '10 5 x' },
  { tpl: '{{ default "d" }}', want: 'd' },
  { tpl: '{{ empty "" }} {{ empty 0 }} {{ empty .l }} {{ empty .m }} {{ empty "a" }} {{ empty .t }}', data: { l: [], m: {}, t: new Date(0) }, want: 'true true true true false false' },
  { tpl: '{{ coalesce .a .b "c" }}', data: { a: '', b: 0 }, want: 'c' },
  { tpl: '{{ coalesce .a .b }}', data: { a: 0, b: 'B' }, want: 'B' },
  { tpl: '{{ print (coalesce 0 "") }}', want: '<nil>' },
  { tpl: '{{ ternary "yes" "no" true }} {{ ternary "yes" "no" false }}', want: 'yes no' },
  { tpl: '{{ .vip | ternary "VIP" "member" }}', data: { vip: true }, want: 'VIP' },
  { tpl: '{{ fail "stop here" }}', err: { type: 'exec', msg: 'error calling fail: stop here' } },
];

export const lists: Case[] = [
  { tpl: '{{ list 1 "a" true }}', want: '[1 a true]' },
  { tpl: '{{ $l := list 3 1 2 }}{{ first $l }} {{ last $l }} {{ rest $l }} {{ initial $l }}', want: '3 2 [1 2] [3 1]' },
  { tpl: '[{{ first (list) }}]', want: '[]' },
  { tpl: '{{ first "abc" }}', err: { type: 'exec', msg: 'Cannot find first on type string' } },
  { tpl: '{{ join ", " (list "a" "b" 3) }}', want: 'a, b, 3' },
  { tpl: '{{ join "-" .tags }}', data: { tags: ['x', null, 'y'] }, want: 'x-y' },
  { tpl: '{{ join "," "solo" }}', want: 'solo' },
  { tpl: '{{ $s := split "$" "foo$bar$baz" }}{{ $s._0 }} {{ $s._2 }}', want: 'foo baz' },
  { tpl: '{{ split "," "a,b" }}', want: 'map[_0:a _1:b]' },
  { tpl: '{{ splitList "," "a,b,c" }}', want: '[a b c]' },
  { tpl: '{{ range splitList "," "x,y" }}<{{ . }}>{{ end }}', want: '<x><y>' },
  { tpl: '{{ splitList "" "abc" }}', want: '[a b c]' },
  { tpl: '{{ uniq (list 1 2 1 "a" "a" 2) }}', want: '[1 2 a]' },
  { tpl: '{{ sortAlpha (list "b" "C" "a" 10 9) }}', want: '[10 9 C a b]' },
  { tpl: '{{ reverse (list 1 2 3) }}', want: '[3 2 1]' },
  { tpl: '{{ append (list 1) 2 }} {{ prepend (list 1) 0 }} {{ concat (list 1) (list 2 3) }}', want: '[1 2] [0 1] [1 2 3]' },
  { tpl: '{{ has 2 (list 1 2) }} {{ has "x" (list 1 2) }}', want: 'true false' },
  { tpl: '{{ without (list 1 2 3 2) 2 }} {{ compact (list 0 "" "a" nil 1) }}', want: '[1 3] [a 1]' },
  { tpl: '{{ until 4 }} {{ untilStep 0 10 3 }} {{ until 0 }}', want: '[0 1 2 3] [0 3 6 9] []' },
  { tpl: '{{ $d := dict "name" "Ann" "age" 30 }}{{ $d.name }} {{ get $d "age" }} [{{ get $d "nope" }}]', want: 'Ann 30 []' },
  { tpl: '{{ dict "b" 2 "a" 1 }}', want: 'map[a:1 b:2]' },
  { tpl: '{{ dict "k" }}', want: 'map[k:]' },
  { tpl: '{{ $d := dict }}{{ $_ := set $d "x" 1 }}{{ $d.x }} {{ hasKey $d "x" }} {{ hasKey $d "y" }}', want: '1 true false' },
  { tpl: '{{ $d := dict "a" 1 "b" 2 }}{{ $_ := unset $d "a" }}{{ $d }}', want: 'map[b:2]' },
  { tpl: '{{ keys (dict "b" 1 "a" 2) }} {{ values (dict "b" 1 "a" 2) }}', want: '[a b] [2 1]' },
  { tpl: '{{ keys .m | sortAlpha | join "," }}', data: { m: { z: 1, y: 2 } }, want: 'y,z' },
  { tpl: '{{ pick (dict "a" 1 "b" 2 "c" 3) "a" "c" }} {{ omit (dict "a" 1 "b" 2) "a" }}', want: 'map[a:1 c:3] map[b:2]' },
  { name: '__proto__ is an ordinary dict key', tpl: '{{ $d := dict "__proto__" "x" }}{{ get $d "__proto__" }} {{ len $d }}', want: 'x 1' },
  { tpl: '{{ set "notmap" "k" 1 }}', err: { type: 'exec', msg: 'expected map[string]interface {}; got string' } },
  { tpl: '{{ hasKey .Subscriber.Attribs "city" }}', data: { Subscriber: { Attribs: { city: 'X' } } }, want: 'true' },
];

export const numbers: Case[] = [
  { tpl: '{{ add 1 2 3 }} {{ add1 9 }} {{ sub 10 3 }} {{ mul 2 3 4 }}', want: '6 10 7 24' },
  { name: 'integer math truncates like int64', tpl: '{{ add 1.5 1 }} {{ div 7 2 }} {{ mod 7 3 }} {{ div -7 2 }}', want: '2 3 1 -3' },
  { tpl: '{{ add "2" "3" }}', want: '5' },
  { tpl: '{{ div 1 0 }}', err: { type: 'exec', msg: 'error calling div: runtime error: integer divide by zero' } },
  { tpl: '{{ mod 1 0 }}', err: { type: 'exec', msg: 'integer divide by zero' } },
  { tpl: '{{ max 1 5 3 }} {{ min 4 2 8 }} {{ max 7 }}', want: '5 2 7' },
  { tpl: '{{ round 123.5555 3 }} {{ round 2.5 0 }} {{ round 2.4 0 }} {{ round 1.25 1 0.6 }}', want: '123.556 3 2 1.2' },
  { tpl: '{{ floor 1.9 }} {{ ceil 1.1 }} {{ floor -1.5 }}', want: '1 2 -2' },
  { tpl: '{{ int "42" }} {{ int 3.9 }} {{ int "abc" }} {{ int "0x1A" }} {{ int "3.0" }} {{ int true }}', want: '42 3 0 26 3 1' },
  { tpl: '{{ float64 "1.5" }} {{ float64 "x" }} {{ float64 2 }}', want: '1.5 0 2' },
  { tpl: '{{ int64 "-12" }} {{ atoi "12" }} {{ atoi "1.5" }}', want: '-12 12 0' },
  { tpl: '{{ addf 1.5 2 }} {{ subf 5 1.5 }} {{ mulf 1.5 2 }} {{ divf 1 4 }} {{ maxf 1 2.5 }} {{ minf 1 2.5 }}', want: '3.5 3.5 3 0.25 2.5 1' },
  { tpl: '{{ divf 1 0 }}', err: { type: 'exec', msg: 'error calling divf: decimal division by 0' } },
  { tpl: '{{ .Tx.Data.qty | mul 2 }}', data: { Tx: { Data: { qty: 21 } } }, want: '42' },
];

function cyclic(): unknown {
  const o: Record<string, unknown> = {};
  o.self = o;
  return o;
}

const t0 = new Date(Date.UTC(2024, 2, 5, 14, 7, 9, 250));

export const dates: Case[] = [
  { tpl: '{{ now | date "2006-01-02" }}', want: '2024-03-05' },
  { tpl: '{{ date "Mon Jan 2 15:04:05 MST 2006" .t }}', data: { t: t0 }, want: 'Tue Mar 5 14:07:09 UTC 2024' },
  { tpl: '{{ date "January 02, 2006 03:04 PM" .t }}', data: { t: t0 }, want: 'March 05, 2024 02:07 PM' },
  { tpl: '{{ date "Monday _2 Jan 06 3pm" .t }}', data: { t: t0 }, want: 'Tuesday  5 Mar 24 2pm' },
  { tpl: '{{ date "2006-01-02T15:04:05.000Z07:00" .t }}', data: { t: t0 }, want: '2024-03-05T14:07:09.250Z' },
  { tpl: '{{ date "15:04:05.999 -0700 -07:00 Z0700" .t }}', data: { t: t0 }, want: '14:07:09.25 +0000 +00:00 Z' },
  { tpl: '{{ date "002 __2 .000000" .t }}', data: { t: t0 }, want: '065  65 .250000' },
  { tpl: '{{ date "Janet" .t }}', data: { t: t0 }, want: 'Janet' },
  { tpl: '{{ date "2006-01-02" 0 }}', want: '1970-01-01' },
  { name: 'date parses ISO strings (Sprig would use now)', tpl: '{{ date "02/01/2006" "2023-12-25T10:00:00Z" }}', want: '25/12/2023' },
  { tpl: '{{ htmlDate .t }}', data: { t: t0 }, want: '2024-03-05' },
  { tpl: '{{ dateModify "-1h30m" .t | date "15:04" }}', data: { t: t0 }, want: '12:37' },
  { tpl: '{{ dateModify "24h" .t | date "2006-01-02" }}', data: { t: t0 }, want: '2024-03-06' },
  { tpl: '{{ dateModify "bogus" .t | date "15:04" }}', data: { t: t0 }, want: '14:07' },
  { tpl: '{{ dateModify "1h" "str" }}', err: { type: 'exec', msg: 'expected time.Time' } },
  { tpl: '{{ toDate "2006-01-02" "2017-12-31" | date "02/01/2006" }}', want: '31/12/2017' },
  { tpl: '{{ toDate "2006-01-02 15:04 -0700" "2017-12-31 23:30 +0530" | date "2006-01-02 15:04" }}', want: '2017-12-31 18:00' },
  { tpl: '{{ toDate "Jan 2, 2006 3:04 PM" "Feb 3, 2021 4:05 PM" | date "2006-01-02 15:04" }}', want: '2021-02-03 16:05' },
  { tpl: '{{ toDate "2006-01-02" "2017-02-30" }}', want: '0001-01-01 00:00:00 +0000 UTC' },
  { tpl: '{{ toDate "2006-01-02" "garbage" }}', want: '0001-01-01 00:00:00 +0000 UTC' },
  { tpl: '{{ toDate "2006-01-02T15:04:05Z07:00" "2024-01-02T03:04:05.5Z" }}', want: '2024-01-02 03:04:05.5 +0000 UTC' },
  { tpl: '{{ unixEpoch .t }}', data: { t: new Date(Date.UTC(2024, 0, 1)) }, want: '1704067200' },
  { tpl: '{{ (toDate "2006-01-02" "2000-02-29").Year }}', want: '2000' },
];

export const encoding: Case[] = [
  { tpl: '{{ b64enc "hello é" }}', want: 'aGVsbG8gw6k=' },
  { tpl: '{{ b64dec "aGVsbG8gw6k=" }}', want: 'hello é' },
  { name: 'b64dec returns the error text on bad input, as Sprig does', tpl: '{{ b64dec "a$b" }}', want: 'illegal base64 data at input byte 1' },
  { tpl: '{{ toJson .v }}', data: { v: { b: [1, 'x', null], a: true, h: '<a&b>' } }, want: '{"a":true,"b":[1,"x",null],"h":"\\u003ca\\u0026b\\u003e"}' },
  { tpl: '{{ toRawJson .v }}', data: { v: { h: '<b>' } }, want: '{"h":"<b>"}' },
  { tpl: '{{ toPrettyJson .v }}', data: { v: { a: [1] } }, want: '{\n  "a": [\n    1\n  ]\n}' },
  { tpl: '{{ toJson .t }}', data: { t: new Date(Date.UTC(2024, 0, 2, 3, 4, 5)) }, want: '"2024-01-02T03:04:05Z"' },
  { tpl: '{{ $o := fromJson `{"a":{"b":[1,2]}}` }}{{ index $o.a.b 1 }} {{ $o.a }}', want: '2 map[b:[1 2]]' },
  { tpl: '{{ (fromJson .j).name }}', data: { j: '{"name":"Ann"}' }, want: 'Ann' },
  { tpl: '{{ fromJson "{bad" }}', err: { type: 'exec', msg: 'error calling fromJson: json:' } },
  { name: 'toJson of a cycle is empty', tpl: '[{{ toJson .c }}]', data: { c: cyclic() }, want: '[]' },
];

export const forbidden: Case[] = [
  { tpl: '{{ env "HOME" }}', err: { type: 'syntax', msg: 'function "env" not defined', line: 1, column: 4 } },
  { tpl: '{{ expandenv "$HOME" }}', err: { type: 'syntax', msg: 'function "expandenv" not defined' } },
  { tpl: '{{ getHostByName "example.com" }}', err: { type: 'syntax', msg: 'function "getHostByName" not defined' } },
  { tpl: 'ok\n{{ if true }}{{ readFile "/etc/passwd" }}{{ end }}', err: { type: 'syntax', msg: 'template: content:2:17: function "readFile" not defined', line: 2, column: 17 } },
];
