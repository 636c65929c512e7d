// The end-to-end flows: each gets a fresh code-server with the extension on a fresh demo workspace
// (scripts/demo.mjs: a git repo on `main`, a plan in plans/, checkpoints "db-migration" on main and
// "oauth-callback" on feature/oauth under the plan), drives the workbench as a person would, and checks
// what the person sees and what is on disk. Each saves one screenshot, taken at the moment that shows
// the feature, to docs/images/<slug>.png.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { escapeRe } from './workbench.mjs';

/** The status bar item's id: `<publisher>.<name>` of package.json + the id given to createStatusBarItem. */
const STATUS_ITEM_ID = 'checkpoint-dev.checkpoint.checkpoint.active';
const VIEW_CONTAINER = 'Checkpoints';
const SAVE_TITLE = (step) => new RegExp(`^Save Checkpoint \\(${step}/5\\)`);

// ---- disk -------------------------------------------------------------------------------------------

const git = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const read = (file) => (existsSync(file) ? readFileSync(file, 'utf8') : undefined);

function localDate(d = new Date()) {
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/** The MEMORY.md bullets (`- **name** (…) — summary`) of a memory folder, by name. */
function indexBullets(memoryDir) {
  const text = read(join(memoryDir, 'MEMORY.md')) ?? '';
  const bullets = new Map();
  for (const line of text.split(/\r?\n/)) {
    const m = /^[-*] \*\*(.+?)\*\*/.exec(line);
    if (m) bullets.set(m[1], [...(bullets.get(m[1]) ?? []), line]);
  }
  return bullets;
}

function checkpointFile(memoryDir, name) {
  return join(memoryDir, `checkpoint-${name}.md`);
}

/** Paths of `checkpoint-<name>.md` in `<memory>/.trash/<day>/` for any day. */
function trashed(memoryDir, name) {
  const trash = join(memoryDir, '.trash');
  if (!existsSync(trash)) return [];
  return readdirSync(trash)
    .map((day) => join(trash, day, `checkpoint-${name}.md`))
    .filter((p) => existsSync(p));
}

function assertBullet(memoryDir, name, summary) {
  const lines = indexBullets(memoryDir).get(name) ?? [];
  assert.equal(lines.length, 1, `MEMORY.md should hold exactly one bullet for "${name}", found ${lines.length}`);
  if (summary) assert.ok(lines[0].includes(summary), `MEMORY.md bullet for "${name}" should say "${summary}": ${lines[0]}`);
  return lines[0];
}

function assertNoBullet(memoryDir, name) {
  const lines = indexBullets(memoryDir).get(name) ?? [];
  assert.equal(lines.length, 0, `MEMORY.md should hold no bullet for "${name}": ${lines.join(' | ')}`);
}

// ---- shared UI steps ----------------------------------------------------------------------------------

/**
 * Answers the Save steps after the name step (Left Off, Done, Failed, plan). `plan`: text typed to filter
 * the plan list (the entry whose accessible name matches it is chosen), or undefined for "No plan".
 */
async function answerSaveSteps(wb, { leftOff, done = '', failed = '', plan }) {
  await wb.waitForQuickInput({ title: SAVE_TITLE(2), message: /Left Off \(required\)/ }, 'the Left Off step');
  await wb.typeInQuickInput(leftOff);
  await wb.acceptQuickInput();

  await wb.waitForQuickInput({ title: SAVE_TITLE(3), message: /Done This Session/ }, 'the Done This Session step');
  await wb.typeInQuickInput(done);
  if (done) await wb.waitForQuickInput({ message: / · \d+ items?: / }, 'the live item count');
  await wb.acceptQuickInput();

  await wb.waitForQuickInput({ title: SAVE_TITLE(4), message: /Failed Approaches/ }, 'the Failed Approaches step');
  await wb.typeInQuickInput(failed);
  await wb.acceptQuickInput();

  await wb.waitForQuickInput({ title: SAVE_TITLE(5), placeholder: /^Plan in / }, 'the plan step');
  if (plan) await wb.pick(new RegExp(escapeRe(plan)), { filter: plan });
  // A plan edited in the last 24 hours is preselected (the demo's was just written): "No plan" is chosen by name.
  else await wb.pick(/No plan/, { filter: 'No plan' });
  await wb.waitForQuickInputClosed();
}

/** Palette → "Checkpoint: Save" → all steps, for a new name. */
async function saveFromPalette(wb, { name, leftOff, done, failed, plan }) {
  await wb.runCommand('Checkpoint: Save');
  await wb.waitForQuickInput({ title: SAVE_TITLE(1) }, 'the name step');
  await wb.typeInQuickInput(name);
  await wb.waitForQuickInput({ message: new RegExp(`Saves checkpoint-${escapeRe(name)}\\.md in `) }, 'the file name preview');
  await wb.acceptQuickInput();
  await answerSaveSteps(wb, { leftOff, done, failed, plan });
  await wb.visible(wb.notification(`Checkpoint "${name}" saved.`), 'the "saved" notification');
}

// ---- the flows ----------------------------------------------------------------------------------------

export const flows = [
  {
    name: 'save from the command palette',
    slug: 'save-from-palette',
    async run({ wb, memoryDir, workspace, screenshot }) {
      await wb.openViewContainer(VIEW_CONTAINER);
      await wb.widenSideBar();
      await wb.visible(wb.treeItem('db-migration'), 'the demo checkpoints in the tree');

      await wb.runCommand('Checkpoint: Save');
      await wb.waitForQuickInput({ title: SAVE_TITLE(1) }, 'the name step');
      assert.equal(await wb.quickInputBox.inputValue(), 'main', 'the name step should suggest the branch name');
      // Free text is sanitized; the prompt previews the file name live.
      await wb.typeInQuickInput('Login Form');
      // The question and the preview together, the folder shortened with ~ (never the full absolute path).
      await wb.waitForQuickInput({ message: /^Name of the checkpoint · Saves checkpoint-login-form\.md in ~\/\S*\.claude\/memory( |$)/ }, 'the question with the live file name preview');
      await wb.acceptQuickInput();

      await wb.waitForQuickInput({ title: SAVE_TITLE(2), message: /Left Off \(required\)/ }, 'the Left Off step');
      await wb.acceptQuickInput(); // empty: refused with a message, the step stays
      await wb.waitForQuickInput({ title: SAVE_TITLE(2), message: /Left Off is required/ }, 'the "Left Off is required" validation');
      await wb.typeInQuickInput('Wiring the login form; validation pending');
      await wb.acceptQuickInput();

      await wb.waitForQuickInput({ title: SAVE_TITLE(3), message: /Done This Session/ }, 'the Done This Session step');
      await wb.typeInQuickInput('for (;;) loop; tests');
      // The hint for a literal ";" stays in view beside the live preview of the items.
      await wb.waitForQuickInput({ message: /\(";;" for a literal ";"\).* · 2 items: “for \(;\) loop”, “tests”( |$)/ }, 'the ";;" hint with the items preview');
      await wb.typeInQuickInput('Added the form; Wrote the happy-path test');
      await wb.waitForQuickInput({ message: / · 2 items: “Added the form”/ }, 'the live "2 items" preview');
      await wb.acceptQuickInput();

      await wb.waitForQuickInput({ title: SAVE_TITLE(4), message: /Failed Approaches/ }, 'the Failed Approaches step');
      await wb.typeInQuickInput('HTML5 validation only — inconsistent across browsers');
      await wb.acceptQuickInput();

      await wb.waitForQuickInput({ title: SAVE_TITLE(5), placeholder: /^Plan in .*plans, most recently modified first/ }, 'the plan step');
      const options = await wb.quickPickOptions();
      assert.ok(options.some((o) => /fix-auth-race.*step 3 of 5/.test(o ?? '')), `the plan step should list fix-auth-race with its progress: ${JSON.stringify(options)}`);
      assert.match(options[0] ?? '', /No plan/, 'Save (not Save to Plan) lists "No plan" first');
      // The plan edited in the last 24 hours is preselected (seed 003: err on the side of including the plan).
      await wb.until(async () => /fix-auth-race/.test((await wb.focusedOption.getAttribute('aria-label', { timeout: 500 })) ?? ''), 'the recently edited plan to be preselected');
      await screenshot(); // the plan step: plans with their progress, over the tree with its plan node
      await wb.pick(/fix-auth-race/);
      await wb.waitForQuickInputClosed();

      await wb.visible(wb.notification('Checkpoint "login-form" saved.'), 'the "saved" notification');
      const file = checkpointFile(memoryDir, 'login-form');
      await wb.until(() => existsSync(file), `${file} to exist`);
      const text = read(file);
      for (const want of [
        'name: login-form',
        'branch: main',
        `plan: ${join(workspace, 'plans', 'fix-auth-race.md')}`,
        '## Left Off\nWiring the login form; validation pending',
        '- Added the form\n- Wrote the happy-path test',
        '- HTML5 validation only — inconsistent across browsers',
      ]) {
        assert.ok(text.includes(want), `checkpoint-login-form.md should contain ${JSON.stringify(want)}:\n${text}`);
      }
      assertBullet(memoryDir, 'login-form', 'Wiring the login form; validation pending');
      // The tree shows it under the plan node (the view updates without a refresh).
      const item = await wb.visible(wb.treeItem('login-form'), 'login-form in the tree');
      assert.equal(await item.getAttribute('aria-level'), '2', 'login-form should be under the plan node');
    },
  },

  {
    name: 'resume by clicking a tree item, then Undo',
    slug: 'resume-from-tree',
    async run({ wb, memoryDir, screenshot }) {
      await wb.openViewContainer(VIEW_CONTAINER);
      await wb.widenSideBar();
      const row = await wb.visible(wb.treeItem('db-migration'), 'db-migration in the tree');
      await wb.visible(wb.treeItem(/^fix-auth-race · step 3 of 5$/), 'the plan node "fix-auth-race · step 3 of 5"');
      await wb.visible(wb.treeItem('oauth-callback'), 'oauth-callback under its plan');
      await wb.treeSettled();
      assert.match(await row.locator('.label-description').innerText(), /^main · /, 'the item description should start with its branch');
      const file = checkpointFile(memoryDir, 'db-migration');
      const before = read(file);

      await row.click();
      await wb.visible(wb.editorTab('Preview checkpoint-db-migration.md'), 'the Markdown preview tab of the checkpoint');
      await wb.until(async () => (await wb.markdownPreviewText()).includes('Backfill script written; dry run pending'), 'the preview to show the checkpoint');
      await wb.gone(wb.treeItem('db-migration'), 'db-migration to leave the tree');
      const undo = await wb.visible(wb.notificationButton(/^Resumed "db-migration": .*Moved to trash\./, 'Undo'), 'the "Resumed … Moved to trash." notification with Undo');
      assert.ok(!existsSync(file), 'the resumed checkpoint file should be gone from the memory folder');
      assert.equal(trashed(memoryDir, 'db-migration').length, 1, 'the resumed checkpoint should be in .trash/');
      assertNoBullet(memoryDir, 'db-migration');
      await wb.visible(wb.statusBarItem(STATUS_ITEM_ID), 'the status bar item of the resumed checkpoint');
      await wb.mouseAway();
      await screenshot(); // preview open, item gone from the tree, Undo offered

      await undo.click();
      await wb.visible(wb.treeItem('db-migration'), 'db-migration back in the tree');
      await wb.visible(wb.notification('Restored checkpoint "db-migration".'), 'the "Restored" notification');
      await wb.until(() => existsSync(file), 'the checkpoint file to be restored');
      assert.equal(read(file), before, 'the restored file should be the original');
      assertBullet(memoryDir, 'db-migration', 'Backfill script written; dry run pending');
      assert.equal(trashed(memoryDir, 'db-migration').length, 0, 'nothing should be left in .trash/');
    },
  },

  {
    name: 'status bar warns on another branch; Switch returns to it',
    slug: 'branch-warning',
    async run({ wb, workspace, screenshot }) {
      await wb.openViewContainer(VIEW_CONTAINER);
      await wb.widenSideBar();
      await saveFromPalette(wb, { name: 'search-index', leftOff: 'Indexer wired; ranking next' });
      const item = await wb.visible(wb.statusBarItem(STATUS_ITEM_ID), 'the checkpoint status bar item');
      await wb.until(async () => /search-index/.test(await item.innerText()), 'the status bar item to show "search-index"');
      assert.doesNotMatch((await item.getAttribute('class')) ?? '', /warning-kind/, 'no warning while on the saved branch');
      await wb.clearNotifications();

      git(workspace, 'checkout', '-q', 'feature/oauth'); // outside VS Code, as a terminal or an agent would
      await wb.until(async () => /\bwarning-kind\b/.test((await item.getAttribute('class')) ?? ''), 'the status bar item to turn to its warning background');
      const text = (await item.innerText()).replace(/\s+/g, ' ').trim();
      assert.match(text, /^search-index saved on main, you're on feature\/oauth$/, `the status bar text should name both branches: ${JSON.stringify(text)}`);
      assert.equal(await item.locator('.codicon-warning').count(), 1, 'the status bar text should carry the warning icon');
      assert.equal(
        await item.getAttribute('aria-label'),
        'Checkpoint search-index, saved on branch main, you are on feature/oauth',
        'the status bar item\'s accessible name should tell the mismatch',
      );
      // The checkpoint in the tree also gets its warning icon.
      const row = await wb.visible(wb.treeItem('search-index'), 'search-index in the tree');
      await wb.until(async () => /another branch/.test((await row.getAttribute('aria-label')) ?? ''), 'the tree item to be marked as on another branch');

      // VS Code's own Git status bar entry catches up on its own schedule; wait for it (best effort) so the
      // picture does not show "main" there.
      await wb.until(async () => /feature\/oauth/.test((await wb.statusBarItem('status.scm.0').getAttribute('aria-label', { timeout: 500 })) ?? ''), 'the Git status bar entry to show feature/oauth', { timeout: 10_000 }).catch(() => {});

      await item.hover();
      const hover = await wb.visible(wb.page.locator('.workbench-hover, .monaco-hover').filter({ hasText: 'you are on' }), 'the status bar tooltip');
      assert.match(await hover.innerText(), /Saved on main; you are on feature\/oauth/, 'the tooltip should explain the mismatch');
      // Rest the mouse on the tooltip: it stays open, and the item shows its warning colour instead of the hover one.
      const box = await hover.boundingBox();
      if (box) await wb.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 3 });
      await screenshot(); // warning status bar item with its tooltip

      await item.click();
      await wb.waitForQuickInput({ title: /^Checkpoint "search-index"/ }, 'the status bar item\'s actions');
      const options = await wb.quickPickOptions();
      for (const want of [/Switch to main/, /Resume/, /Dismiss/]) {
        assert.ok(options.some((o) => want.test(o ?? '')), `the actions should offer ${want}: ${JSON.stringify(options)}`);
      }
      await wb.pick(/Switch to main/);
      await wb.waitForQuickInputClosed();
      await wb.until(() => git(workspace, 'branch', '--show-current') === 'main', 'git to be on main again');
      await wb.visible(wb.notification('Switched to main.'), 'the "Switched to main." notification');
      await wb.until(async () => !/\bwarning-kind\b/.test((await item.getAttribute('class')) ?? ''), 'the status bar warning to clear');
      assert.equal(await item.getAttribute('aria-label'), 'Checkpoint search-index');
    },
  },

  {
    name: 'a checkpoint saved outside the window is offered at start-up; Resume resumes it',
    slug: 'resume-offer',
    resumeOffer: true,
    async run({ wb, memoryDir, screenshot }) {
      // The demo's checkpoints were saved by the CLI before the window opened; db-migration (on main) is the newest.
      const offer = /^Resume 'db-migration' — saved .+ on main$/;
      // The extension activates when start-up has finished (onStartupFinished): allow a slow machine its time.
      const resume = await wb.visible(wb.notificationButton(offer, 'Resume'), 'the start-up offer with Resume', { timeout: 60_000 });
      await wb.visible(wb.notificationButton(offer, 'Later'), 'the start-up offer with Later');
      assert.equal(await wb.notification(/^Resume '/).count(), 1, 'one offer: the pending checkpoint only');
      await wb.mouseAway();
      await screenshot(); // the offer, as the window opens

      const file = checkpointFile(memoryDir, 'db-migration');
      await resume.click();
      await wb.visible(wb.notification(/^Resumed "db-migration": .*Moved to trash\./), 'the "Resumed … Moved to trash." notification');
      await wb.visible(wb.editorTab('Preview checkpoint-db-migration.md'), 'the Markdown preview of the resumed checkpoint');
      await wb.until(() => !existsSync(file), 'the resumed checkpoint to leave the memory folder');
      assert.equal(trashed(memoryDir, 'db-migration').length, 1, 'the resumed checkpoint should be in .trash/');
      assertNoBullet(memoryDir, 'db-migration');
      assertBullet(memoryDir, 'oauth-callback');
    },
  },

  {
    name: 'the empty view\'s welcome button starts Save',
    slug: 'welcome-save',
    checkpoints: false,
    async run({ wb, memoryDir, screenshot }) {
      await wb.openViewContainer(VIEW_CONTAINER);
      await wb.widenSideBar();
      const button = await wb.visible(wb.welcomeButton('Save a Checkpoint'), 'the welcome view\'s "Save a Checkpoint" button');
      const welcome = await wb.page.locator('.part.sidebar .welcome-view-content').innerText();
      assert.match(welcome, /No checkpoints yet/, 'the welcome view should say there are none');
      await wb.mouseAway();
      await screenshot(); // the welcome view

      await button.click();
      await wb.waitForQuickInput({ title: SAVE_TITLE(1) }, 'the Save name step');
      await wb.typeInQuickInput('first-steps');
      await wb.waitForQuickInput({ message: /Saves checkpoint-first-steps\.md in / }, 'the file name preview');
      await wb.acceptQuickInput();
      await answerSaveSteps(wb, { leftOff: 'Project set up; nothing built yet' });
      await wb.visible(wb.notification('Checkpoint "first-steps" saved.'), 'the "saved" notification');

      const file = checkpointFile(memoryDir, 'first-steps');
      await wb.until(() => existsSync(file), `${file} to exist`);
      assertBullet(memoryDir, 'first-steps', 'Project set up; nothing built yet');
      await wb.visible(wb.treeItem('first-steps'), 'first-steps in the tree');
      await wb.gone(wb.welcomeButton('Save a Checkpoint'), 'the welcome view to give way to the tree');
    },
  },

  {
    name: 'saving over an existing name asks Overwrite / Different name',
    slug: 'overwrite-prompt',
    async run({ wb, memoryDir, screenshot }) {
      await wb.openViewContainer(VIEW_CONTAINER);
      await wb.widenSideBar();
      await wb.visible(wb.treeItem('db-migration'), 'db-migration in the tree');
      const file = checkpointFile(memoryDir, 'db-migration');
      const before = read(file);

      await wb.runCommand('Checkpoint: Save');
      await wb.waitForQuickInput({ title: SAVE_TITLE(1) }, 'the name step');
      await wb.typeInQuickInput('db-migration');
      await wb.waitForQuickInput({ message: /a checkpoint of that name exists .*asked whether to overwrite/ }, 'the "exists" warning under the name');
      await wb.acceptQuickInput();

      const existsPrompt = /^"db-migration" already exists — Saved \d{4}-\d\d-\d\d \d\d:\d\d on main/;
      await wb.waitForQuickInput({ placeholder: existsPrompt }, 'the Overwrite / Different name question');
      const options = await wb.quickPickOptions();
      assert.ok(options.some((o) => /Overwrite.*left off: Backfill script written; dry run pending/.test(o ?? '')), `Overwrite should show the existing left-off line: ${JSON.stringify(options)}`);
      assert.ok(options.some((o) => /Different name/.test(o ?? '')), `"Different name" should be offered: ${JSON.stringify(options)}`);
      await screenshot(); // the question, with the existing checkpoint's date and left-off line

      // "Different name" goes back to the name step, nothing written.
      await wb.pick(/Different name/, { filter: 'Different' });
      await wb.waitForQuickInput({ title: SAVE_TITLE(1), placeholder: /oauth-callback/ }, 'the name step again');
      assert.equal(await wb.quickInputBox.inputValue(), 'db-migration', 'the name step should keep the typed name');
      assert.equal(read(file), before, '"Different name" must not write anything');

      await wb.acceptQuickInput();
      await wb.waitForQuickInput({ placeholder: existsPrompt }, 'the Overwrite / Different name question again');
      await wb.pick(/Overwrite/, { filter: 'Overwrite' });
      await answerSaveSteps(wb, { leftOff: 'Backfill ran on staging; production next', done: 'Dry run on staging' });
      await wb.visible(wb.notification('Checkpoint "db-migration" saved.'), 'the "saved" notification');

      await wb.until(() => read(file) !== before, 'the checkpoint file to change');
      const after = read(file);
      assert.ok(after.includes('## Left Off\nBackfill ran on staging; production next'), `the file should hold the new Left Off:\n${after}`);
      assert.ok(!after.includes('Backfill script written; dry run pending'), 'the old Left Off should be gone');
      assertBullet(memoryDir, 'db-migration', 'Backfill ran on staging; production next');
      assert.equal((await wb.treeRows()).filter((r) => r.label === 'db-migration').length, 1, 'the tree should show db-migration once');
    },
  },

  {
    name: 'inline Delete on a tree item moves it to trash',
    slug: 'inline-delete',
    async run({ wb, memoryDir, screenshot }) {
      await wb.openViewContainer(VIEW_CONTAINER);
      await wb.widenSideBar();
      const row = await wb.visible(wb.treeItem('db-migration'), 'db-migration in the tree');
      await wb.visible(wb.treeItem('oauth-callback'), 'oauth-callback in the tree');
      await wb.treeSettled();
      const file = checkpointFile(memoryDir, 'db-migration');
      const before = read(file);
      const day = localDate();

      const del = await wb.hoverForInlineAction(row, 'Delete'); // inline actions show on hover
      await wb.visible(wb.inlineAction(row, 'Resume'), 'the inline Resume action');
      await del.hover();
      await wb.visible(wb.page.locator('.workbench-hover, .monaco-hover').filter({ hasText: /^Delete/ }), 'the "Delete" tooltip').catch(() => {});
      await screenshot(); // the row's inline Resume / Delete actions

      await del.click();
      await wb.gone(wb.treeItem('db-migration'), 'db-migration to leave the tree');
      await wb.visible(wb.notificationButton('Moved checkpoint "db-migration" to trash.', 'Undo'), 'the "Moved to trash" notification with Undo');
      await wb.visible(wb.treeItem('oauth-callback'), 'the other checkpoint to stay');
      assert.ok(!existsSync(file), 'the file should be gone from the memory folder');
      // <memory>/.trash/<YYYY-MM-DD>/ in local time (the day before or after the click, in case midnight passed).
      const expected = [...new Set([day, localDate()])].map((d) => join(memoryDir, '.trash', d, 'checkpoint-db-migration.md'));
      const inTrash = trashed(memoryDir, 'db-migration');
      assert.ok(inTrash.length === 1 && expected.includes(inTrash[0]), `the file should be in .trash/${day}/: found ${JSON.stringify(inTrash)}`);
      assert.equal(read(inTrash[0]), before, 'the trashed file should be the checkpoint, unchanged');
      assertNoBullet(memoryDir, 'db-migration');
    },
  },
];
