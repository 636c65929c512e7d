import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { DoctorReport } from '../../src/core/doctor';
import { runCliSync } from '../support/fixtures';
import { suite } from './helpers';

suite('Check Claude Code Setup', {}, (t) => {
  it('gives the report checkpoint doctor gives for the folder, with its memory directory setting', async () => {
    const report = await vscode.commands.executeCommand<DoctorReport>('checkpoint.doctor');
    const cli = runCliSync(['doctor', '--json', '--dir', t.dir, '--cwd', t.cwd], { env: process.env });
    // The CLI's JSON adds the command's warnings, as every command's does.
    const { warnings: _warnings, ...fromCli } = JSON.parse(cli.out) as DoctorReport & { warnings: string[] };
    assert.equal(cli.code, report.ok ? 0 : 1, cli.err);
    assert.deepEqual({ ...report, lastSessionStart: null }, { ...fromCli, lastSessionStart: null });
    assert.equal(report.memory.dir, t.dir);
    assert.equal(report.memory.source, 'setting');
    // The suite's memory directory is not Claude Code's folder: the first problem says so, and how to fix it.
    assert.equal(report.ok, false);
    assert.match(report.problems[0].id, /^(elsewhere|no-claude)$/);
    if (report.problems[0].id === 'elsewhere') assert.match(report.problems[0].fix, /checkpoint\.memoryDirectory/);
  });
});
