// Where the package's own files are (migrations, page assets), wherever the code runs from:
// the TypeScript sources under src/ or the compiled bundle under dist/ (scripts/build.mjs).
// A path relative to the importing module breaks once modules are bundled into one file, so
// every file the code reads from the package is named from the package root instead.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'prisma', 'migrations'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package root above ${start}`);
  }
}

export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** The absolute path of a file of the package, named from its root: `packageFile('src', 'admin', 'assets')`. */
export const packageFile = (...parts: string[]) => join(PACKAGE_ROOT, ...parts);
