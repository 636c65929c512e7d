import vscode = require('vscode');
import type { TargetOptions } from '../commandIds';
import { diagnose, doctorText, type DoctorReport } from '../../core/doctor';
import type { Services } from '../services';
import { folderSetting } from '../settings';
import { isOptions } from './targets';

const DETAILS = 'Show Details';

/**
 * Checkpoint: Check Claude Code Setup — `checkpoint doctor` for the current folder (or the `folder` option): the
 * whole report in the log, the verdict (or the first problem and its fix) in a message. Returns the report.
 */
export async function doctorCommand(s: Services, arg: unknown): Promise<DoctorReport> {
  const folder = s.model.folderFromOption(isOptions<TargetOptions>(arg) ? arg.folder : undefined);
  const report = await diagnose({ cwd: folder.uri.fsPath, configured: folderSetting(folder, 'memoryDirectory') || undefined, trusted: s.model.trusted });
  s.log.info(`Check Claude Code Setup (${folder.name}):\n${doctorText(report)}`);
  const first = report.problems[0];
  const shown = first
    ? vscode.window.showWarningMessage(`Claude Code setup of ${folder.name}: ${first.message} Fix: ${first.fix}`, DETAILS)
    : vscode.window.showInformationMessage(`Claude Code setup of ${folder.name}: ok. The next Claude Code session in this folder gets the checkpoint.`, DETAILS);
  void shown.then((choice) => {
    if (choice === DETAILS) s.log.show();
  });
  return report;
}
