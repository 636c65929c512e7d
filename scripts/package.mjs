// `npm run package [-- vsce options]`: a production build, then a .vsix with @vscode/vsce whose README is
// README.package.md, the user's guide (README.md is the repository's, for developers).
//
// VS Code's Extensions view shows a README's images only from https addresses: its sanitizer drops relative, data:
// and file: sources and its content policy refuses http:. So the screenshots, relative links to docs/images/ in
// README.package.md, are rewritten by vsce onto an https address: `--baseImagesUrl URL` (e.g. where the repository's
// files are served), else the one vsce derives from package.json's `repository`. With neither, the packaged README
// leaves them out and this script says so. The images are not shipped in the .vsix: no editor would show them there.
//
// `--no-build`: package dist/ as it is. `--root DIR`: package that folder (a copy of the project's package files)
// instead of the project.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const project = join(dirname(fileURLToPath(import.meta.url)), '..');
const README = 'README.package.md';
const args = process.argv.slice(2);
const take = (name, withValue) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  return args.splice(i, withValue ? 2 : 1)[1] ?? true;
};
const build = take('--no-build', false) === undefined;
const root = resolve(take('--root', true) ?? project);
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const imagesAddress = args.some((a) => /^--base(Images|Content)Url(=|$)/.test(a)) || Boolean(pkg.repository);

if (build) execFileSync(process.execPath, [join(project, 'scripts', 'build.mjs'), '--production'], { stdio: 'inherit', cwd: project });
// vsce wants the README path inside the project: out/ is git-ignored and not shipped.
const temp = join(root, 'out', 'package');
let readme = README;
try {
  if (!imagesAddress) {
    console.warn(`${README}'s screenshots are left out of the package: give --baseImagesUrl https://… (where docs/images/ is served) or a repository in package.json.`);
    mkdirSync(temp, { recursive: true });
    readme = 'out/package/README.md';
    writeFileSync(join(root, readme), readFileSync(join(root, README), 'utf8').replace(/^!\[[^\]]*\]\([^)]*\)\n\n?/gm, ''));
  }
  const vsce = join(project, 'node_modules', '@vscode', 'vsce', 'vsce');
  execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--readme-path', readme, ...args], {
    stdio: 'inherit',
    cwd: root,
  });
} finally {
  rmSync(temp, { recursive: true, force: true });
}
