/**
 * Turning route-table entries into concrete request URLs for whole-API sweeps.
 */
import type { RouteEntry } from '../../src/http/route-table.js';

const SAMPLE_UUID = '3f2c1d4e-5b6a-4c7d-8e9f-0a1b2c3d4e5f';

/** A concrete URL for a route pattern: `:id`-like params become `1`, UUID params a UUID, `*` a file name. */
export function concreteUrl(route: Pick<RouteEntry, 'url'>, value?: string): string {
  return route.url
    .replace(/:(\w+)/g, (_m, name: string) => value ?? (/uuid/i.test(name) ? SAMPLE_UUID : name === 'type' ? 'views' : '1'))
    .replace(/\*/g, 'sample.png');
}
