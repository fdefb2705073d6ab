// The npm packages of tests/npm/node_modules (scripts/setup.sh installs them;
// a missing one fails, never skips), resolved from there, not from here.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const npm = join(dirname(fileURLToPath(import.meta.url)), '..', 'npm');

export async function importSdk(name) {
  const require = createRequire(join(npm, 'package.json'));
  let resolved;
  try {
    resolved = require.resolve(name);
  } catch {
    throw new Error(`${join(npm, 'node_modules')} lacks ${name}: run scripts/setup.sh`);
  }
  // Prefer the ESM build next to the CommonJS entry point.
  const mjs = resolved.replace(/\.js$/, '.mjs');
  return import(pathToFileURL(existsSync(mjs) ? mjs : resolved).href);
}
