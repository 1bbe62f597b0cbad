// Builds the dashboard into shared/dashboard/dist, which the dashboard function embeds
// (go:embed): index.html and assets/<name>-<hash>.<ext>, each text file with a gzip twin,
// plus the licences of the bundled packages. The output depends only on src/ and the
// packages pinned by package-lock.json (esbuild's output is deterministic and gzip here
// writes no time stamp), so a build from the same commit gives the same bytes.
//
//   node web/build.mjs            build
//   node web/build.mjs --check    build into a temporary folder and fail if it differs
//                                 from shared/dashboard/dist (reproducibility check)
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import * as esbuild from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const target = join(here, '..', 'shared', 'dashboard', 'dist');
const check = process.argv.includes('--check');
const out = check ? mkdtempSync(join(tmpdir(), 'dashboard-')) : target;
const assets = join(out, 'assets');

// Keep dist/.keep (the placeholder go:embed needs in an unbuilt checkout), replace the rest.
for (const name of existsSync(out) ? readdirSync(out) : []) {
  if (name !== '.keep') rmSync(join(out, name), { recursive: true, force: true });
}
mkdirSync(assets, { recursive: true });

const result = await esbuild.build({
  absWorkingDir: here,
  entryPoints: { app: 'src/main.js', style: 'src/style.css' },
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  entryNames: '[name]-[hash]',
  outdir: assets,
  metafile: true,
  legalComments: 'none', // the licences go into their own asset, below
  sourcemap: false,
  logLevel: 'warning'
});

const hashed = (name, body) => {
  const h = createHash('sha256').update(body).digest('base64url').slice(0, 10);
  const ext = extname(name);
  return `${basename(name, ext)}-${h}${ext}`;
};

// Every npm package whose code is in the bundle, with its licence text.
const packages = new Map();
for (const input of Object.keys(result.metafile.inputs)) {
  const m = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  if (!m || packages.has(m[1])) continue;
  const dir = join(here, 'node_modules', m[1]);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)/i.test(f));
  packages.set(m[1], { version: pkg.version, license: pkg.license, text: file ? readFileSync(join(dir, file), 'utf8').trim() : '' });
}
const licenses = [...packages.keys()].sort().map((name) => {
  const p = packages.get(name);
  return `${name} ${p.version} (${p.license})\n\n${p.text}\n`;
}).join('\n' + '-'.repeat(72) + '\n\n');
const licenseName = hashed('licenses.txt', licenses);
writeFileSync(join(assets, licenseName), `Open-source packages in the Subsight dashboard's script\n\n${licenses}`);

const icon = readFileSync(join(here, 'src', 'icon.svg'));
const iconName = hashed('icon.svg', icon);
writeFileSync(join(assets, iconName), icon);

const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
const app = outputs.find((f) => f.startsWith('app-') && f.endsWith('.js'));
const style = outputs.find((f) => f.startsWith('style-') && f.endsWith('.css'));
const sri = (name) => 'sha384-' + createHash('sha384').update(readFileSync(join(assets, name))).digest('base64');
const page = readFileSync(join(here, 'src', 'index.html'), 'utf8')
  .replaceAll('{{app.js}}', `/assets/${app}`)
  .replaceAll('{{app.js.integrity}}', sri(app))
  .replaceAll('{{style.css}}', `/assets/${style}`)
  .replaceAll('{{style.css.integrity}}', sri(style))
  .replaceAll('{{icon.svg}}', `/assets/${iconName}`)
  .replaceAll('{{licenses.txt}}', `/assets/${licenseName}`);
if (/\{\{/.test(page)) throw new Error('index.html: a placeholder was not replaced');
writeFileSync(join(out, 'index.html'), page);

// gzip twins (level 9; Node writes no file name or time into the header).
const report = [];
const walk = (dir) => readdirSync(dir).flatMap((f) => statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]);
for (const file of walk(out).filter((f) => !f.endsWith('.keep')).sort()) {
  const body = readFileSync(file);
  const gz = gzipSync(body, { level: 9 });
  writeFileSync(file + '.gz', gz);
  report.push(`  ${relative(out, file).padEnd(34)} ${String(body.length).padStart(8)} bytes, gzip ${String(gz.length).padStart(7)}`);
}

if (check) {
  const differs = [];
  const files = (dir) => walk(dir).filter((f) => !f.endsWith('.keep')).map((f) => relative(dir, f)).sort();
  const a = files(out);
  const b = existsSync(target) ? files(target) : [];
  if (a.join('\n') !== b.join('\n')) differs.push(`files: built [${a}] vs dist [${b}]`);
  for (const f of a) {
    if (b.includes(f) && !readFileSync(join(out, f)).equals(readFileSync(join(target, f)))) differs.push(f);
  }
  rmSync(out, { recursive: true, force: true });
  if (differs.length) {
    console.error('dashboard build is not reproducible; differs:\n  ' + differs.join('\n  '));
    process.exit(1);
  }
  console.log(`dashboard build reproduced byte for byte (${a.length} files)`);
} else {
  console.log(`dashboard built into ${relative(process.cwd(), out) || '.'}:\n${report.join('\n')}`);
}
