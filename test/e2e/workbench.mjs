// Drives VS Code's web workbench (1.139, served by code-server) the way a person does: keyboard in the
// command palette and quick inputs, clicks on the activity bar, tree rows, inline actions, notification
// buttons and the status bar. Every wait polls a condition with a timeout; none sleeps a fixed time.
// While waiting, an error notification from the Checkpoint extension fails the wait at once with its text.

const DEFAULT_TIMEOUT = 20_000;
const POLL_MS = 100;

/** Escapes text for use inside a RegExp. */
export const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A RegExp matching the whole of `text`. */
export const exactly = (text) => new RegExp(`^${escapeRe(text)}$`);

const matches = (value, want) => (want instanceof RegExp ? want.test(value ?? '') : value === want);
const describe = (want) => (want instanceof RegExp ? String(want) : JSON.stringify(want));

export class Workbench {
  /**
   * @param {import('playwright-core').Page} page a page from openWorkbench()
   * @param {{ timeout?: number, extensionSource?: string }} [opts] extensionSource: the "Source:" shown on the
   *   extension's notifications (its displayName)
   */
  constructor(page, { timeout = DEFAULT_TIMEOUT, extensionSource = 'Checkpoint' } = {}) {
    this.page = page;
    this.timeout = timeout;
    this.extensionSource = extensionSource;
  }

  // ---- waiting ----------------------------------------------------------------------------------

  /** Texts of the error notifications the extension is showing (toasts). */
  async extensionErrors() {
    return this.page
      .locator('.notifications-toasts .notification-list-item')
      .filter({ has: this.page.locator('.notification-list-item-icon.codicon-error') })
      .filter({ has: this.page.locator('.notification-list-item-source', { hasText: this.extensionSource }) })
      .locator('.notification-list-item-message')
      .allInnerTexts()
      .catch(() => []);
  }

  /**
   * Polls `check` until it returns a truthy value (returned), or fails after `timeout` ms with `what`.
   * Fails early when the extension shows an error notification.
   */
  async until(check, what, { timeout = this.timeout } = {}) {
    const end = Date.now() + timeout;
    let lastError;
    for (;;) {
      try {
        const v = await check();
        if (v) return v;
        lastError = undefined;
      } catch (err) {
        lastError = err;
      }
      const errors = await this.extensionErrors();
      if (errors.length) throw new Error(`the extension showed an error while waiting for ${what}: "${errors.join('" / "')}"`);
      if (Date.now() > end) {
        throw new Error(`timed out after ${timeout} ms waiting for ${what}${lastError ? ` (last error: ${lastError.message.split('\n')[0]})` : ''}`);
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /** Waits until `locator` (first match) is visible. */
  /**
   * Rests the mouse on `target` until its tooltip `tip` shows, moving it off and back as a person does when a
   * tooltip does not come up (a hover begun while the row re-rendered, or closed by a toast, never shows).
   */
  async hoverUntil(target, tip, what, { timeout = this.timeout } = {}) {
    let tries = 0;
    await this.until(
      async () => {
        if (tries++ > 0) await this.mouseAway();
        await target.hover();
        return tip.first().waitFor({ state: 'visible', timeout: 4_000 }).then(
          () => true,
          () => false,
        );
      },
      what,
      { timeout },
    );
    return tip.first();
  }

  async visible(locator, what, opts) {
    await this.until(() => locator.first().isVisible(), what, opts);
    return locator.first();
  }

  /** Waits until no element of `locator` is visible. */
  async gone(locator, what, opts) {
    await this.until(async () => !(await locator.first().isVisible().catch(() => false)), what, opts);
  }

  // ---- layout -----------------------------------------------------------------------------------

  /** Drags the sash between the side bar and the editor to make the side bar `width` px wide (best effort). */
  async widenSideBar(width = 420) {
    const box = await this.page.locator('.part.sidebar').boundingBox();
    if (!box || box.width >= width) return;
    const sash = this.page.locator('.monaco-sash.vertical').filter({ visible: true });
    const handles = await sash.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON()));
    const edge = box.x + box.width;
    const h = handles.find((r) => Math.abs(r.x + r.width / 2 - edge) < 6);
    if (!h) return;
    const x = h.x + h.width / 2;
    const y = box.y + box.height / 2;
    await this.page.mouse.move(x, y);
    await this.page.mouse.down();
    await this.page.mouse.move(x + (width - box.width) / 2, y, { steps: 4 });
    await this.page.mouse.move(x + (width - box.width), y, { steps: 4 });
    await this.page.mouse.up();
    await this.mouseAway();
    await this.until(async () => ((await this.page.locator('.part.sidebar').boundingBox())?.width ?? 0) > box.width, 'the side bar to widen', {
      timeout: 5000,
    }).catch(() => {});
    // The sash stays highlighted (and fades out) for a moment after a drag: wait until it is plain again,
    // so screenshots do not show a blue bar at the side bar's edge.
    await this.until(
      () =>
        this.page.evaluate(() =>
          [...document.querySelectorAll('.monaco-sash')].every(
            (e) => !e.classList.contains('hover') && !e.classList.contains('active') && e.getAnimations({ subtree: true }).length === 0,
          ),
        ),
      'the sash highlight to fade',
      { timeout: 5000 },
    ).catch(() => {});
  }

  /** Moves the mouse off any widget, so no hover is left over in a screenshot. */
  async mouseAway() {
    const vp = this.page.viewportSize() ?? { width: 1400, height: 900 };
    await this.page.mouse.move(vp.width / 2, vp.height / 2);
  }

  async screenshot(path) {
    await this.page.screenshot({ path });
  }

  // ---- command palette and quick inputs --------------------------------------------------------

  get quickInput() {
    return this.page.locator('.quick-input-widget');
  }

  get quickInputBox() {
    return this.quickInput.locator('.quick-input-box input');
  }

  /** The row of the open quick pick that has keyboard focus. */
  get focusedOption() {
    return this.quickInput.locator('.quick-input-list [role="option"].focused');
  }

  /** Opens the command palette with F1, types `title` and runs the command with Enter once it is the focused entry. */
  async runCommand(title) {
    await this.page.keyboard.press('F1');
    await this.visible(this.quickInputBox, 'the command palette');
    await this.until(async () => (await this.quickInputBox.inputValue()).startsWith('>'), 'the command palette\'s ">"');
    await this.page.keyboard.type(title);
    // "Checkpoint: Save" also matches "Checkpoint: Save to Plan…" and "Checkpoint: Compare with Saved HEAD", which the
    // palette may rank first: wait until the exact command is listed, then move the focus to it as a person would.
    const want = new RegExp(`^${escapeRe(title)}(,|$)`);
    await this.until(
      async () => (await this.quickPickOptions()).some((o) => matches(o, want)),
      `"${title}" to be listed in the command palette`,
    );
    await this.focusOption(want);
    await this.page.keyboard.press('Enter');
  }

  /**
   * Waits for a quick input (step of a multi-step input or a pick) whose title matches `title` and, when
   * given, whose message (prompt/validation) or placeholder matches.
   */
  async waitForQuickInput({ title, message, placeholder } = {}, what = 'a quick input') {
    await this.until(async () => {
      if (!(await this.quickInput.isVisible())) return false;
      if (title !== undefined && !matches(await this.quickInput.locator('.quick-input-title').innerText({ timeout: 500 }), title)) return false;
      if (message !== undefined) {
        const m = this.quickInput.locator('.quick-input-message');
        if (!(await m.isVisible()) || !matches(await m.innerText({ timeout: 500 }), message)) return false;
      }
      if (placeholder !== undefined && !matches(await this.quickInputBox.getAttribute('placeholder', { timeout: 500 }), placeholder)) return false;
      return true;
    }, `${what} (title ${describe(title)}${message ? `, message ${describe(message)}` : ''}${placeholder ? `, placeholder ${describe(placeholder)}` : ''})`);
  }

  /** The text under the quick input's box (its prompt, or the validation message). */
  async quickInputMessage() {
    const m = this.quickInput.locator('.quick-input-message');
    return (await m.isVisible()) ? m.innerText() : '';
  }

  /** Replaces the quick input's text (Ctrl+A, then typing), and waits until the box shows it. */
  async typeInQuickInput(text) {
    await this.quickInputBox.focus();
    await this.page.keyboard.press('Control+A');
    if (text) await this.page.keyboard.type(text);
    else await this.page.keyboard.press('Backspace');
    await this.until(async () => (await this.quickInputBox.inputValue()) === text, `the quick input to hold ${JSON.stringify(text)}`);
  }

  /** Presses Enter in the quick input (callers then wait for what comes next: a step, a pick, or nothing). */
  async acceptQuickInput() {
    await this.page.keyboard.press('Enter');
  }

  /**
   * Chooses an entry of the open quick pick with the keyboard: types `filter` (if given) to narrow the list,
   * waits until the focused row's accessible name matches `label`, presses Enter.
   */
  async pick(label, { filter } = {}) {
    if (filter !== undefined) await this.typeInQuickInput(filter);
    await this.until(
      async () => matches(await this.focusedOption.getAttribute('aria-label', { timeout: 500 }), label),
      `the quick pick entry ${describe(label)} to be focused`,
    );
    await this.page.keyboard.press('Enter');
  }

  /**
   * Moves the keyboard focus of the open quick pick down (ArrowDown, as a person would) until the focused
   * row's accessible name matches `label`.
   */
  async focusOption(label, { max = 20 } = {}) {
    const focused = () => this.focusedOption.getAttribute('aria-label', { timeout: 500 }).catch(() => null);
    for (let i = 0; i <= max; i++) {
      const now = await focused();
      if (matches(now, label)) return;
      await this.page.keyboard.press('ArrowDown');
      await this.until(async () => (await focused()) !== now, 'the quick pick focus to move', { timeout: 2000 }).catch(() => {});
    }
    throw new Error(`no quick pick entry ${describe(label)}: ${JSON.stringify(await this.quickPickOptions())}`);
  }

  /** Accessible names of the open quick pick's rows. */
  async quickPickOptions() {
    return this.quickInput.locator('.quick-input-list [role="option"]').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
  }

  async waitForQuickInputClosed() {
    await this.gone(this.quickInput, 'the quick input to close');
  }

  // ---- views ------------------------------------------------------------------------------------

  /** The activity bar entry of a view container, by its title. */
  activityBarItem(title) {
    return this.page.locator(`.part.activitybar a.action-label[aria-label="${title}"], .part.activitybar a.action-label[aria-label^="${title} ("]`);
  }

  /** Clicks a view container's icon in the activity bar (unless its side bar is already showing). */
  async openViewContainer(title) {
    const icon = await this.visible(this.activityBarItem(title), `the "${title}" icon in the activity bar`);
    const showing = await this.page
      .locator('.part.sidebar .composite.title .title-label')
      .first()
      .innerText({ timeout: 1000 })
      .then((t) => t.trim().toLowerCase() === title.toLowerCase(), () => false);
    if (!showing) await icon.click();
    await this.until(
      async () => (await this.page.locator('.part.sidebar .composite.title .title-label').first().innerText({ timeout: 500 })).trim().toLowerCase() === title.toLowerCase(),
      `the "${title}" side bar`,
    );
  }

  /** A row of a tree in the side bar, by its label (exact text). */
  treeItem(label) {
    return this.page
      .locator('.part.sidebar [role="treeitem"]')
      .filter({ has: this.page.locator('.label-name', { hasText: label instanceof RegExp ? label : exactly(label) }) });
  }

  /** Labels (and descriptions) of the side bar's tree rows, top to bottom. */
  async treeRows() {
    return this.page.locator('.part.sidebar [role="treeitem"]').evaluateAll((els) =>
      els
        .sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index))
        .map((e) => ({
          label: e.querySelector('.label-name')?.textContent ?? '',
          description: e.querySelector('.label-description')?.textContent ?? '',
          ariaLabel: e.getAttribute('aria-label') ?? '',
          level: Number(e.getAttribute('aria-level')),
        })),
    );
  }

  /**
   * Waits until the side bar's tree stops changing (same rows at the same places over a few polls): rows
   * can still move just after the first render, when the tree re-renders (e.g. once the branch is read).
   */
  async treeSettled() {
    let last;
    let same = 0;
    await this.until(async () => {
      const now = JSON.stringify(
        await this.page.locator('.part.sidebar [role="treeitem"]').evaluateAll((els) =>
          els.map((e) => [e.getAttribute('aria-label'), e.style.top, e.querySelector('.custom-view-tree-node-item-icon')?.className]),
        ),
      );
      same = now === last ? same + 1 : 0;
      last = now;
      return same >= 3;
    }, 'the tree to settle');
  }

  /** The inline action (icon button shown on hover) of a tree row, by its accessible name. */
  inlineAction(row, name) {
    return row.locator(`.actions a.action-label[aria-label="${name}"], .actions a.action-label[aria-label^="${name} ("]`);
  }

  /** Hovers a tree row until its inline action `name` shows (hovering again if the row moved away). */
  async hoverForInlineAction(row, name) {
    const action = this.inlineAction(row, name);
    await this.until(async () => {
      if (await action.isVisible()) return true;
      await row.hover({ timeout: 2000 });
      return action.isVisible();
    }, `the inline "${name}" action of the hovered row`);
    return action;
  }

  /** A button of a view's welcome content (e.g. "Save a Checkpoint"). */
  welcomeButton(label) {
    return this.page.locator('.part.sidebar .welcome-view-content').getByRole('button', { name: label, exact: true });
  }

  // ---- notifications ----------------------------------------------------------------------------

  /** Notification toasts whose message matches `text`. */
  notification(text) {
    return this.page.locator('.notifications-toasts .notification-list-item').filter({
      has: this.page.locator('.notification-list-item-message', { hasText: text }),
    });
  }

  notificationButton(text, button) {
    return this.notification(text).locator('.notification-list-item-buttons-container').getByRole('button', { name: button, exact: true });
  }

  /** Closes every toast with its close (×) button, so later screenshots and waits are not confused. */
  async clearNotifications() {
    const clear = this.page.locator('.notifications-toasts .notification-list-item a.codicon-notifications-clear');
    for (let i = 0; i < 10 && (await clear.count()) > 0; i++) {
      await clear.first().click({ force: true, timeout: 2000 }).catch(() => {});
    }
  }

  // ---- status bar and editors -------------------------------------------------------------------

  /** A status bar entry by its id (`<publisher>.<extension>.<item id>` for extension items). */
  statusBarItem(id) {
    return this.page.locator(`.part.statusbar .statusbar-item[id="${id}"]`);
  }

  /** The editor tab whose accessible name matches `label`. */
  editorTab(label) {
    return this.page.locator('.part.editor .tabs-container [role="tab"]').filter({
      has: this.page.locator('.tab-label .label-name', { hasText: label }),
    });
  }

  /** The text of every editor tab (its label, and a description when two tabs share a name), in every group. */
  async editorTabTexts() {
    // textContent: the name and its extension are separate elements, which innerText would split with a line break.
    const texts = await this.page.locator('.part.editor [role="tab"] .tab-label').evaluateAll((els) => els.map((e) => e.textContent ?? ''));
    return texts.map((t) => t.replace(/\s+/g, ' ').trim());
  }

  /** Waits until an editor tab's text matches `want` (a RegExp); returns the texts of all tabs. */
  async editorTabShown(want, what) {
    let texts = [];
    return this.until(async () => {
      texts = await this.editorTabTexts();
      return texts.some((t) => want.test(t)) && texts;
    }, what).catch((err) => {
      throw new Error(`${err.message}; the tabs: ${JSON.stringify(texts)}`);
    });
  }

  /** The visible text of every Markdown preview (each is a webview: nested iframes). */
  async markdownPreviewText() {
    const texts = [];
    for (const frame of this.page.frames()) {
      const parent = frame.parentFrame();
      if (!parent || !parent.url().includes('extensionId=vscode.markdown-language-features')) continue;
      texts.push(await frame.locator('body').innerText({ timeout: 1000 }).catch(() => ''));
    }
    return texts.join('\n');
  }
}
