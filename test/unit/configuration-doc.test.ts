/**
 * Keeps docs/configuration.md complete: every environment variable the config loader reads and every
 * settings key the app declares has a table row there, and the page names no variable or settings key
 * that does not exist. The settings declarations are built the way src/deps.ts builds them (the same
 * factories, the same config-seeded core defaults), without opening a database or starting the app.
 */
import { corsSettings } from '../../src/http/cors.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENV_VARS, loadConfig, type Config } from '../../src/config.js';
import type { SettingDef } from '../../src/settings/definitions.js';
import { coreSettings } from '../../src/modules/settings/core-settings.js';
import { archiveSettings } from '../../src/modules/campaign-pages/settings.js';
import { mediaSettings } from '../../src/modules/media/settings.js';
import { txSettings } from '../../src/modules/tx/settings.js';
import { importSettings } from '../../src/modules/import/settings.js';
import { subscriberSettings } from '../../src/modules/subscribers/settings.js';
import { publicSubscriptionSettings } from '../../src/modules/public-subscription/settings.js';
import { engineSettings } from '../../src/workers/engine-settings.js';
import { privacySettings } from '../../src/modules/tracking/settings.js';
import { messengerSettings } from '../../src/mail/messenger-settings.js';
import { auditSettings } from '../../src/modules/audit/settings.js';
import { oidcSettings } from '../../src/modules/auth/oidc-settings.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOC = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');

/** The first-column entries (one backticked name each) of every table whose header starts with `header`. */
function firstColumn(header: string): string[] {
  const names: string[] = [];
  let inTable = false;
  for (const line of DOC.split('\n')) {
    if (!line.startsWith('|')) {
      inTable = false;
      continue;
    }
    const first = (line.split('|')[1] ?? '').trim();
    if (!inTable) {
      inTable = first === header;
      continue;
    }
    if (/^-+$/u.test(first)) continue;
    const m = /^`([^`]+)`$/u.exec(first);
    if (m === null) throw new Error(`docs/configuration.md: a "${header}" row must start with one backticked name: ${line}`);
    names.push(m[1] as string);
  }
  return names;
}

/** The entries that occur more than once. */
function duplicates(names: string[]): string[] {
  return names.filter((n, i) => names.indexOf(n) !== i);
}

/** Every .ts file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.isFile() && e.name.endsWith('.ts') ? [path] : [];
  });
}

/** The setting declarations, combined as buildDeps in src/deps.ts combines them. */
function settingDefs(config: Config): SettingDef[] {
  return [
    ...Object.values(coreSettings(config)), ...Object.values(archiveSettings()), ...Object.values(mediaSettings()),
    ...Object.values(txSettings()), ...Object.values(importSettings()), ...Object.values(subscriberSettings()),
    ...Object.values(publicSubscriptionSettings()), ...Object.values(engineSettings()), ...Object.values(privacySettings()),
    ...Object.values(messengerSettings()), ...Object.values(corsSettings()), ...Object.values(auditSettings()),
    ...Object.values(oidcSettings()),
  ];
}

const keys = settingDefs(loadConfig({})).map((d) => d.key);

describe('docs/configuration.md', () => {
  it('has one row per environment variable, and no row for a variable the loader does not read', () => {
    const documented = firstColumn('Variable');
    expect(duplicates(documented), 'documented twice').toEqual([]);
    expect(ENV_VARS.filter((v) => !documented.includes(v)), 'read by src/config.ts but not documented').toEqual([]);
    expect(documented.filter((v) => !(ENV_VARS as readonly string[]).includes(v)), 'documented but not read').toEqual([]);
  });

  it('has one row per settings key, and no row for a key that does not exist', () => {
    const documented = firstColumn('Key');
    expect(duplicates(documented), 'documented twice').toEqual([]);
    expect(keys.filter((k) => !documented.includes(k)), 'declared but not documented').toEqual([]);
    expect(documented.filter((k) => !keys.includes(k)), 'documented but not declared').toEqual([]);
  });

  it('names no settings key that does not exist, in prose or examples either', () => {
    // Anything shaped like a dotted key in a namespace Mailroom uses (`app.…`, `upload.s3.…`), quoted
    // with backticks or double quotes, must be a real key.
    const namespaces = [...new Set(keys.filter((k) => k.includes('.')).map((k) => k.split('.')[0] as string))];
    const shaped = new RegExp(`[\`"]((?:${namespaces.join('|')})\\.[a-z0-9_.]+)[\`"]`, 'gu');
    const unknown = [...DOC.matchAll(shaped)].map((m) => m[1] as string).filter((k) => !keys.includes(k));
    expect(unknown, 'not a settings key').toEqual([]);
  });

  it('covers every setting declared in src/, so the list above cannot fall behind src/deps.ts', () => {
    // A new settings module added to deps.ts but not to settingDefs() would otherwise go unnoticed.
    const declared = sources(join(ROOT, 'src')).flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/defineSetting\(\{\s*key:\s*'([^']+)'/gu)].map((m) => m[1] as string),
    );
    expect(declared.filter((k) => !keys.includes(k)), 'declared in src/ but missing from settingDefs()').toEqual([]);
    expect(declared).toHaveLength(keys.length);
  });

  it('covers every environment variable: only src/config.ts reads process.env', () => {
    const readers = sources(join(ROOT, 'src')).filter((f) => !f.endsWith('/src/config.ts') && readFileSync(f, 'utf8').includes('process.env'));
    expect(readers, 'reads the environment outside src/config.ts (add the variable to ENV_VARS instead)').toEqual([]);
  });
});
