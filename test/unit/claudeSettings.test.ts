import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'jsonc-parser';
import { claudeTargets, connectClaude, disconnectClaude, hookProgram, pluginEnabledIn, isProductSkill, PLUGIN_ID, replaceSettingsIf, planConnect } from '../../src/core/claudeSettings';
import { connectSettingsText, disconnectSettingsText, isProductCommand, plannedHooks } from '../../src/core/claudeSettingsHooks';
import { shellQuote } from '../../src/core/escaping';
import { SKILL_TEXT } from '../../src/core/skill';
import { removeDir, tempDir } from '../support/fixtures';

const temps: string[] = [];
after(() => temps.forEach(removeDir));

const LAUNCHER = "'/home/me/.vscode/data/checkpoint/bin/checkpoint'";
const hooks = plannedHooks(LAUNCHER);

/** A settings file as a user has it: comments, other hooks (one sharing SessionStart), other settings, tabs. */
const USER_SETTINGS = `{
\t// my settings
\t"model": "opus",
\t"permissions": { "allow": ["Bash(npm test)"] },
\t"hooks": {
\t\t"SessionStart": [
\t\t\t{ "matcher": "startup", "hooks": [{ "type": "command", "command": "echo hello" }] }
\t\t],
\t\t"PreToolUse": [
\t\t\t{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "./guard.sh" }] } /* keep me */
\t\t]
\t}
}
`;

test('Connect on no settings file: the documented hooks structure, and nothing else', () => {
  const r = connectSettingsText(undefined, hooks);
  assert.equal(r.changed, true);
  assert.deepEqual(JSON.parse(r.text), {
    hooks: {
      SessionStart: [{ hooks: [{ type: 'command', command: `${LAUNCHER} hook session-start`, timeout: 10 }] }],
      PreCompact: [{ hooks: [{ type: 'command', command: `${LAUNCHER} hook pre-compact`, timeout: 10 }] }],
      PostCompact: [{ hooks: [{ type: 'command', command: `${LAUNCHER} hook post-compact`, timeout: 10 }] }],
    },
  });
});

test('Connect keeps other hooks, settings and comments; twice changes nothing; Disconnect restores the file byte for byte', () => {
  const once = connectSettingsText(USER_SETTINGS, hooks);
  assert.ok(once.text.includes('// my settings') && once.text.includes('/* keep me */'));
  const data = parse(once.text) as { model: string; permissions: unknown; hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]> };
  assert.equal(data.model, 'opus');
  assert.deepEqual(data.permissions, { allow: ['Bash(npm test)'] });
  assert.deepEqual(data.hooks.SessionStart.map((g) => g.hooks[0].command), ['echo hello', `${LAUNCHER} hook session-start`]);
  assert.deepEqual(data.hooks.PreToolUse[0].hooks[0].command, './guard.sh');
  assert.deepEqual(data.hooks.PreCompact[0].hooks[0].command, `${LAUNCHER} hook pre-compact`);
  const twice = connectSettingsText(once.text, hooks);
  assert.equal(twice.changed, false);
  assert.equal(twice.text, once.text);
  const off = disconnectSettingsText(once.text);
  assert.equal(off.removed, 3);
  assert.equal(off.text, USER_SETTINGS);
});

test('Connect after the launcher moved updates its own entries instead of adding more', () => {
  const first = connectSettingsText(USER_SETTINGS, plannedHooks('checkpoint')).text;
  const moved = connectSettingsText(first, hooks);
  const data = parse(moved.text) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
  assert.deepEqual(data.hooks.SessionStart.flatMap((g) => g.hooks.map((h) => h.command)), ['echo hello', `${LAUNCHER} hook session-start`]);
  assert.equal(data.hooks.PreCompact.length, 1);
});

test('Connect over a SessionStart hook of its own matching startup|resume|clear|compact (before fork existed) makes it match every source; a person\'s own matcher stays', () => {
  const old = JSON.stringify(
    {
      hooks: {
        SessionStart: [
          { matcher: 'startup', hooks: [{ type: 'command', command: 'echo hello' }] },
          { matcher: 'startup|resume|clear|compact', hooks: [{ type: 'command', command: `${LAUNCHER} hook session-start`, timeout: 10 }] },
        ],
        PreCompact: [{ hooks: [{ type: 'command', command: `${LAUNCHER} hook pre-compact`, timeout: 10 }] }],
      },
    },
    null,
    2,
  );
  const r = connectSettingsText(old, hooks);
  const data = parse(r.text) as { hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]> };
  assert.deepEqual(data.hooks.SessionStart.map((g) => g.matcher), ['startup', undefined]);
  assert.deepEqual(r.added.map((h) => h.event).filter((e) => e === 'SessionStart'), ['SessionStart']);
  assert.equal(connectSettingsText(r.text, hooks).changed, false);
});

test('a workspace\'s settings (often committed) get `checkpoint` by name; the user\'s own file gets the launcher\'s path', () => {
  assert.equal(hookProgram('workspace', LAUNCHER), 'checkpoint');
  assert.equal(hookProgram('user', LAUNCHER), LAUNCHER);
  // A workspace connected by an earlier version (the launcher's path): Connect points its entries at `checkpoint`.
  const before = connectSettingsText(USER_SETTINGS, hooks).text;
  const after = connectSettingsText(before, plannedHooks(hookProgram('workspace', LAUNCHER)));
  assert.ok(!after.text.includes('/home/me/'), after.text);
  assert.equal(disconnectSettingsText(after.text).text, USER_SETTINGS);
});

test('Disconnect removes only the product\'s entry from a group it shares with another hook', () => {
  const shared = JSON.stringify(
    { hooks: { PreCompact: [{ hooks: [{ type: 'command', command: './backup.sh' }, { type: 'command', command: 'checkpoint hook pre-compact', timeout: 10 }] }] } },
    null,
    2,
  );
  const off = disconnectSettingsText(shared);
  assert.equal(off.removed, 1);
  assert.deepEqual(JSON.parse(off.text), { hooks: { PreCompact: [{ hooks: [{ type: 'command', command: './backup.sh' }] }] } });
});

test('only the product\'s commands are recognized as its own', () => {
  for (const c of ['checkpoint hook session-start', `${LAUNCHER} hook pre-compact`, '"C:\\Users\\me\\bin\\checkpoint.cmd" hook session-end', '/usr/local/bin/checkpoint hook pre-compact']) assert.ok(isProductCommand(c), c);
  for (const c of ['mycheckpoint hook session-start', 'checkpoint hook stop', 'checkpoint save x', 'echo checkpoint hook', 5, undefined]) assert.ok(!isProductCommand(c), String(c));
});

test('the optional SessionEnd hook is added only when asked for', () => {
  assert.ok(!connectSettingsText(undefined, hooks).text.includes('SessionEnd'));
  const data = JSON.parse(connectSettingsText(undefined, plannedHooks('checkpoint', { sessionEnd: true })).text) as { hooks: Record<string, unknown> };
  assert.deepEqual(Object.keys(data.hooks), ['SessionStart', 'PreCompact', 'PostCompact', 'SessionEnd']);
});

test('a settings file that is not valid JSON: a clear error, and the file is untouched', async () => {
  const folder = tempDir();
  temps.push(folder);
  const targets = claudeTargets('workspace', folder);
  mkdirSync(path.dirname(targets.settingsFile), { recursive: true });
  for (const bad of ['{ "hooks": { "SessionStart": [ }', '{"a": 1} trailing', '[1, 2]', '{"hooks": []}']) {
    writeFileSync(targets.settingsFile, bad);
    await assert.rejects(connectClaude(targets, 'checkpoint'), (err: Error) => {
      assert.match(err.message, /settings\.json.*(not valid JSON \(.*line \d+, column \d+\)|not a JSON object|"hooks" is not an object).*left as it is/);
      return true;
    });
    assert.equal(readFileSync(targets.settingsFile, 'utf8'), bad);
    assert.equal(existsSync(targets.skillFile), false, 'nothing else is written either');
  }
});

test('connectClaude writes the settings and the skill; disconnectClaude removes both, and keeps a skill the user changed', async () => {
  const folder = tempDir();
  temps.push(folder);
  const targets = claudeTargets('workspace', folder);
  assert.equal(targets.settingsFile, path.join(folder, '.claude', 'settings.json'));
  assert.equal(targets.skillFile, path.join(folder, '.claude', 'skills', 'checkpoint', 'SKILL.md'));
  mkdirSync(path.dirname(targets.settingsFile), { recursive: true });
  writeFileSync(targets.settingsFile, USER_SETTINGS);
  const r = await connectClaude(targets, LAUNCHER);
  assert.deepEqual([r.settingsChanged, r.skillWritten, r.added.length], [true, true, 3]);
  assert.equal(readFileSync(targets.skillFile, 'utf8'), SKILL_TEXT);
  const again = await connectClaude(targets, LAUNCHER);
  assert.deepEqual([again.settingsChanged, again.skillWritten, again.added.length], [false, false, 0]);
  const off = await disconnectClaude(targets);
  assert.deepEqual([off.removedHooks, off.skillRemoved], [3, true]);
  assert.equal(readFileSync(targets.settingsFile, 'utf8'), USER_SETTINGS);
  assert.equal(existsSync(path.dirname(targets.skillFile)), false);

  await connectClaude(targets, LAUNCHER);
  writeFileSync(targets.skillFile, `${SKILL_TEXT}\nMy own note.\n`);
  const kept = await disconnectClaude(targets);
  assert.equal(kept.skillRemoved, false);
  assert.match(kept.skillKept ?? '', /was changed after it was installed/);
  assert.ok(existsSync(targets.skillFile));
});

test('user scope: Claude Code\'s configuration folder ($CLAUDE_CONFIG_DIR, else ~/.claude)', () => {
  assert.equal(claudeTargets('user', '/w', { HOME: '/h' }).settingsFile, path.join('/h', '.claude', 'settings.json'));
  assert.equal(claudeTargets('user', '/w', { HOME: '/h', CLAUDE_CONFIG_DIR: '/c' }).skillFile, path.join('/c', 'skills', 'checkpoint', 'SKILL.md'));
});

test('the Checkpoint plugin enabled in Claude Code\'s settings is found; a later settings file that turns it off wins', async () => {
  const home = tempDir('checkpoint-plugin-home-');
  const folder = tempDir('checkpoint-plugin-folder-');
  temps.push(home, folder);
  const env = { HOME: home, CLAUDE_CONFIG_DIR: path.join(home, '.claude') };
  assert.equal(await pluginEnabledIn(folder, env), undefined);
  mkdirSync(path.join(home, '.claude'));
  const user = path.join(home, '.claude', 'settings.json');
  writeFileSync(user, JSON.stringify({ enabledPlugins: { 'other@x': true, 'checkpoint@checkpoint': true } }));
  assert.equal(await pluginEnabledIn(folder, env), user);
  mkdirSync(path.join(folder, '.claude'));
  writeFileSync(path.join(folder, '.claude', 'settings.local.json'), '{ // off here\n "enabledPlugins": { "checkpoint@checkpoint": false } }');
  assert.equal(await pluginEnabledIn(folder, env), undefined);
  writeFileSync(path.join(folder, '.claude', 'settings.local.json'), 'not json');
  assert.equal(await pluginEnabledIn(folder, env), user, 'a file that cannot be parsed says nothing');
});

test('only this plugin counts: checkpoint@ of another marketplace is another plugin; the id is the marketplace file\'s', async () => {
  const marketplace = JSON.parse(readFileSync(path.resolve(__dirname, '..', '..', '..', '.claude-plugin', 'marketplace.json'), 'utf8')) as { name: string; plugins: { name: string }[] };
  assert.equal(PLUGIN_ID, `${marketplace.plugins[0].name}@${marketplace.name}`);
  const home = tempDir('checkpoint-plugin-home-');
  temps.push(home);
  const env = { HOME: home, CLAUDE_CONFIG_DIR: path.join(home, '.claude') };
  mkdirSync(path.join(home, '.claude'));
  writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ enabledPlugins: { 'checkpoint@someone-else': true } }));
  assert.equal(await pluginEnabledIn(undefined, env), undefined);
});

test('a settings file another writer changed after Connect read it is never replaced with the stale merge', async () => {
  const folder = tempDir();
  temps.push(folder);
  const file = path.join(folder, 'settings.json');
  writeFileSync(file, '{ "model": "a" }\n');
  const read = readFileSync(file, 'utf8');
  // Another writer (Claude Code's /config, say) saves between the read and the write.
  writeFileSync(file, '{ "model": "b", "theme": "dark" }\n');
  assert.equal(await replaceSettingsIf(file, read, '{ "model": "a", "hooks": {} }\n'), false);
  assert.equal(readFileSync(file, 'utf8'), '{ "model": "b", "theme": "dark" }\n');
  // Connect then merges into what is there now: the other writer's keys stay.
  const targets = { ...claudeTargets('workspace', folder), settingsFile: file };
  await connectClaude(targets, 'checkpoint');
  const merged = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  assert.equal(merged.theme, 'dark');
  assert.ok(merged.hooks);
});

test('an earlier release\'s own SKILL.md is the product\'s: Connect replaces it without a backup, Disconnect removes it; a copy changed by hand is kept', async () => {
  const earlier = readFileSync(path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'skill', 'SKILL-0.2.0.md'), 'utf8');
  assert.equal(isProductSkill(earlier), true);
  assert.equal(isProductSkill(SKILL_TEXT), true);
  assert.equal(isProductSkill(earlier.replace('short note', 'short memo')), false);
  const folder = tempDir();
  temps.push(folder);
  const targets = claudeTargets('workspace', folder);
  mkdirSync(path.dirname(targets.skillFile), { recursive: true });
  writeFileSync(targets.skillFile, earlier);
  await connectClaude(targets, 'checkpoint');
  assert.equal(readFileSync(targets.skillFile, 'utf8'), SKILL_TEXT);
  assert.deepEqual(readdirSync(path.dirname(targets.skillFile)), ['SKILL.md'], 'no backup of the product\'s own text');
  writeFileSync(targets.skillFile, earlier);
  const gone = await disconnectClaude(targets);
  assert.equal(gone.skillRemoved, true);
  assert.equal(existsSync(targets.skillFile), false);
});

test('Connect keeps a person\'s own checkpoint skill as a backup and Disconnect puts it back; a skill it did not write is never deleted', async () => {
  const folder = tempDir();
  temps.push(folder);
  const targets = claudeTargets('workspace', folder);
  mkdirSync(path.dirname(targets.skillFile), { recursive: true });
  const own = '---\nname: checkpoint\ndescription: my team\'s own checkpoint procedure\n---\n# Checkpoint\nWrite checkpoint-<name>.md by hand.\n';
  writeFileSync(targets.skillFile, own);
  const plan = await planConnect(targets, 'checkpoint');
  assert.ok(plan.summary.some((l) => l.includes('SKILL.md.before-checkpoint')), `the confirmation says where the person's skill goes: ${plan.summary.join(' | ')}`);
  await connectClaude(targets, 'checkpoint');
  assert.equal(readFileSync(targets.skillFile, 'utf8'), SKILL_TEXT);
  const backup = `${targets.skillFile}.before-checkpoint`;
  assert.equal(readFileSync(backup, 'utf8'), own, 'the person\'s skill is kept, byte for byte');
  await connectClaude(targets, 'checkpoint');
  assert.equal(readFileSync(backup, 'utf8'), own, 'connecting again does not overwrite the backup');
  const off = await disconnectClaude(targets);
  assert.equal(readFileSync(targets.skillFile, 'utf8'), own, 'Disconnect puts the person\'s skill back');
  assert.equal(existsSync(backup), false);
  assert.equal(off.skillRemoved, true);
  // A skill Connect did not write: Disconnect leaves it.
  const again = await disconnectClaude(targets);
  assert.equal(again.skillRemoved, false);
  assert.equal(readFileSync(targets.skillFile, 'utf8'), own);
});

test('a person\'s own hook that runs `checkpoint hook …` with their own environment is not the product\'s: Connect adds its own beside it, Disconnect leaves it', () => {
  const own = `{
  "hooks": {
    "SessionStart": [
      { "hooks": [{ "type": "command", "command": "CHECKPOINT_MEMORY_DIR=/notes /usr/local/bin/checkpoint hook session-start" }] }
    ],
    "PreCompact": [
      { "hooks": [{ "type": "command", "command": "env CHECKPOINT_MEMORY_DIR=/notes checkpoint hook pre-compact" }] }
    ]
  }
}
`;
  for (const c of ['CHECKPOINT_MEMORY_DIR=/notes /usr/local/bin/checkpoint hook session-start', 'env X=1 checkpoint hook pre-compact', 'nice /usr/bin/checkpoint hook pre-compact', "'/a b/checkpoint' x hook pre-compact"]) {
    assert.ok(!isProductCommand(c), c);
  }
  // What Connect writes stays its own, whatever the launcher's path holds (a `'` is quoted as shellQuote does).
  for (const dir of ['/home/o\'brien/bin', '/opt/my tools', 'C:\\Users\\me\\bin']) {
    const program = shellQuote(`${dir}/checkpoint`);
    assert.ok(isProductCommand(`${program} hook pre-compact`), program);
  }
  const on = connectSettingsText(own, plannedHooks('checkpoint'));
  assert.ok(on.text.includes('CHECKPOINT_MEMORY_DIR=/notes /usr/local/bin/checkpoint hook session-start'), 'their hook is not rewritten');
  const data = parse(on.text) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
  assert.deepEqual(data.hooks.SessionStart.flatMap((g) => g.hooks.map((h) => h.command)).at(-1), 'checkpoint hook session-start');
  const off = disconnectSettingsText(on.text);
  assert.equal(off.removed, 3);
  assert.equal(off.text, own, 'their hooks stay, byte for byte');
});

test('Connect never follows a .claude symlink out of the workspace: a clear error, and nothing is written there', async () => {
  const folder = tempDir();
  const outside = tempDir();
  temps.push(folder, outside);
  symlinkSync(outside, path.join(folder, '.claude'));
  const targets = claudeTargets('workspace', folder);
  await assert.rejects(connectClaude(targets, 'checkpoint'), /\.claude.*outside the workspace folder.*nothing was written/);
  await assert.rejects(disconnectClaude(targets), /outside the workspace folder/);
  assert.deepEqual(readdirSync(outside), []);
});

test('Disconnect keeps a comment placed beside the product\'s entry', () => {
  const text = `{
  "hooks": {
    "PreToolUse": [{ "hooks": [{ "type": "command", "command": "./guard.sh" }] }]
  }
}
`;
  const on = connectSettingsText(text, plannedHooks('checkpoint')).text;
  const commented = on
    .replace('"PreCompact": [', '"PreCompact": [\n      // compaction hook: ask Ana before removing')
    .replace('    ],\n    "PreCompact"', '    ] /* checkpoint start */,\n    "PreCompact"');
  assert.notEqual(commented, on);
  const off = disconnectSettingsText(commented).text;
  assert.match(off, /\/\/ compaction hook: ask Ana before removing/);
  assert.match(off, /\/\* checkpoint start \*\//);
  assert.doesNotMatch(off, /checkpoint hook/);
  assert.ok(parse(off), 'still valid');
});

test('a duplicated "SessionStart" key: Connect refuses with a clear message (Claude Code reads only the last), the file untouched', () => {
  const dup = '{\n  "hooks": {\n    "SessionStart": [],\n    "SessionStart": [{ "hooks": [{ "type": "command", "command": "echo mine" }] }]\n  }\n}\n';
  assert.throws(() => connectSettingsText(dup, plannedHooks('checkpoint')), /"SessionStart" twice.*only the last/);
  assert.throws(() => connectSettingsText('{ "hooks": {}, "hooks": {} }', plannedHooks('checkpoint')), /"hooks" twice/);
});

test('`{ }`, `{\\n}` and an empty `hooks` object come back byte-identical after Connect and Disconnect', () => {
  for (const text of ['{ }', '{\n}', '{}', '{}\n', '{ "hooks": {} }', '{"hooks":{}}', '{ "hooks": { "SessionStart": [] } }', '{\n\t"model": "opus"\n}\n']) {
    const on = connectSettingsText(text, plannedHooks('checkpoint', { sessionEnd: true })).text;
    assert.ok(on.includes('checkpoint hook session-start'), on);
    assert.equal(disconnectSettingsText(on).text, text, JSON.stringify(text));
  }
});

test('`null` or object event values are not lost: Connect refuses to replace them, with a clear message', () => {
  for (const value of ['null', '{ "matcher": "x" }']) {
    const text = `{ "hooks": { "SessionStart": ${value} } }`;
    assert.throws(() => connectSettingsText(text, plannedHooks('checkpoint')), /"hooks"\."SessionStart" is not a list.*left as it is/);
  }
  // An event the product does not use keeps whatever it holds.
  const other = '{ "hooks": { "Stop": null } }';
  assert.equal(disconnectSettingsText(connectSettingsText(other, plannedHooks('checkpoint')).text).text, other);
});
