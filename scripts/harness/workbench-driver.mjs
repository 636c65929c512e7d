// What a person does in the workbench, on request of an integration test: answer a modal dialog, press a
// notification's button. The tests run inside the extension host and cannot reach the page; the runner serves
// these actions on 127.0.0.1 (its address is $CHECKPOINT_TEST_DRIVER in the extension host) and performs them with
// Playwright in the real page. Each request waits for the dialog or notification to appear (Playwright's own
// waiting, no fixed sleep) and answers with the text the person read.
//
//   POST / {"action":"dialog","button":"Save"}                         -> {"text":"<title and message>"}
//   POST / {"action":"notification","text":"Resumed","button":"Copy…"} -> {"text":"<message>","buttons":["…"],"count":1,"where":"toast"}
//     (without "button": only read it; count: the visible notifications showing that text; where: toast or center)
//   POST / {"action":"count","text":"Previously failed"}               -> {"count":1}
//
// VS Code does not toast a notification that comes fourth within 800 ms of the first of a burst (its toasts' rate
// limit): it only lists it in the notification center. A notification that does not toast within TOAST_MS is looked
// for there, as a person does who clicks the bell, and the center is closed again afterwards (while it is open, new
// notifications do not toast). A count that follows such a notification is taken in the center too.
import { createServer } from 'node:http';

const WAIT_MS = 15_000;
/** How long a notification may take to toast before it is looked for in the notification center. */
const TOAST_MS = 3_000;

/**
 * Starts the driver; `page()` returns the workbench page (undefined until it is open).
 * @param {() => import('playwright-core').Page | undefined} page
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
export async function startWorkbenchDriver(page) {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const reply = (status, data) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(data));
      };
      let request;
      try {
        request = JSON.parse(body);
      } catch {
        return reply(400, { error: 'the request is not JSON' });
      }
      const p = page();
      if (!p) return reply(503, { error: 'the workbench page is not open' });
      perform(p, request).then(
        (data) => reply(200, data),
        (err) => reply(500, { error: err instanceof Error ? err.message : String(err) }),
      );
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // the extension host's kept-alive connections
      }),
  };
}

const TOAST = '.notification-toast';
const CENTER_ITEM = '.notifications-center .notification-list-item';
const BELL = '[id="status.notifications"]';

/** @param {import('playwright-core').Page} page */
async function centerOpen(page) {
  return page.locator('.notifications-center.visible').isVisible();
}

/** Clicks the bell in the status bar (it toggles the notification center) if the center is not as wanted. */
async function showCenter(page, open) {
  if ((await centerOpen(page)) === open) return;
  await page.locator(BELL).first().click({ timeout: WAIT_MS });
  await page.locator('.notifications-center.visible').waitFor({ state: open ? 'visible' : 'hidden', timeout: WAIT_MS });
}

/**
 * The notification showing `text`: its toast, or (not toasted within TOAST_MS) its item in the notification center,
 * opened for it. Returns the element and where it was.
 * @param {import('playwright-core').Page} page
 */
async function findNotification(page, text) {
  await showCenter(page, false);
  const toast = page.locator(TOAST, { hasText: text }).last();
  const toasted = await toast.waitFor({ state: 'visible', timeout: TOAST_MS }).then(
    () => true,
    () => false,
  );
  if (toasted) return { element: toast, where: 'toast' };
  await showCenter(page, true);
  const item = page.locator(CENTER_ITEM, { hasText: text }).first(); // the center lists the newest first
  await item.waitFor({ state: 'visible', timeout: WAIT_MS });
  return { element: item, where: 'center' };
}

/** Where the last notification was read: a count that follows it looks there. */
let lastWhere = 'toast';

/** @param {import('playwright-core').Page} page */
async function perform(page, request) {
  const text = String(request.text ?? '');
  if (request.action === 'dialog') {
    const dialog = page.locator('.monaco-dialog-box').last();
    await dialog.waitFor({ state: 'visible', timeout: WAIT_MS });
    const said = await dialog.innerText();
    if (request.button) await dialog.getByRole('button', { name: request.button, exact: true }).click({ timeout: WAIT_MS });
    return { text: said };
  }
  if (request.action === 'notification') {
    const { element, where } = await findNotification(page, text);
    lastWhere = where;
    try {
      const message = await element.locator('.notification-list-item-message').innerText();
      const buttons = await element.locator('.notification-list-item-buttons-container .monaco-button').allInnerTexts();
      const count = await page.locator(where === 'toast' ? TOAST : CENTER_ITEM, { hasText: text }).count();
      if (request.button) await element.getByRole('button', { name: request.button, exact: true }).click({ timeout: WAIT_MS });
      return { text: message, buttons: buttons.map((b) => b.trim()), count, where };
    } finally {
      await showCenter(page, false);
    }
  }
  if (request.action === 'count') {
    if (lastWhere === 'toast') return { text: '', count: await page.locator(TOAST, { hasText: text }).count() };
    await showCenter(page, true);
    try {
      return { text: '', count: await page.locator(CENTER_ITEM, { hasText: text }).count() };
    } finally {
      await showCenter(page, false);
    }
  }
  if (request.action === 'text') {
    const element = page.locator(String(request.selector), { hasText: String(request.text ?? '') }).first();
    await element.waitFor({ state: 'visible', timeout: WAIT_MS });
    return { text: await element.innerText() };
  }
  throw new Error(`unknown action ${JSON.stringify(request.action)}`);
}
