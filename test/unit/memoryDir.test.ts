import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { claudeSlug, resolveMemoryDir } from '../../src/core/memoryDir';
import { removeDir, tempDir } from '../support/fixtures';

test('claudeSlug replaces every character outside [A-Za-z0-9] without collapsing runs', () => {
  assert.equal(claudeSlug('/home/me/my_project.v2'), '-home-me-my-project-v2');
  assert.equal(claudeSlug('/a//b'), '-a--b');
});

test('order: setting, env, Claude auto-memory, workspace fallback', async () => {
  const root = tempDir();
  try {
    const ws = path.join(root, 'ws');
    mkdirSync(path.join(ws, '.git'), { recursive: true });
    mkdirSync(path.join(ws, 'sub'));
    const home = path.join(root, 'home');
    mkdirSync(home);
    const env: NodeJS.ProcessEnv = { HOME: home };
    assert.deepEqual(await resolveMemoryDir({ cwd: ws, env }), { dir: path.join(ws, '.claude', 'memory'), source: 'workspace' });
    mkdirSync(path.join(home, '.claude'));
    const expected = path.join(home, '.claude', 'projects', claudeSlug(ws), 'memory');
    assert.deepEqual(await resolveMemoryDir({ cwd: path.join(ws, 'sub'), env }), { dir: expected, source: 'claude' }, 'uses the git root');
    const cfg = path.join(root, 'cfg');
    mkdirSync(cfg);
    assert.equal((await resolveMemoryDir({ cwd: ws, env: { ...env, CLAUDE_CONFIG_DIR: cfg } })).dir, path.join(cfg, 'projects', claudeSlug(ws), 'memory'));
    assert.deepEqual(await resolveMemoryDir({ cwd: ws, env: { ...env, CHECKPOINT_MEMORY_DIR: 'rel/mem' } }), { dir: path.join(ws, 'rel', 'mem'), source: 'env' });
    assert.deepEqual(await resolveMemoryDir({ cwd: ws, env: { ...env, CHECKPOINT_MEMORY_DIR: '/x' }, configured: '~/mem' }), { dir: path.join(home, 'mem'), source: 'setting' });
  } finally {
    removeDir(root);
  }
});

test('a slug over 200 characters: the project whose transcript names the path, else the fallback', async () => {
  const root = tempDir();
  try {
    const ws = path.join(root, 'x'.repeat(120), 'y'.repeat(100));
    mkdirSync(ws, { recursive: true });
    const claude = path.join(root, 'claude');
    const env = { CLAUDE_CONFIG_DIR: claude };
    mkdirSync(path.join(claude, 'projects', 'other'), { recursive: true });
    assert.equal((await resolveMemoryDir({ cwd: ws, env })).source, 'workspace');
    const proj = path.join(claude, 'projects', 'hashed-abc123');
    mkdirSync(proj);
    writeFileSync(path.join(proj, 's.jsonl'), `not json\n${JSON.stringify({ type: 'user', cwd: ws })}\n`);
    writeFileSync(path.join(claude, 'projects', 'other', 's.jsonl'), `${JSON.stringify({ cwd: '/elsewhere' })}\n`);
    assert.deepEqual(await resolveMemoryDir({ cwd: ws, env }), { dir: path.join(proj, 'memory'), source: 'claude' });
  } finally {
    removeDir(root);
  }
});
