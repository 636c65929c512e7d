// Entry point for @vscode/test-electron (`npm run test:electron`, on machines that can download VS Code):
// runs the same compiled mocha suites as the code-server runner.
const path = require('node:path');
const fs = require('node:fs');
const Mocha = require('mocha');

exports.run = function run() {
  const mocha = new Mocha({ ui: 'bdd', timeout: 20000, color: true });
  const dir = path.resolve(__dirname, '..', '..', 'out', 'test', 'integration');
  for (const f of fs.readdirSync(dir, { recursive: true })) {
    if (String(f).endsWith('.test.js')) mocha.addFile(path.join(dir, String(f)));
  }
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures ? reject(new Error(`${failures} tests failed.`)) : resolve()));
  });
};
