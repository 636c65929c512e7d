// The end-to-end flows: each gets a fresh code-server with the extension on a fresh demo workspace
// (scripts/demo.mjs: a git repo on `main`, a plan in plans/, checkpoints "db-migration" on main and
// "oauth-callback" on feature/oauth under the plan), drives the workbench as a person would, and checks
// what the person sees and what is on disk. Each saves one screenshot, taken at the moment that shows
// the feature, to docs/images/<slug>.png.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { escapeRe } from './workbench.mjs';

/** The status bar item's id: `<publisher>.<name>` of package.json + the id given to createStatusBarItem. */
const STATUS_ITEM_ID = 'checkpoint-dev.checkpoint-for-agents.checkpoint.active';
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

/** The front matter rendered as a table (the Markdown preview's "show" mode): keys and raw values a person reads twice. */
function assertNoFrontMatter(text, what) {
  assert.doesNotMatch(text, /\bdescription\b|\btype\b.*\bcheckpoint\b|\d{4}-\d\d-\d\dT\d\d:\d\d|\bsnapshot\b\s*:/, `${what} should not show the front matter:\n${text}`);
  assert.match(text, /Saved: \d{4}-\d\d-\d\d \d\d:\d\d/, `${what} should show the local saved time:\n${text}`);
}

/** The extension's notifications on screen (toasts whose source is Checkpoint). */
function checkpointToasts(wb) {
  return wb.page.locator('.notifications-toasts .notification-list-item').filter({ has: wb.page.locator('.notification-list-item-source', { hasText: 'Checkpoint' }) });
}

/** The view's title bar Undo (shown while a resume, delete or overwrite can be undone). */
const titleUndo = (wb) => wb.page.locator('.part.sidebar .title-actions a.action-label[aria-label^="Undo Last Resume"]');

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
async function saveFromPalette(wb, answers) {
  await wb.runCommand('Checkpoint: Save');
  await fillSaveForm(wb, answers);
}

/** The open Save form's steps, for a new name. */
async function fillSaveForm(wb, { name, leftOff, done, failed, plan }) {
  await wb.waitForQuickInput({ title: SAVE_TITLE(1) }, 'the name step');
  await wb.typeInQuickInput(name);
  await wb.waitForQuickInput({ message: new RegExp(`Saves checkpoint-${escapeRe(name)}\\.md in `) }, 'the file name preview');
  await wb.acceptQuickInput();
  await answerSaveSteps(wb, { leftOff, done, failed, plan });
  await wb.visible(wb.notification(`Checkpoint "${name}" saved.`), 'the "saved" notification');
}

/** Opens the Checkpoints view with the side bar widened (to `width` pixels: the workbench's default when not given). */
async function openCheckpointsView(wb, width) {
  await wb.openViewContainer(VIEW_CONTAINER);
  await wb.widenSideBar(width);
}

/** Opens the Checkpoints view (see {@link openCheckpointsView}) and waits for `name`'s row in the tree (`what`). */
async function showInTree(wb, name, what, width) {
  await openCheckpointsView(wb, width);
  return wb.visible(wb.treeItem(name), what);
}

// ---- the flows ----------------------------------------------------------------------------------------

export const flows = [
  {
    name: 'save from the command palette',
    slug: 'save-from-palette',
    async run({ wb, memoryDir, screenshot }) {
      await showInTree(wb, 'db-migration', 'the demo checkpoints in the tree');

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
        // A plan in the home folder is written as `~/…`, so that the checkpoint reads the same on another machine.
        'plan: ~/projects/demo/plans/fix-auth-race.md',
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
      const row = await showInTree(wb, 'db-migration', 'db-migration in the tree');
      await wb.visible(wb.treeItem(/^fix-auth-race · step 3 of 5$/), 'the plan node "fix-auth-race · step 3 of 5"');
      await wb.visible(wb.treeItem('oauth-callback'), 'oauth-callback under its plan');
      await wb.treeSettled();
      assert.match(await row.locator('.label-description').innerText(), /^main · /, 'the item description should start with its branch');
      const file = checkpointFile(memoryDir, 'db-migration');
      const before = read(file);
      // The row's tooltip says what a click does to the file.
      const tip = await wb.hoverUntil(row, wb.page.locator('.workbench-hover, .monaco-hover').filter({ hasText: 'Click to resume' }), 'the row\'s tooltip');
      assert.match(await tip.innerText(), /Click to resume: the checkpoint moves to the trash \(Undo puts it back\)\./);
      await wb.mouseAway();
      assert.equal(await titleUndo(wb).count(), 0, 'nothing to undo yet: no Undo in the view\'s title bar');

      await row.click();
      await wb.visible(wb.editorTab('Preview checkpoint-db-migration.md'), 'the rendered view of the checkpoint');
      await wb.until(async () => (await wb.markdownPreviewText()).includes('Backfill script written; dry run pending'), 'the preview to show the checkpoint');
      assertNoFrontMatter(await wb.markdownPreviewText(), 'the resumed checkpoint');
      await wb.gone(wb.treeItem('db-migration'), 'db-migration to leave the tree');
      await wb.visible(wb.notificationButton(/^Resumed "db-migration": .*Moved to trash\./, 'Undo'), 'the "Resumed … Moved to trash." notification with Undo');
      assert.equal(await checkpointToasts(wb).count(), 1, 'one notification for the resume');
      const undo = await wb.visible(titleUndo(wb), 'Undo in the view\'s title bar');
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
      await wb.gone(titleUndo(wb), 'the title bar\'s Undo once nothing is left to undo');
      // The view still shows the checkpoint (it never showed the trash file, which is gone now).
      assert.ok((await wb.markdownPreviewText()).includes('Backfill script written; dry run pending'), 'the view should still show the checkpoint');
      const tabs = await wb.editorTabTexts();
      assert.ok(!tabs.some((t) => /\.trash|^checkpoint-db-migration\.md\b/.test(t)), `no editor on the trash path: ${JSON.stringify(tabs)}`);
    },
  },

  {
    name: 'resuming a checkpoint saved on another branch asks first',
    slug: 'branch-question',
    async run({ wb, memoryDir, workspace, screenshot }) {
      const row = await showInTree(wb, 'oauth-callback', 'oauth-callback (saved on feature/oauth) in the tree');
      await wb.treeSettled();
      const file = checkpointFile(memoryDir, 'oauth-callback');
      const before = read(file);
      const index = read(join(memoryDir, 'MEMORY.md'));
      const dialog = wb.page.locator('.monaco-dialog-box');
      const ask = async () => {
        await row.click();
        const box = await wb.visible(dialog, 'the branch question');
        const text = await box.innerText();
        assert.match(text, /Resume "oauth-callback"\? Saved on feature\/oauth; you are on main\./, `the question: ${text}`);
        const buttons = (await box.locator('.dialog-buttons .monaco-button').allInnerTexts()).map((b) => b.trim());
        assert.deepEqual([...buttons].sort(), ['Cancel', 'Resume Here', 'Switch and Resume'], `the question's buttons: ${buttons}`);
        return box;
      };

      const box = await ask();
      assert.equal(await checkpointToasts(wb).count(), 0, 'asked before any notification');
      await wb.mouseAway();
      await screenshot(); // the question, over the tree
      const nothingConsumed = async (how) => {
        await wb.gone(dialog, 'the question to close');
        assert.equal(read(file), before, `${how} consumes nothing: the checkpoint stays`);
        assert.equal(read(join(memoryDir, 'MEMORY.md')), index, `${how} leaves MEMORY.md as it was`);
        assert.equal(git(workspace, 'branch', '--show-current'), 'main');
        assert.equal(await checkpointToasts(wb).count(), 0, `${how}: no notification`);
        await wb.visible(wb.treeItem('oauth-callback'), 'oauth-callback still in the tree');
      };
      await box.getByRole('button', { name: 'Cancel', exact: true }).click();
      await nothingConsumed('Cancel');
      await ask();
      await wb.page.keyboard.press('Escape');
      await nothingConsumed('Escape');

      await (await ask()).getByRole('button', { name: 'Switch and Resume', exact: true }).click();
      await wb.until(() => git(workspace, 'branch', '--show-current') === 'feature/oauth', 'git to be on feature/oauth');
      const toast = await wb.visible(wb.notification(/^Switched to feature\/oauth\. Resumed "oauth-callback": /), 'the one notification of the switch and the resume');
      const message = await toast.locator('.notification-list-item-message').innerText();
      assert.match(message, /Moved to trash\. Previously failed: Storing tokens in cookies — blocked by SameSite on the callback\. Since saved: [^\n]+$/, `the failed approach in full, then what changed since: ${message}`);
      assert.doesNotMatch(message, /⚠/, 'VS Code\'s warning icon only, not a second one in the text');
      assert.equal(await toast.locator('.codicon-warning').count(), 1, 'one warning icon');
      assert.equal(await checkpointToasts(wb).count(), 1, 'one notification (no "Switched" toast, no toast per failed approach)');
      const buttons = (await toast.locator('.notification-list-item-buttons-container .monaco-button').allInnerTexts()).map((b) => b.trim());
      assert.ok(buttons.includes('Undo') && !buttons.some((b) => b.startsWith('Switch')), `the notification's buttons: ${buttons}`);
      await wb.visible(wb.editorTab('Preview checkpoint-oauth-callback.md'), 'the rendered checkpoint');
      await wb.editorTabShown(/^fix-auth-race\.md\b/, 'its plan');
      await wb.until(async () => (await wb.markdownPreviewText()).includes('Wiring the OAuth callback'), 'the preview to show the checkpoint');
      assertNoFrontMatter(await wb.markdownPreviewText(), 'the resumed checkpoint');
      assert.ok(!existsSync(file), 'consumed: moved to the trash');
      assertNoBullet(memoryDir, 'oauth-callback');
      await wb.gone(wb.treeItem('oauth-callback'), 'oauth-callback to leave the tree');
    },
  },

  {
    name: 'status bar warns on another branch; Switch returns to it',
    slug: 'branch-warning',
    async run({ wb, workspace, screenshot }) {
      await openCheckpointsView(wb);
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

      const hover = await wb.hoverUntil(item, wb.page.locator('.workbench-hover, .monaco-hover').filter({ hasText: 'you are on' }), 'the status bar tooltip');
      assert.match(await hover.innerText(), /Saved on main; you are on feature\/oauth/, 'the tooltip should explain the mismatch');
      // Rest the mouse on the tooltip: it stays open, and the item shows its warning colour instead of the hover one.
      const box = await hover.boundingBox();
      if (box) await wb.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 3 });
      await screenshot(); // warning status bar item with its tooltip

      await item.click();
      await wb.waitForQuickInput({ title: /^Checkpoint "search-index"/ }, 'the status bar item\'s actions');
      const options = await wb.quickPickOptions();
      for (const want of [/Switch to main/, /Resume/, /Open Checkpoint.*checkpoint-search-index\.md/, /Dismiss/]) {
        assert.ok(options.some((o) => want.test(o ?? '')), `the actions should offer ${want}: ${JSON.stringify(options)}`);
      }
      assert.ok(!options.some((o) => /…|\/\.claude\//.test(o ?? '')), `the actions should name the file, not a cut path: ${JSON.stringify(options)}`);
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
      // The demo's checkpoints were saved by the CLI before the window opened; db-migration (on main) is the newest,
      // and the others not resumed since they were saved are named after it.
      const offer = /^Resume 'db-migration' — saved .+ on main \(also pending: '[^']+'.*\)$/;
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
      await openCheckpointsView(wb);
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
      const row = await wb.visible(wb.treeItem('first-steps'), 'first-steps in the tree');
      await wb.gone(wb.welcomeButton('Save a Checkpoint'), 'the welcome view to give way to the tree');

      // Resuming the only checkpoint: the empty view says what just happened and offers Undo, not the first-run text.
      await row.click();
      const undo = await wb.visible(wb.welcomeButton('Undo'), 'the empty view\'s Undo after the resume');
      const after = await wb.page.locator('.part.sidebar .welcome-view-content').innerText();
      assert.match(after, /you just resumed or deleted is in the trash; Undo puts it back/, `the empty view after a resume: ${after}`);
      assert.doesNotMatch(after, /No checkpoints yet|stored/, `no first-run or storage text after a resume: ${after}`);
      await undo.click();
      await wb.visible(wb.treeItem('first-steps'), 'first-steps back in the tree');
      await wb.until(() => existsSync(file), 'the checkpoint file to be restored');
    },
  },

  {
    name: 'an unreadable checkpoint is listed below the readable ones with a short reason',
    slug: 'unreadable-row',
    async run({ wb, memoryDir, screenshot }) {
      // A file an agent wrote by hand, its front matter broken (an unclosed flow sequence on line 3) and no body to
      // read it by instead.
      const broken = checkpointFile(memoryDir, 'aaa-broken');
      writeFileSync(broken, '---\nname: aaa-broken\nbranch: [main\nsaved: 2026-11-25T10:00:00Z\n---\n');
      const row = await showInTree(wb, 'aaa-broken', 'the unreadable file in the tree', 520);
      await wb.visible(wb.treeItem('db-migration'), 'the readable checkpoints');
      await wb.treeSettled();
      const rows = await wb.treeRows();
      assert.equal(rows.at(-1)?.label, 'aaa-broken', `the unreadable row comes last: ${JSON.stringify(rows.map((r) => r.label))}`);
      const description = rows.at(-1)?.description ?? '';
      assert.match(description, /^unreadable: front matter is not valid YAML, line \d+$/, `a short reason: ${description}`);
      const tip = await wb.hoverUntil(row, wb.page.locator('.workbench-hover, .monaco-hover').filter({ hasText: 'could not be read' }), 'the row\'s tooltip');
      const tooltip = (await tip.innerText()).replace(/\s+/g, ' '); // the message's spaces are non-breaking
      assert.match(tooltip, /missed comma between flow collection entries at line 4/, `the tooltip carries the parser's full message: ${tooltip}`);
      assert.match(tooltip, /~\/projects\/demo\/\.claude\/memory\/checkpoint-aaa-broken\.md/, `the tooltip names the file under ~: ${tooltip}`);
      await screenshot(); // the unreadable row last, its tooltip with the parser's message
      await wb.mouseAway();
      await row.click();
      await wb.editorTabShown(/^checkpoint-aaa-broken\.md\b/, 'a click opens the file');
      assert.ok(existsSync(broken), 'never moved or rewritten');
    },
  },

  {
    name: 'saving over an existing name asks Overwrite / Different name',
    slug: 'overwrite-prompt',
    async run({ wb, memoryDir, screenshot }) {
      await showInTree(wb, 'db-migration', 'db-migration in the tree');
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
      const row = await showInTree(wb, 'db-migration', 'db-migration in the tree');
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

// ---- the listing: the packaged README in the Extensions view ------------------------------------------------

/**
 * Where the packaged README's images point (`npm run package -- --baseImagesUrl`): VS Code's Extensions view shows
 * README images from https addresses only. This run answers that address from the repository's own files, as the
 * host of the repository would.
 */
const IMAGES_BASE = 'https://checkpoint.test/';
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The frame of a webview whose body text contains `text`, once one does. */
async function webviewFrame(wb, text, what) {
  return wb.until(async () => {
    for (const frame of wb.page.frames()) {
      if (!frame.parentFrame()) continue;
      const body = await frame.locator('body').innerText({ timeout: 500 }).catch(() => '');
      if (body.includes(text)) return frame;
    }
    return undefined;
  }, what);
}

flows.push({
  name: "the installed .vsix's page in the Extensions view: the user README with its screenshots, and the icon",
  slug: 'extension-page',
  checkpoints: false,
  vsix: { baseImagesUrl: IMAGES_BASE },
  async run({ wb, page, screenshot }) {
    const served = [];
    await page.context().route(`${IMAGES_BASE}**`, (route) => {
      const path = decodeURIComponent(new URL(route.request().url()).pathname).slice(1);
      served.push(path);
      const file = join(repoRoot, path);
      return existsSync(file) ? route.fulfill({ path: file }) : route.fulfill({ status: 404, body: 'not found' });
    });

    await wb.runCommand('View: Show Extensions');
    const search = await wb.visible(page.locator('.extensions-viewlet .suggest-input-container .monaco-editor'), "the Extensions view's search box");
    await search.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('@installed');
    const row = await wb.visible(page.locator('.extensions-viewlet .monaco-list-row').filter({ hasText: 'Checkpoint' }).first(), 'Checkpoint among the installed extensions');
    await row.click();
    const editor = await wb.visible(page.locator('.extension-editor').filter({ has: page.locator('.header .name', { hasText: /^Checkpoint$/ }) }), "the extension's page");

    const readme = await webviewFrame(wb, 'Remember where you left off', "the page's README");
    const text = await readme.locator('body').innerText();
    assert.doesNotMatch(text, /npm start|npm test/, "the package's README is the user's guide, not the repository's");
    for (const heading of ['Save where you stopped', 'Resume with one click', 'Pick up what your agent saved', 'Your agent reads it too', 'The command line', 'Settings']) {
      assert.ok(text.includes(heading), `the README should have the section "${heading}"`);
    }
    const images = () => readme.evaluate(() => [...document.images].map((i) => ({ src: i.getAttribute('src') ?? '', alt: i.alt, width: i.naturalWidth, done: i.complete })));
    await wb.until(async () => (await images()).every((i) => i.done), 'the README images to finish loading');
    const loaded = await images();
    assert.ok(loaded.length >= 4, `the README should show its screenshots: ${JSON.stringify(loaded)}`);
    for (const image of loaded) {
      assert.ok(image.src.startsWith(`${IMAGES_BASE}docs/images/`), `an image should point at docs/images/ under the package's image address: ${image.src}`);
      assert.ok(image.width > 0, `the image "${image.alt}" (${image.src}) should have loaded in the Extensions view`);
    }
    assert.deepEqual([...new Set(served)].sort(), [...new Set(loaded.map((i) => i.src.slice(IMAGES_BASE.length)))].sort(), 'the images came from the repository');
    const icon = editor.locator('.header .icon-container img.icon').first();
    await wb.until(async () => (await icon.evaluate((img) => img.naturalWidth).catch(() => 0)) > 0, 'the extension icon to load');
    assert.match(await editor.locator('.header').innerText(), /Preview/, 'the page marks the extension as a preview');

    await wb.mouseAway();
    await screenshot(); // the page: icon, name, preview badge, categories, the README with its first screenshot
  },
});

// ---- the walkthrough: each step done from its own button -----------------------------------------------------

const WALKTHROUGH = 'checkpoint.gettingStarted';

flows.push({
  name: 'the walkthrough: each step done from its button shows as completed',
  slug: 'walkthrough',
  checkpoints: false,
  async run({ wb, page, workspace, memoryDir, screenshot }) {
    const step = (id) => page.locator(`.getting-started-step[data-step-id$="#${WALKTHROUGH}#${id}"]`);
    const checkbox = (id) => page.locator(`[data-done-step-id$="#${WALKTHROUGH}#${id}"]`);
    const completed = async (id) => (await checkbox(id).getAttribute('aria-checked')) === 'true';
    /**
     * Expands the step, waits until its text beside it is shown (that webview takes the focus when it loads, which
     * would close a quick pick opened before), then presses the button its description ends with.
     */
    const press = async (id, button) => {
      await step(id).locator('.step-title').click();
      const heading = /^# (.+)$/m.exec(readFileSync(join(repoRoot, 'media', 'walkthrough', `${id}.md`), 'utf8'))[1];
      await webviewFrame(wb, heading, `the text of the step "${id}" beside it`);
      await wb.visible(step(id).locator('.monaco-button', { hasText: button }), `the "${button}" button of the step "${id}"`);
      await step(id).locator('.monaco-button', { hasText: button }).click();
    };

    await wb.runCommand('Welcome: Open Walkthrough...');
    await wb.focusOption(/^Get Started with Checkpoint/);
    await wb.page.keyboard.press('Enter');
    await wb.visible(step('save'), 'the walkthrough "Get Started with Checkpoint"');
    for (const id of ['save', 'view', 'agent', 'resume']) assert.equal(await completed(id), false, `the step "${id}" should start not completed`);
    await webviewFrame(wb, 'Save where you stopped', "the save step's text beside it");

    // 1. Save a checkpoint: the Save form, from the step's button.
    await press('save', 'Save a Checkpoint');
    await fillSaveForm(wb, { name: 'first-steps', leftOff: 'Walkthrough started; the view is next' });
    assertBullet(memoryDir, 'first-steps', 'Walkthrough started; the view is next');
    await wb.until(() => completed('save'), 'the step "Save a checkpoint" to show as completed');
    await wb.clearNotifications();

    // 2. The Checkpoints view: the step's button shows it, with the checkpoint just saved.
    await press('view', 'Show the Checkpoints View');
    await wb.visible(wb.treeItem('first-steps'), 'first-steps in the Checkpoints view');
    await wb.until(() => completed('view'), 'the step "Find it in the Checkpoints view" to show as completed');

    // 3. Connect your agent: Claude Code, for this workspace, after the dialog that says what is added.
    await press('agent', 'Connect Claude Code');
    await wb.waitForQuickInput({ title: 'Connect Claude Code' }, 'the choice of Claude Code settings');
    // The step's text beside it (a webview) may take the keyboard focus as it loads, after the pick opened: the pick
    // stays open (ignoreFocusOut) and the entry is clicked, as a person would, instead of pressing Enter wherever the
    // focus is. The pick closing is the sign the choice was taken.
    await wb.quickInput.locator('.quick-input-list [role="option"]', { hasText: 'This workspace' }).click();
    await wb.waitForQuickInputClosed();
    const dialog = page.locator('.monaco-dialog-box').last();
    await wb.visible(dialog, 'the dialog that says what Connect adds');
    assert.match(await dialog.innerText(), /Connect Claude Code to Checkpoint\?/);
    await dialog.getByRole('button', { name: 'Connect', exact: true }).click();
    await wb.visible(wb.notification(/^Claude Code is connected: /), 'the "Claude Code is connected" notification');
    const settings = read(join(workspace, '.claude', 'settings.json')) ?? '';
    assert.match(settings, /checkpoint hook session-start/, `the workspace's Claude Code settings should run the hook:\n${settings}`);
    await wb.until(() => completed('agent'), 'the step "Connect your agent" to show as completed');
    await wb.clearNotifications();

    // 4. Resume: the only checkpoint is resumed at once and consumed.
    await press('resume', 'Resume a Checkpoint');
    await wb.visible(wb.notification(/^Resumed "first-steps": Walkthrough started; the view is next\. Moved to trash\./), 'the "Resumed" notification');
    await wb.until(() => !existsSync(checkpointFile(memoryDir, 'first-steps')), 'the resumed checkpoint to leave the memory folder');

    // Back to the walkthrough's tab (the resumed checkpoint opened beside it): every step ticked.
    await wb.editorTab('Welcome').click();
    await wb.until(() => completed('resume'), 'the step "Resume" to show as completed');
    for (const id of ['save', 'view', 'agent', 'resume']) assert.equal(await completed(id), true, `the step "${id}" should show as completed`);
    await wb.clearNotifications();
    await wb.mouseAway();
    await screenshot(); // the walkthrough with its four steps ticked
  },
});
