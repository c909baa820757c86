/** Small builders for corpus cases. */
import type { GoCase } from './types.js';

type Extra = Omit<Partial<GoCase>, 'id' | 'kind' | 'tpl' | 'data'>;

/** A text/template case (`text/<group>/<id>`). */
export const text = (group: string) => (id: string, tpl: string, data?: unknown, extra: Extra = {}): GoCase =>
  ({ id: `text/${group}/${id}`, kind: 'text', tpl, ...(data === undefined ? {} : { data }), ...extra });

/** An html/template case (`html/<group>/<id>`). */
export const html = (group: string) => (id: string, tpl: string, data?: unknown, extra: Extra = {}): GoCase =>
  ({ id: `html/${group}/${id}`, kind: 'html', tpl, ...(data === undefined ? {} : { data }), ...extra });

/** A campaign case (`campaign/<group>/<id>`): `body` is the campaign body; other fields in `extra`. */
export const campaign = (group: string) => (id: string, body: string, extra: Extra = {}): GoCase =>
  ({ id: `campaign/${group}/${id}`, kind: 'campaign', ...extra, campaign: { body, ...(extra.campaign ?? {}) } });

/** Shared data for small cases: JSON as listmonk's attribs and tx data are (numbers are float64 in Go). */
export const D = {
  s: 'hello',
  w: 'Hello World',
  e: '',
  n: 3,
  f: 2.5,
  zero: 0,
  neg: -4,
  big: 1000000,
  t: true,
  z: false,
  nil: null,
  l: ['a', 'b', 'c'],
  nums: [3, 1, 2],
  el: [],
  m: { a: 1, b: 'two', c: [1, 2] },
  em: {},
  h: '<b>"Tom" & \'Jerry\'</b>',
  deep: { x: { y: { z: 'deep' } } },
  users: [{ name: 'Ann', age: 31 }, { name: 'Bob', age: 27 }],
  i: { $int: 3 },
  i0: { $int: 0 },
  il: { $ints: [10, 20, 30] },
  sl: { $strings: ['x', 'y'] },
  when: { $time: '2024-02-29T13:45:06.789Z' },
};
