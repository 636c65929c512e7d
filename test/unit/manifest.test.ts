import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { CommandId } from '../../src/editor/commandIds';

// What the Extensions view and the Welcome page show comes from package.json: checked against the files and
// commands it names, so that a renamed command or a moved image does not ship a broken listing.
const root = path.join(__dirname, '..', '..', '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

interface Step {
  id: string;
  description: string;
  media: { markdown?: string; image?: string };
  completionEvents: string[];
}

test('the listing: a 128×128 PNG icon, categories people browse for, preview while 0.x, the workspace side', () => {
  const icon = readFileSync(path.join(root, pkg.icon));
  assert.equal(icon.subarray(1, 4).toString('latin1'), 'PNG');
  assert.deepEqual([icon.readUInt32BE(16), icon.readUInt32BE(20)], [128, 128], 'width and height from the IHDR chunk');
  assert.ok(pkg.categories.includes('AI') && !pkg.categories.includes('Other'));
  assert.equal(pkg.preview, /^0\./.test(pkg.version));
  assert.deepEqual(pkg.extensionKind, ['workspace']);
  // The packaged files: .vscodeignore keeps the icon and the walkthrough's media.
  const ignore = readFileSync(path.join(root, '.vscodeignore'), 'utf8');
  assert.match(ignore, /^!media\/icon\.png$/m);
  assert.match(ignore, /^!media\/walkthrough\/\*\*$/m);
});

test('the walkthrough: every step completes on a command this extension contributes, with media that exists', () => {
  const [walkthrough] = pkg.contributes.walkthroughs as { id: string; steps: Step[] }[];
  const commands = new Set((pkg.contributes.commands as { command: string }[]).map((c) => c.command));
  const views = new Set(Object.values(pkg.contributes.views as Record<string, { id: string }[]>).flat().map((v) => v.id));
  assert.deepEqual(walkthrough.steps.map((s) => s.id), ['save', 'view', 'agent', 'resume']);
  for (const step of walkthrough.steps) {
    const media = step.media.markdown ?? step.media.image ?? '';
    assert.ok(existsSync(path.join(root, media)), `${step.id}: ${media} exists`);
    assert.ok(step.completionEvents.length > 0, `${step.id} completes on an event`);
    for (const event of step.completionEvents) {
      const [kind, id] = event.split(':');
      if (kind === 'onCommand') assert.ok(commands.has(id), `${step.id}: ${id} is a contributed command`);
      else if (kind === 'onView') assert.ok(views.has(id), `${step.id}: ${id} is a contributed view`);
      else assert.fail(`${step.id}: unexpected completion event ${event}`);
    }
    for (const [, command] of step.description.matchAll(/\]\(command:([\w.]+)\)/g)) {
      assert.ok(commands.has(command) || command === 'checkpoint.checkpoints.focus', `${step.id}: its button runs ${command}, which exists`);
    }
  }
});

test("the package's README (README.package.md) is the user's guide: its screenshots exist, and links need no base address", () => {
  const readme = readFileSync(path.join(root, 'README.package.md'), 'utf8');
  assert.doesNotMatch(readme, /npm (start|test)/, "the repository's set-up commands stay in README.md");
  const images = [...readme.matchAll(/!\[([^\]]*)\]\(([^)]+)\)/g)];
  assert.ok(images.length >= 3, 'the used-by flows are shown');
  for (const [, alt, src] of images) {
    assert.ok(alt.length > 0, `${src} has a text for screen readers`);
    assert.match(src, /^docs\/images\/[\w-]+\.png$/, 'a screenshot the end-to-end run takes (npm run package rewrites it to an https address)');
    assert.ok(existsSync(path.join(root, src)), `${src} exists`);
  }
  // vsce refuses a relative link without a base address for content: only images may be relative.
  const links = [...readme.matchAll(/(?<!!)\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1]);
  for (const href of links) assert.match(href, /^(https:|#)/, `${href} is absolute or an anchor`);
});

test("package.json's commands are exactly the extension's command ids (each registered with its handler)", () => {
  const declared: string[] = (pkg.contributes.commands as { command: string }[]).map((c) => c.command).sort();
  assert.deepEqual(declared, Object.values(CommandId).sort());
  // Every command a menu or keybinding runs is one of them.
  const run = [...JSON.stringify([pkg.contributes.menus, pkg.contributes.keybindings ?? []]).matchAll(/"command":"([^"]+)"/g)].map((m) => m[1]);
  assert.ok(run.length > 10, 'the menus name commands');
  for (const id of run) assert.ok(new Set<string>(declared).has(id), `${id} is a declared command`);
});
