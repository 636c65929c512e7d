// What proper-lockfile gets for `require('graceful-fs')` in dist/proper-lockfile.js (scripts/build.mjs): Node's
// own fs. graceful-fs would patch fs.close and fs.closeSync of the process on load, and in the editor that process
// is the extension host every extension shares. The lock needs no retry on EMFILE: it opens no file.
// eslint-disable-next-line no-restricted-syntax -- the module itself is what this file stands for
import fs = require('node:fs');

export = fs;
