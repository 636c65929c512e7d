'use strict';
// A stand-in for the `vscode` module, for timing require() and activate() outside VS Code (a benchmark, not a test):
// every property is a callable, constructible stub; a few values an extension reads at activation are real
// (one trusted workspace folder, configuration defaults, an ExtensionContext with Mementos).
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');

/** The top-level names of the `vscode` API (namespaces, classes, enums, functions, constants) from @types/vscode. */
function apiNames() {
  try {
    const dts = fs.readFileSync(require.resolve('@types/vscode/index.d.ts', { paths: [path.join(__dirname, '..', '..')] }), 'utf8');
    return [...new Set([...dts.matchAll(/^\texport (?:namespace|class|enum|const|function|let) (\w+)/gm)].map((m) => m[1]))];
  } catch {
    return ['window', 'workspace', 'commands', 'languages', 'extensions', 'env', 'scm', 'tasks', 'debug', 'l10n', 'Uri', 'EventEmitter', 'Disposable', 'TreeItem', 'ThemeIcon', 'ThemeColor', 'MarkdownString', 'RelativePattern'];
  }
}

function makeStub(name) {
  const base = function () {};
  const protoCache = new Map();
  base.prototype = new Proxy(
    {},
    {
      get(t, prop) {
        if (typeof prop === 'symbol' || prop === 'then' || prop === 'constructor') return t[prop];
        if (!protoCache.has(prop)) protoCache.set(prop, makeStub(`${name}#${prop}`));
        return protoCache.get(prop);
      },
    },
  );
  const cache = new Map();
  return new Proxy(base, {
    get(t, prop) {
      if (prop === 'then') return undefined; // never a thenable
      if (prop === 'prototype') return t.prototype;
      if (prop === Symbol.iterator) return function* () {};
      if (prop === Symbol.toPrimitive) return () => '';
      if (typeof prop === 'symbol') return t[prop];
      if (prop === 'length') return 0;
      if (prop === 'toString') return () => `[stub ${name}]`;
      if (!cache.has(prop)) cache.set(prop, makeStub(`${name}.${prop}`));
      return cache.get(prop);
    },
    set(t, prop, value) {
      cache.set(prop, value);
      return true;
    },
    apply(t, thisArg, args) {
      // `get(key, defaultValue)` of configurations and Mementos: the default.
      if (name.endsWith('.get') && args.length >= 2) return args[1];
      return makeStub(`${name}()`);
    },
    construct(t, args, newTarget) {
      return Reflect.construct(base, args, newTarget);
    },
  });
}

function fileUri(fsPath) {
  return {
    scheme: 'file',
    authority: '',
    path: fsPath,
    fsPath,
    query: '',
    fragment: '',
    toString: () => `file://${fsPath}`,
    with: () => fileUri(fsPath),
    toJSON: () => ({ scheme: 'file', path: fsPath }),
  };
}

function memento() {
  const m = new Map();
  return {
    get: (k, d) => (m.has(k) ? m.get(k) : d),
    update: async (k, v) => void m.set(k, v),
    keys: () => [...m.keys()],
    setKeysForSync: () => undefined,
  };
}

/** The extension's package.json (what VS Code hands it as `context.extension.packageJSON`), else {}. */
function manifest(extensionPath) {
  try {
    return JSON.parse(fs.readFileSync(path.join(extensionPath, 'package.json'), 'utf8'));
  } catch {
    return {};
  }
}

/** Installs the stub as `require('vscode')`. Returns it and a matching ExtensionContext. */
function installVscodeStub({ workspace, extensionPath }) {
  // A plain object with every API name as an own property: bundlers copy a module's own properties into their
  // namespace objects (esbuild's __toESM), which a Proxy without ownKeys would not survive.
  const vscode = {};
  for (const name of apiNames()) vscode[name] = makeStub(`vscode.${name}`);
  const configuration = { get: (k, d) => d, has: () => false, inspect: () => undefined, update: async () => undefined };
  vscode.version = '1.100.0';
  vscode.workspace.workspaceFolders = workspace ? [{ uri: fileUri(workspace), name: path.basename(workspace), index: 0 }] : undefined;
  vscode.workspace.isTrusted = true;
  vscode.workspace.getConfiguration = () => configuration;
  vscode.Uri.file = fileUri;
  vscode.Uri.joinPath = (u, ...parts) => fileUri(path.join(u.fsPath, ...parts));
  vscode.TreeItemCollapsibleState = { None: 0, Collapsed: 1, Expanded: 2 };
  vscode.StatusBarAlignment = { Left: 1, Right: 2 };
  vscode.ConfigurationTarget = { Global: 1, Workspace: 2, WorkspaceFolder: 3 };
  vscode.ExtensionMode = { Production: 1, Development: 2, Test: 3 };

  const filename = path.join(__dirname, '__vscode_stub__.js');
  const mod = new Module(filename, module);
  mod.filename = filename;
  mod.loaded = true;
  mod.exports = vscode;
  require.cache[filename] = mod;
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    return request === 'vscode' ? filename : resolve.call(this, request, ...rest);
  };

  const storage = path.join(workspace ?? extensionPath, '.bench-storage');
  const context = {
    subscriptions: [],
    extensionPath,
    extensionUri: fileUri(extensionPath),
    extensionMode: 1,
    globalState: memento(),
    workspaceState: memento(),
    secrets: { get: async () => undefined, store: async () => undefined, delete: async () => undefined, onDidChange: () => ({ dispose() {} }) },
    storageUri: fileUri(path.join(storage, 'workspace')),
    storagePath: path.join(storage, 'workspace'),
    globalStorageUri: fileUri(path.join(storage, 'global')),
    globalStoragePath: path.join(storage, 'global'),
    logUri: fileUri(path.join(storage, 'log')),
    logPath: path.join(storage, 'log'),
    asAbsolutePath: (p) => path.join(extensionPath, p),
    environmentVariableCollection: makeStub('environmentVariableCollection'),
    extension: { id: 'checkpoint-dev.checkpoint-for-agents', extensionPath, extensionUri: fileUri(extensionPath), packageJSON: manifest(extensionPath), isActive: false },
    languageModelAccessInformation: makeStub('languageModelAccessInformation'),
  };
  return { vscode, context };
}

module.exports = { installVscodeStub };
