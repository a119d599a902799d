// The package.json that npm pack puts in the tarball: the clone's without its `prepare` script (which builds a clone on
// `npm install`, and must not run, nor be warned about, on an application's install of the package).
//
//   node scripts/pack-manifest.mjs strip    (prepack)  checks the build is there, keeps package.json aside, drops scripts.prepare
//   node scripts/pack-manifest.mjs restore  (postpack) puts the clone's package.json back
//
// `npm publish` builds first (prepublishOnly); `npm pack` packs the dist/ already built (npm test and npm run build
// write it). A strip after a pack that died halfway restores the kept copy first.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const manifest = path.join(root, 'package.json');
const kept = path.join(root, 'package.json.clone');

function restore() {
  if (fs.existsSync(kept)) fs.renameSync(kept, manifest);
}

const mode = process.argv[2];
if (mode === 'strip') {
  restore();
  for (const f of ['dist/lib/index.js', 'dist/lib/index.d.ts', 'dist/lib/server.js']) {
    if (!fs.existsSync(path.join(root, f))) {
      console.error(`pack: ${f} is missing: run npm run build first`);
      process.exit(1);
    }
  }
  const text = fs.readFileSync(manifest, 'utf8');
  const pkg = JSON.parse(text);
  fs.writeFileSync(kept, text);
  delete pkg.scripts.prepare;
  fs.writeFileSync(manifest, JSON.stringify(pkg, null, 2) + '\n');
} else if (mode === 'restore') {
  restore();
} else {
  console.error('usage: node scripts/pack-manifest.mjs strip|restore');
  process.exit(2);
}
