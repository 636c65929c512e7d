// Renders media/icon.svg to media/icon.png (128×128, the size the Marketplace and Open VSX show) in the same
// Chromium the end-to-end tests use. Run it after changing the SVG: `node scripts/icon.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser } from './harness/code-server.mjs';
import { ensureVSCodeEnv } from './harness/vscode-env.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const svg = readFileSync(join(root, 'media', 'icon.svg'), 'utf8');
await ensureVSCodeEnv({ quiet: true });
const browser = await launchBrowser();
try {
  const page = await browser.newPage({ viewport: { width: 128, height: 128 }, deviceScaleFactor: 1 });
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
  const png = await page.locator('svg').screenshot({ omitBackground: true });
  writeFileSync(join(root, 'media', 'icon.png'), png);
  console.log(`media/icon.png: ${png.length} bytes`);
} finally {
  await browser.close();
}
