/**
 * Cases for the Sprig v3 functions listmonk registers beyond the first subset (issue 15 item 7).
 * Expected values were worked out from Sprig 3.3's Go source and the libraries it calls (xstrings
 * 1.5, goutils 1.1, mergo 1.0, shopspring/decimal 1.4, Go's regexp, net/url, path, time).
 */
import type { Case } from '../cases/types.js';

export const regex: Case[] = [
  { tpl: '{{ regexMatch "^[a-z]+\\\\[[0-9]+\\\\]$" "adam[23]" }} {{ regexMatch "^x" "ax" }}', want: 'true false' },
  { tpl: '{{ regexMatch "(" "x" }}', want: 'false' },
  { tpl: '{{ mustRegexMatch "(" "x" }}', err: { type: 'exec', msg: 'error calling mustRegexMatch: error parsing regexp: missing closing ): `(`' } },
  { tpl: '{{ regexFindAll "[2,4,6,8]" "123456789" -1 }} {{ regexFindAll "[2,4,6,8]" "123456789" 2 }} {{ regexFindAll "x" "abc" -1 }}', want: '[2 4 6 8] [2 4] []' },
  { tpl: '{{ regexFindAll "a*" "baaab" -1 | len }}', want: '3' },
  { tpl: '{{ regexFind "[a-zA-Z][1-9]" "abcd1234" }}|{{ regexFind "z" "abc" }}', want: 'd1|' },
  { tpl: '{{ regexFind "(" "x" }}', err: { type: 'exec', msg: 'error calling regexFind: regexp: Compile("("): error parsing regexp: missing closing ): `(`' } },
  { tpl: '{{ mustRegexFind "[z-a]" "x" }}', err: { type: 'exec', msg: 'error parsing regexp: invalid character class range: `z-a`' } },
  { tpl: '{{ regexReplaceAll "a(x*)b" "-ab-axxb-" "${1}W" }}', want: '-W-xxW-' },
  { name: '$1W names group "1W", which does not exist (Go)', tpl: '{{ regexReplaceAll "a(x*)b" "-ab-axxb-" "$1W" }}', want: '---' },
  { tpl: '{{ regexReplaceAll "(?P<first>\\\\w+) (?P<last>\\\\w+)" "Ada Lovelace" "$last, $first" }}', want: 'Lovelace, Ada' },
  { tpl: '{{ regexReplaceAll "a" "banana" "$$" }}|{{ regexReplaceAll "a" "ba" "${" }}', want: 'b$n$n$|b${' },
  { tpl: '{{ regexReplaceAll "x*" "abc" "-" }}', want: '-a-b-c-' },
  { tpl: '{{ regexReplaceAllLiteral "a(x*)b" "-ab-axxb-" "${1}" }}', want: '-${1}-${1}-' },
  { tpl: '{{ mustRegexReplaceAll "a(" "x" "y" }}', err: { type: 'exec', msg: 'missing closing )' } },
  { tpl: '{{ regexSplit "z+" "pizza" -1 }} {{ regexSplit "z+" "pizza" 1 }} {{ regexSplit "z+" "pizza" 0 }} {{ regexSplit "" "abc" -1 }} {{ regexSplit "x" "" -1 | len }}', want: '[pi a] [pizza] [] [a b c] 1' },
  { tpl: '{{ regexQuoteMeta "1.2.3 (a+b)*[c]{d}^$|?\\\\" }}', want: '1\\.2\\.3 \\(a\\+b\\)\\*\\[c\\]\\{d\\}\\^\\$\\|\\?\\\\' },
  { tpl: '{{ regexFind "(?i)HELLO" "say hello" }} {{ regexFind "\\\\d+" "ab 123 cd" }} {{ regexFind "é+" "caféé!" }}', want: 'hello 123 éé' },
  { name: 'characters, not UTF-16 units', tpl: '{{ regexMatch "^.$" "😀" }} {{ regexFindAll "." "a😀b" -1 }} {{ regexReplaceAll "" "😀" "-" }} {{ regexSplit "" "a😀" -1 }} {{ regexFind "\\\\p{Greek}+" "abc αβγ" }}', want: 'true [a 😀 b] -😀- [a 😀] αβγ' },
  { name: 'RE2 has no backreferences', tpl: '{{ regexMatch "(a)\\\\1" "aa" }}', want: 'false' },
  { name: 'linear time: a pathological backtracking pattern is instant', tpl: '{{ regexMatch "^(a+)+$" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!" }}', want: 'false' },
];

export const text: Case[] = [
  { tpl: '{{ snakecase "FirstName" }} {{ snakecase "HTTPServer" }} {{ snakecase "NoHTTPS" }} {{ snakecase "GO_PATH" }} {{ snakecase "GO PATH" }} {{ snakecase "GO-PATH" }}', want: 'first_name http_server no_https go_path go_path go_path' },
  { tpl: '{{ snakecase "http2xx" }} {{ snakecase "HTTP20xOK" }} {{ snakecase "Duration2m3s" }} {{ snakecase "Bld4Floor3rd" }} {{ snakecase "" }}', want: 'http_2xx http_20x_ok duration_2m3s bld4_floor_3rd ' },
  { tpl: '{{ kebabcase "FirstName" }} {{ kebabcase "HTTPServer" }} {{ kebabcase "a b" }}', want: 'first-name http-server a-b' },
  { tpl: '{{ camelcase "some_words" }} {{ camelcase "http_server" }} {{ camelcase "_complex__case_" }} {{ camelcase "some words" }} {{ camelcase "GOLANG_IS_GREAT" }}', want: 'SomeWords HttpServer _Complex_Case_ SomeWords GolangIsGreat' },
  { tpl: '{{ camelcase "x" }}|{{ camelcase "" }}|{{ camelcase "élan vital" }}', want: 'X||ÉlanVital' },
  { tpl: '{{ swapcase "This Is A.Test" }}', want: 'tHIS iS a.tEST' },
  { tpl: '{{ initials "First Try" }} {{ initials "  élan  vital " }}', want: 'FT év' },
  { tpl: '{{ abbrevboth 5 10 "1234 5678 9123" }}|{{ abbrevboth 0 10 "1234 5678 9123" }}|{{ abbrevboth 5 6 "1234 5678 9123" }}', want: '...5678...|1234 56...|1234 5678 9123' },
  { tpl: '{{ shuffle "aabbc" | len }} {{ shuffle "" }}', want: '5 ' },
  { tpl: '{{ randAlphaNum 12 | regexMatch "^[A-Za-z0-9]{12}$" }} {{ randAlpha 8 | regexMatch "^[A-Za-z]{8}$" }} {{ randNumeric 6 | regexMatch "^[0-9]{6}$" }} {{ randAscii 9 | len }}', want: 'true true true 9' },
  { tpl: '[{{ randAlphaNum 0 }}{{ randAlphaNum -3 }}]', want: '[]' },
  { tpl: '{{ randAlphaNum 1000000 }}', limits: { maxOutputBytes: 1000 }, err: { type: 'exec', msg: 'exceeds the 1000-byte limit' } },
  { tpl: '{{ trimall "$" "$$5.00$" }}', want: '5.00' },
  { tpl: '{{ splitn "$" 2 "foo$bar$baz" }} {{ splitn "$" -1 "a$b$c" }} {{ splitn "$" 0 "a$b" }} {{ (splitn "" 2 "abc")._1 }}', want: 'map[_0:foo _1:bar$baz] map[_0:a _1:b _2:c] map[] bc' },
  { tpl: '{{ toStrings (list 1 2 nil "x" 1.5) }} {{ toStrings nil | len }} {{ toStrings 7 }}', want: '[1 2 x 1.5] 0 [7]' },
  { tpl: '{{ b32enc "Hello" }} {{ b32enc "" }}|{{ b32dec "JBSWY3DP" }} {{ b32enc "abcdef" | b32dec }}', want: 'JBSWY3DP |Hello abcdef' },
  { tpl: '{{ b32dec "JBSWY3D" }}|{{ b32dec "!!!!!!!!" }}', want: 'illegal base32 data at input byte 0|illegal base32 data at input byte 0' },
  { tpl: '{{ hello }}', want: 'Hello!' },
  { name: 'wrapWith cuts long words (goutils.WrapCustom with wrapLongWords), wrap does not', tpl: '{{ wrapWith 5 "\\t" "Hello World" }}|{{ wrapWith 3 "|" "abcdefg hi" }}|{{ wrap 3 "abcdefg hi" }}|{{ wrapWith 3 "" "abcd" }}', want: 'Hello\tWorld|abc|def|g|hi|abcdefg\nhi|abc\nd' },
];

export const collections: Case[] = [
  { tpl: '{{ tuple 1 "a" }} {{ push (list 1) 2 }} {{ mustPush (list) 1 }} {{ mustAppend (list 1) 2 }} {{ mustPrepend (list 2) 1 }}', want: '[1 a] [1 2] [1] [1 2] [1 2]' },
  { tpl: '{{ push 1 2 }}', err: { type: 'exec', msg: 'error calling push: Cannot push on type int' } },
  { tpl: '{{ prepend "x" 2 }}', err: { type: 'exec', msg: 'error calling prepend: Cannot prepend on type string' } },
  { tpl: '{{ mustFirst (list 1 2) }} {{ mustLast (list 1 2) }} {{ mustRest (list 1 2 3) }} {{ mustInitial (list 1 2 3) }} {{ mustReverse (list 1 2) }} {{ mustUniq (list 1 1 2) }} {{ mustWithout (list 1 2 3) 2 }} {{ mustHas 2 (list 1 2) }} {{ mustCompact (list 0 "" 1 false "a") }}', want: '1 2 [2 3] [1 2] [2 1] [1 2] [1 3] true [1 a]' },
  { tpl: '{{ first (dict) }}', err: { type: 'exec', msg: 'error calling first: Cannot find first on type map' } },
  { tpl: '{{ compact 3 }}', err: { type: 'exec', msg: 'error calling compact: Cannot compact on type int' } },
  { tpl: '{{ chunk 2 (list 1 2 3 4 5) }} {{ chunk 3 (list) }} {{ mustChunk 5 (list 1 2) }}', want: '[[1 2] [3 4] [5]] [] [[1 2]]' },
  { tpl: '{{ chunk 0 (list 1) }}', err: { type: 'exec', msg: 'error calling chunk: runtime error: makeslice: len out of range' } },
  { tpl: '{{ chunk 2 "ab" }}', err: { type: 'exec', msg: 'Cannot chunk type string' } },
  { tpl: '{{ slice (list 1 2 3 4) }} {{ slice (list 1 2 3 4) 1 }} {{ slice (list 1 2 3 4) 1 3 }} {{ slice (list 1 2 3) "1" }} [{{ slice (list) }}]', want: '[1 2 3 4] [2 3 4] [2 3] [2 3] []' },
  { tpl: '{{ slice (list 1 2) 1 5 }}', err: { type: 'exec', msg: 'error calling slice: reflect.Value.Slice: slice index out of bounds' } },
  { tpl: '{{ slice (dict) 1 }}', err: { type: 'exec', msg: 'list should be type of slice or array but map' } },
  { name: 'slice keeps Go built-in semantics for strings', tpl: '{{ slice "hello" 1 3 }}', want: 'el' },
  { tpl: '{{ concat (list 1) (list 2 3) nil }} {{ concat }}', want: '[1 2 3] []' },
  { tpl: '{{ concat (list 1) 2 }}', err: { type: 'exec', msg: 'error calling concat: Cannot concat type int as list' } },
  { tpl: '{{ pluck "name" (dict "name" "a") (dict "x" 1) (dict "name" "b") }} {{ pluck "x" }}', want: '[a b] []' },
  { tpl: '{{ pluck "x" "y" }}', err: { type: 'exec', msg: 'expected map[string]interface {}; got string' } },
  {
    name: 'merge: dst values win, empty ones are filled, nested maps merged in place, nil never copied',
    tpl: '{{ $d := dict "a" 1 "b" (dict "c" 2) "e" "" }}{{ $r := merge $d (dict "a" 0 "b" (dict "d" 3) "e" "x" "n" nil "l" (list 1)) (dict "f" 6) }}{{ $r }} {{ $d }}',
    want: 'map[a:1 b:map[c:2 d:3] e:x f:6 l:[1]] map[a:1 b:map[c:2 d:3] e:x f:6 l:[1]]',
  },
  { tpl: '{{ merge (dict "l" (list 1)) (dict "l" (list 2)) }} {{ mustMerge (dict) (dict "a" 1) }} {{ merge .missing (dict "a" 1) }}', data: {}, want: 'map[l:[1]] map[a:1] map[a:1]' },
  {
    name: 'mergeOverwrite: source values win (empty and nil too); nested maps are still merged',
    tpl: '{{ mergeOverwrite (dict "a" 1 "b" (dict "c" 2) "l" (list 9) "s" "x") (dict "a" 0 "b" (dict "d" 3) "x" nil "l" (list 1) "s" "") }}',
    want: 'map[a:0 b:map[c:2 d:3] l:[1] s: x:<nil>]',
  },
  { tpl: '{{ mustMergeOverwrite (dict "a" 1) (dict "a" 2) }}', want: 'map[a:2]' },
  { tpl: '{{ merge (dict) "x" }}', err: { type: 'exec', msg: 'error calling merge: merge: wrong type for value; expected map[string]interface {}; got string' } },
  { tpl: '{{ $a := dict "l" (list 1 (dict "x" 1)) }}{{ $b := deepCopy $a }}{{ $_ := set (index $b.l 1) "x" 2 }}{{ $a }} {{ $b }} {{ deepCopy 5 }} {{ mustDeepCopy "s" }}', want: 'map[l:[1 map[x:1]]] map[l:[1 map[x:2]]] 5 s' },
  { tpl: '{{ dig "a" "b" "def" (dict "a" (dict "b" 1)) }} {{ dig "a" "z" "def" (dict "a" (dict "b" 1)) }} {{ dig "x" "d" (dict) }}', want: '1 def d' },
  { tpl: '{{ dig "a" "b" "c" "def" (dict "a" (dict "b" 1)) }}', err: { type: 'exec', msg: 'error calling dig: interface conversion: interface {} is int, not map[string]interface {}' } },
  { tpl: '{{ dig 1 "d" (dict) }}', err: { type: 'exec', msg: 'interface conversion: interface {} is int, not string' } },
  { tpl: '{{ dig "a" (dict) }}', err: { type: 'exec', msg: 'error calling dig: dig needs at least three arguments' } },
  { tpl: '{{ dig "city" "?" .Attribs }}', data: { Attribs: { city: 'Oslo' } }, want: 'Oslo' },
];

export const data: Case[] = [
  { tpl: '{{ typeOf 1 }} {{ typeOf 1.5 }} {{ typeOf "x" }} {{ typeOf true }} {{ typeOf (list) }} {{ typeOf (dict) }} {{ typeOf nil }} {{ typeOf (now) }}', want: 'int float64 string bool []interface {} map[string]interface {} <nil> time.Time' },
  { tpl: '{{ kindOf 1 }} {{ kindOf 1.5 }} {{ kindOf "x" }} {{ kindOf (list) }} {{ kindOf (dict) }} {{ kindOf nil }} {{ kindOf (now) }}', want: 'int float64 string slice map invalid struct' },
  { tpl: '{{ typeIs "int" 3 }} {{ typeIs "string" 3 }} {{ typeIsLike "string" "x" }} {{ kindIs "slice" (list) }} {{ kindIs "map" 1 }}', want: 'true false true true false' },
  { tpl: '{{ deepEqual (list 1 (dict "a" 2)) (list 1 (dict "a" 2)) }} {{ deepEqual (list 1) (list 2) }} {{ deepEqual nil nil }}', want: 'true false true' },
  { tpl: '{{ all 1 "x" }} {{ all 1 "" }} {{ all }} {{ any 0 "" nil }} {{ any 0 "x" }} {{ any }}', want: 'true false true false true false' },
  { tpl: '{{ toJson (dict "a" "<b>") }} {{ toRawJson (dict "a" "<b>") }} {{ mustToJson (list 1) }} {{ mustToRawJson "&" }}', want: '{"a":"\\u003cb\\u003e"} {"a":"<b>"} [1] "&"' },
  { tpl: '{{ toPrettyJson (dict "a" (list 1)) }}|{{ mustToPrettyJson (dict) }}', want: '{\n  "a": [\n    1\n  ]\n}|{}' },
  { tpl: '[{{ toJson .f }}]', data: { f: Number.NaN }, want: '[]' },
  { tpl: '{{ mustToJson .f }}', data: { f: Number.NaN }, err: { type: 'exec', msg: 'error calling mustToJson: json: unsupported value: NaN' } },
  { tpl: '{{ toRawJson .f }}', data: { f: Number.NaN }, err: { type: 'exec', msg: 'error calling toRawJson: json: unsupported value: NaN' } },
];

export const math: Case[] = [
  { tpl: '{{ addf 0.1 0.2 }} {{ addf }} {{ addf 1 2 3.5 }} {{ add1f 1.1 }} {{ subf 1 0.9 }} {{ subf 5 }} {{ mulf 1.1 3 }} {{ mulf 2 }}', want: '0.3 0 6.5 2.1 0.1 5 3.3 2' },
  { tpl: '{{ divf 1 3 }} {{ divf 2 3 }} {{ divf -2 3 }} {{ divf 1e-20 3 }} {{ divf 10 4 2 }} {{ divf "9" "3" }}', want: '0.3333333333333333 0.6666666666666667 -0.6666666666666667 0 1.25 3' },
  { tpl: '{{ divf 1 0 }}', err: { type: 'exec', msg: 'error calling divf: decimal division by 0' } },
  { tpl: '{{ addf "NaN" 1 }}', err: { type: 'exec', msg: 'error calling addf: Cannot create a Decimal from NaN' } },
  { tpl: '{{ mulf 1e300 1e300 }} {{ addf 1e16 1 }}', want: '+Inf 10000000000000000' },
  { tpl: '{{ seq 5 }}|{{ seq -3 }}|{{ seq 0 }}|{{ seq 1 }}|{{ seq 2 5 }}|{{ seq 5 2 }}|{{ seq 0 2 10 }}|{{ seq 10 -2 0 }}|{{ seq 0 -2 10 }}|{{ seq 1 2 3 4 }}|{{ seq }}', want: '1 2 3 4 5|1 0 -1 -2 -3|1 0|1|2 3 4 5|5 4 3 2|0 2 4 6 8 10|10 8 6 4 2 0|||' },
  { tpl: '{{ seq 1 100000000 }}', err: { type: 'exec', msg: 'exceed the step limit' } },
  { tpl: '{{ toDecimal "0777" }} {{ toDecimal 777 }} {{ toDecimal "8" }} {{ toDecimal "-17" }} {{ toDecimal 1.5 }}', want: '511 511 0 -15 0' },
  { tpl: '{{ biggest 1 5 3 }} {{ randInt 5 6 }} {{ $r := randInt 1 10 }}{{ and (ge $r 1) (lt $r 10) }}', want: '5 5 true' },
  { tpl: '{{ randInt 5 5 }}', err: { type: 'exec', msg: 'error calling randInt: invalid argument to Intn' } },
];

export const dates: Case[] = [
  { tpl: '{{ dateInZone "2006-01-02 15:04:05 MST -07:00" (now) "Europe/Berlin" }}', want: '2024-03-05 15:07:09 CET +01:00' },
  { tpl: '{{ dateInZone "Jan 2 15:04 MST" 1720000000 "America/New_York" }}', want: 'Jul 3 05:46 EDT' },
  { tpl: '{{ date_in_zone "15:04 Z07:00" (now) "Asia/Kolkata" }} {{ dateInZone "15:04 MST" (now) "Mars/Base" }} {{ dateInZone "15:04 MST" (now) "" }} {{ dateInZone "15:04" (now) "europe/berlin" }}', want: '19:37 +05:30 14:07 UTC 14:07 UTC 14:07' },
  { tpl: '{{ htmlDateInZone (now) "Pacific/Auckland" }} {{ htmlDateInZone (now) "UTC" }}', want: '2024-03-06 2024-03-05' },
  { tpl: '{{ duration 95 }} {{ duration "3600" }} {{ duration 0 }} {{ duration "x" }} {{ duration 90061 }} {{ duration -61 }}', want: '1m35s 1h0m0s 0s 0s 25h1m1s -1m1s' },
  { tpl: '{{ durationRound "2h10m5s" }} {{ durationRound "-400h" }} {{ durationRound "1s" }} {{ durationRound "1.5s" }} {{ durationRound "9000h" }} {{ durationRound "800h" }} {{ durationRound "bad" }}', want: '2h 16d 0s 1s 1y 1mo 0s' },
  { tpl: '{{ durationRound (dateModify "-49h" (now)) }}', want: '2d' },
  { tpl: '{{ ago (dateModify "-90m" (now)) }} {{ ago (now) }} {{ ago (dateModify "1500ms" (now)) }}', want: '1h30m0s 0s -2s' },
  { tpl: '{{ mustDateModify "1.5h" (now) | date "15:04" }} {{ date_modify "x" (now) | date "15:04" }} {{ must_date_modify "-1m" (now) | date "15:04" }}', want: '15:37 14:07 14:06' },
  { tpl: '{{ mustDateModify "1x" (now) }}', err: { type: 'exec', msg: 'error calling mustDateModify: time: unknown unit "x" in duration "1x"' } },
  { tpl: '{{ mustDateModify "1" (now) }}', err: { type: 'exec', msg: 'time: missing unit in duration "1"' } },
  { tpl: '{{ mustDateModify "x" (now) }}', err: { type: 'exec', msg: 'time: invalid duration "x"' } },
  { tpl: '{{ mustToDate "2006-01-02" "2024-02-03" | date "Jan 2" }}', want: 'Feb 3' },
  { tpl: '{{ mustToDate "2006-01-02" "2024-02-31" }}', err: { type: 'exec', msg: 'error calling mustToDate: parsing time "2024-02-31" as "2006-01-02"' } },
];

export const urls: Case[] = [
  {
    tpl: '{{ $u := urlParse "https://user:p%40ss@example.com:8080/a%20b/c?x=1&y=2#frag%21" }}{{ $u.scheme }}|{{ $u.host }}|{{ $u.hostname }}|{{ $u.path }}|{{ $u.query }}|{{ $u.fragment }}|{{ $u.userinfo }}|{{ $u.opaque }}',
    want: 'https|example.com:8080|example.com|/a b/c|x=1&y=2|frag!|user:p%40ss|',
  },
  { tpl: '{{ $u := urlParse "mailto:someone@example.com" }}{{ $u.scheme }} {{ $u.opaque }} [{{ $u.host }}]', want: 'mailto someone@example.com []' },
  { tpl: '{{ (urlParse "http://[::1]:80/x").hostname }} {{ (urlParse "/rel/path?q").path }}', want: '::1 /rel/path' },
  { tpl: '{{ urlParse "%zz" }}', err: { type: 'exec', msg: 'error calling urlParse: unable to parse url: parse "%zz": invalid URL escape "%zz"' } },
  { tpl: '{{ urlParse "a:b/c:d" | toJson }}', want: '{"fragment":"","host":"","hostname":"","opaque":"b/c:d","path":"","query":"","scheme":"a","userinfo":""}' },
  {
    tpl: '{{ urlJoin (dict "scheme" "https" "host" "example.com" "path" "/a b" "query" "x=1" "fragment" "f g" "userinfo" "u:p") }} {{ urlJoin (dict "path" "a:b") }} {{ urlJoin (dict "scheme" "https" "host" "h" "path" "p") }}',
    want: 'https://u:p@example.com/a%20b?x=1#f%20g ./a:b https://h/p',
  },
  { tpl: '{{ urlJoin (urlParse "https://example.com/a?b=c#d") }}', want: 'https://example.com/a?b=c#d' },
  { tpl: '{{ urlJoin (dict "host" 1) }}', err: { type: 'exec', msg: 'unable to parse host key, must be of type string, but int found' } },
  { tpl: '{{ base "/a/b/" }} {{ base "" }} {{ base "///" }} {{ dir "/a/b/c" }} {{ dir "a" }} {{ clean "a/../../b/./c//" }} {{ clean "/../a" }} {{ clean "" }}', want: 'b . / /a/b . ../b/c /a .' },
  { tpl: '{{ ext "x/a.tar.gz" }}|{{ ext "a.b/c" }}|{{ isAbs "/x" }} {{ isAbs "x" }}|{{ osBase "a/b" }} {{ osDir "a/b" }} {{ osClean "a//b" }} {{ osExt "f.txt" }} {{ osIsAbs "/" }}', want: '.gz||true false|b a a/b .txt true' },
];

export const crypto: Case[] = [
  { tpl: '{{ sha1sum "Hello world!" }}', want: 'd3486ae9136e7856bc42212385ea797094475802' },
  { tpl: '{{ sha256sum "Hello world!" }}', want: 'c0535e4be2b79ffd93291305436bf889314e4a3faec05ecffcbb7df31ad9e51a' },
  { tpl: '{{ sha512sum "" }}', want: 'cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e' },
  { tpl: '{{ adler32sum "Wikipedia" }} {{ adler32sum "" }}', want: '300286872 1' },
  { tpl: '{{ decryptAES "secretkey" (encryptAES "secretkey" "plaintext é") }}|{{ encryptAES "k" "" }}|{{ decryptAES "k" "" }}', want: 'plaintext é||' },
  { name: 'IV and one block', tpl: '{{ encryptAES "k" "x" | len }} {{ encryptAES "k" "0123456789abcdef" | len }}', want: '44 64' },
  { tpl: '{{ decryptAES "k" "AAAA" }}', err: { type: 'exec', msg: 'error calling decryptAES: runtime error: slice bounds out of range [:16] with capacity 3' } },
  { tpl: '{{ decryptAES "k" "AAAAAAAAAAAAAAAAAAAAAA==" }}', err: { type: 'exec', msg: 'runtime error: index out of range [-1]' } },
  { tpl: '{{ decryptAES "k" "A!" }}', err: { type: 'exec', msg: 'illegal base64 data at input byte 1' } },
  { tpl: '{{ uuidv4 | regexMatch "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$" }} {{ ne uuidv4 uuidv4 }}', want: 'true true' },
  { tpl: '{{ randBytes 3 | len }} {{ randBytes 0 }}|{{ randBytes 24 | len }}', want: '4 |32' },
  { tpl: '{{ randBytes -1 }}', err: { type: 'exec', msg: 'error calling randBytes: runtime error: makeslice: len out of range' } },
];

export const semver: Case[] = [
  { tpl: '{{ semverCompare "^1.2.0" "1.2.3" }} {{ semverCompare "~1.2.0" "1.3.0" }} {{ semverCompare ">=1.2, <2" "1.9.9" }} {{ semverCompare ">=1.2 <2" "2.0.0" }} {{ semverCompare ">1.2 || <1.0" "0.9" }}', want: 'true false true false true' },
  { tpl: '{{ semverCompare "1.2 - 1.4.5" "1.4.5" }} {{ semverCompare "1.2 - 1.4.5" "1.4.6" }} {{ semverCompare "1.2.x" "1.2.9" }} {{ semverCompare "*" "4.0.0" }} {{ semverCompare "~1" "1.9" }} {{ semverCompare "=>1.0" "1.0.0" }}', want: 'true false true true true true' },
  { name: 'prereleases match only a constraint that names one', tpl: '{{ semverCompare "^1.2.0" "1.3.0-beta" }} {{ semverCompare ">=1.2.0-0" "1.3.0-beta" }}', want: 'false true' },
  { tpl: '{{ semverCompare "!=1.2.3" "1.2.3" }} {{ semverCompare "!=1.2.x" "1.3.0" }} {{ semverCompare "^0.2.3" "0.3.0" }} {{ semverCompare "^0.2.3" "0.2.9" }} {{ semverCompare "^0.0.3" "0.0.4" }}', want: 'false true false true false' },
  {
    tpl: '{{ $v := semver "v1.2-beta.1+b5" }}{{ $v.Major }} {{ $v.Minor }} {{ $v.Patch }} {{ $v.Prerelease }} {{ $v.Metadata }} {{ $v.Original }} {{ $v }} {{ $v.Compare (semver "1.2.0") }} {{ (semver "1.0.0").LessThan (semver "1.0.1") }}',
    want: '1 2 0 beta.1 b5 v1.2-beta.1+b5 1.2.0-beta.1+b5 -1 true',
  },
  { tpl: '{{ (semver "1.0.0-alpha.10").GreaterThan (semver "1.0.0-alpha.9") }} {{ (semver "1.0.0-alpha").LessThan (semver "1.0.0-alpha.1") }} {{ (semver "1.0.0+a").Equal (semver "1.0.0+b") }}', want: 'true true true' },
  { tpl: '{{ semver "x.y" }}', err: { type: 'exec', msg: 'error calling semver: invalid semantic version' } },
  { tpl: '{{ semver "1.0.0-01" }}', err: { type: 'exec', msg: 'version segment starts with 0' } },
  { tpl: '{{ semverCompare "foo" "1.0.0" }}', err: { type: 'exec', msg: 'error calling semverCompare: improper constraint: foo' } },
  { tpl: '{{ semverCompare ">1" "bar" }}', err: { type: 'exec', msg: 'error calling semverCompare: invalid semantic version' } },
];
