// `npm run package`: a production build, then a .vsix with @vscode/vsce. The README's screenshots are relative
// links to docs/images/ (not shipped, and vsce cannot rewrite them without a repository URL), so the packaged
// README is this README without its image lines.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--production'], { stdio: 'inherit', cwd: root });
// vsce wants the README path inside the project: out/ is git-ignored and not shipped.
const temp = join(root, 'out', 'package');
mkdirSync(temp, { recursive: true });
try {
  const readme = join(temp, 'README.md');
  const text = readFileSync(join(root, 'README.md'), 'utf8').replace(/^!\[[^\]]*\]\([^)]*\)\n\n?/gm, '');
  writeFileSync(readme, text);
  const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
  execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--readme-path', 'out/package/README.md', ...process.argv.slice(2)], {
    stdio: 'inherit',
    cwd: root,
  });
} finally {
  rmSync(temp, { recursive: true, force: true });
}
