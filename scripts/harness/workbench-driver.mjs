// What a person does in the workbench, on request of an integration test: answer a modal dialog, press a
// notification's button. The tests run inside the extension host and cannot reach the page; the runner serves
// these actions on 127.0.0.1 (its address is $CHECKPOINT_TEST_DRIVER in the extension host) and performs them with
// Playwright in the real page. Each request waits for the dialog or notification to appear (Playwright's own
// waiting, no fixed sleep) and answers with the text the person read.
//
//   POST / {"action":"dialog","button":"Save"}                         -> {"text":"<title and message>"}
//   POST / {"action":"notification","text":"Resumed","button":"Copy…"} -> {"text":"<message>","buttons":["…"],"count":1}
//     (without "button": only read it; count: the visible notifications showing that text)
//   POST / {"action":"count","text":"Previously failed"}               -> {"count":1}
//   POST / {"action":"text","selector":".css","text":"…"}              -> {"text":"<the element's text>"}
import { createServer } from 'node:http';

const WAIT_MS = 15_000;

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

/** @param {import('playwright-core').Page} page */
async function perform(page, request) {
  if (request.action === 'dialog') {
    const dialog = page.locator('.monaco-dialog-box').last();
    await dialog.waitFor({ state: 'visible', timeout: WAIT_MS });
    const text = await dialog.innerText();
    if (request.button) await dialog.getByRole('button', { name: request.button, exact: true }).click({ timeout: WAIT_MS });
    return { text };
  }
  if (request.action === 'notification') {
    const toast = page.locator('.notification-toast', { hasText: String(request.text ?? '') }).last();
    await toast.waitFor({ state: 'visible', timeout: WAIT_MS });
    const text = await toast.locator('.notification-list-item-message').innerText();
    const buttons = await toast.locator('.notification-list-item-buttons-container .monaco-button').allInnerTexts();
    const count = await page.locator('.notification-toast', { hasText: String(request.text ?? '') }).count();
    if (request.button) await toast.getByRole('button', { name: request.button, exact: true }).click({ timeout: WAIT_MS });
    return { text, buttons: buttons.map((b) => b.trim()), count };
  }
  if (request.action === 'count') {
    return { text: '', count: await page.locator('.notification-toast', { hasText: String(request.text ?? '') }).count() };
  }
  if (request.action === 'text') {
    const element = page.locator(String(request.selector), { hasText: String(request.text ?? '') }).first();
    await element.waitFor({ state: 'visible', timeout: WAIT_MS });
    return { text: await element.innerText() };
  }
  throw new Error(`unknown action ${JSON.stringify(request.action)}`);
}
