import { stat } from 'node:fs/promises';
import vscode = require('vscode');
import { formatLocalDateTime, formatRelative } from '../../core/dates';
import { CheckpointError } from '../../core/errors';
import { exists } from '../../core/files';
import { printable } from '../../core/names';
import { listPlans, readPlanProgress } from '../../core/plans';
import { previewName, splitItems, suggestName } from '../../core/saveForm';
import { resolveActivePlanFile, suggestPlan, type SuggestedPlan } from '../../core/stateIndex';
import { CheckpointExistsError, LIST_READ_BYTES, type CheckpointStore, type SaveResult } from '../../core/store';
import { memoryDirLabel } from '../../core/memoryDir';
import { tildify } from '../markdown';
import { folderSetting } from '../settings';
import { CommandId, type SaveOptions } from '../commandIds';
import type { Services } from '../services';
import { askPick, askText, BACK, type StepResult } from './quickInput';
import { isNode, isOptions, resolveFolder } from './targets';
import { planName } from '../../core/plans';
import { formatStep } from '../../core/wording';

interface SaveForm {
  name: string;
  leftOff: string;
  done: string[];
  failed: string[];
  plan?: string;
  force: boolean;
}

type Step = 'name' | 'leftOff' | 'done' | 'failed' | 'plan';

interface PlanPickItem extends vscode.QuickPickItem {
  plan: string | undefined;
}

/** How many plans the plan step lists (most recently modified first). */
const MAX_PLANS = 50;

/**
 * Save, and Save to Plan (`planFirst`). With an options object: saves directly. Otherwise asks, step
 * by step (Escape at any step writes nothing). Returns the saved file's path, or undefined.
 */
export async function saveCommand(s: Services, arg: unknown, planFirst: boolean): Promise<string | undefined> {
  if (isOptions<SaveOptions>(arg) && typeof arg.name === 'string') {
    const folder = s.model.folderFromOption(arg.folder);
    if (!arg.leftOff?.trim()) throw new CheckpointError('Left Off is required: say where work stopped.');
    const form: SaveForm = {
      name: arg.name,
      leftOff: arg.leftOff,
      done: arg.done ?? [],
      failed: arg.failed ?? [],
      // No plan given: the active plan of `.claude/state-index.json`, as the CLI does ('' for none).
      plan: arg.plan ?? (await resolveActivePlanFile(folder.uri.fsPath, { plansDirectory: folderSetting(folder, 'plansDirectory') })),
      force: arg.force === true,
    };
    return saveFromForm(s, folder, form, false);
  }
  const folder = await resolveFolder(s, arg, 'Save a checkpoint of which folder?');
  if (!folder) return undefined;
  const presetPlan = isNode(arg) && arg.kind === 'plan' && arg.plan ? arg.plan : undefined;
  const form = await askSaveForm(s, folder, planFirst, presetPlan);
  return form ? saveFromForm(s, folder, form, true) : undefined;
}

async function askSaveForm(
  s: Services,
  folder: vscode.WorkspaceFolder,
  planFirst: boolean,
  presetPlan: string | undefined,
): Promise<SaveForm | undefined> {
  const cwd = folder.uri.fsPath;
  const checkpoints = s.model.folder(folder);
  const store = await checkpoints.store();
  const plansDir = await checkpoints.plansDir();
  const [branch, suggested, existing] = await Promise.all([
    checkpoints.currentBranch(),
    suggestPlan(cwd, plansDir, { plansDirectory: folderSetting(folder, 'plansDirectory') }).catch(() => undefined),
    checkpoints.index.list().catch(() => []),
  ]);
  // The name follows the plan the agent's procedure declared active; a plan that was only edited recently is
  // offered in the plan step, not in the name.
  const activePlan = suggested?.why === 'active' ? suggested.path : undefined;
  const existingByName = new Map(existing.filter((e) => e.source === 'markdown').map((e) => [e.name, e]));
  const form: SaveForm = { name: '', leftOff: '', done: [], failed: [], plan: presetPlan, force: false };
  let doneText = '';
  let failedText = '';
  const steps: Step[] = presetPlan
    ? ['name', 'leftOff', 'done', 'failed']
    : planFirst
      ? ['plan', 'name', 'leftOff', 'done', 'failed']
      : ['name', 'leftOff', 'done', 'failed', 'plan'];
  const where = s.model.folders().length > 1 ? ` — ${folder.name}` : '';
  const title = presetPlan
    ? `Save Checkpoint to ${planName(presetPlan)}${where}`
    : `Save Checkpoint${planFirst ? ' to Plan' : ''}${where}`;
  const dir = memoryDirLabel(await checkpoints.memoryDir());
  let plans: PlanPickItem[] | undefined;

  for (let i = 0; i < steps.length; ) {
    const frame = { title, step: i + 1, totalSteps: steps.length };
    let result: StepResult<unknown>;
    switch (steps[i]) {
      case 'name': {
        const suggestion = suggestName({ plan: form.plan ?? activePlan, branch });
        const r = await askText({
          ...frame,
          value: form.name || suggestion,
          prompt: 'Name of the checkpoint',
          placeholder: 'e.g. oauth-callback',
          validateOnShow: true,
          describe: (v) => {
            const p = previewName(v);
            return p.fileName ? `Saves ${p.fileName} in ${dir}` : `saved as checkpoint-<name>.md in ${dir}`;
          },
          validate: (v) => {
            const p = previewName(v);
            if (p.error) return { message: p.error, severity: vscode.InputBoxValidationSeverity.Error };
            const ex = existingByName.get(p.name);
            if (!ex) return undefined;
            return {
              message: `Saves ${p.fileName}: a checkpoint of that name exists (saved ${formatRelative(ex.saved)}); you will be asked whether to overwrite it.`,
              severity: vscode.InputBoxValidationSeverity.Warning,
            };
          },
        });
        if (typeof r === 'string') {
          form.name = previewName(r).name;
          const overwrite = await askOverwrite(store, form.name, frame);
          if (overwrite === undefined) return undefined;
          if (overwrite === BACK) continue; // "Different name": stay on this step
          form.force = overwrite;
        }
        result = r;
        break;
      }
      case 'leftOff': {
        const r = await askText({
          ...frame,
          value: form.leftOff,
          prompt: 'Left Off (required): where did work stop? One line; it becomes the summary in MEMORY.md.',
          placeholder: 'e.g. Wiring the OAuth callback; token refresh still failing',
          validate: (v) =>
            v.trim() ? undefined : { message: 'Left Off is required: say where work stopped.', severity: vscode.InputBoxValidationSeverity.Error },
        });
        if (typeof r === 'string') form.leftOff = r.trim();
        result = r;
        break;
      }
      case 'done':
      case 'failed': {
        const isDone = steps[i] === 'done';
        const r = await askText({
          ...frame,
          value: isDone ? doneText : failedText,
          prompt: isDone
            ? 'Done This Session (optional): items separated by ";" (";;" for a literal ";"); Enter to skip'
            : 'Failed Approaches (optional): what failed and why, items separated by ";" (";;" for a literal ";"); Enter to skip',
          placeholder: isDone ? 'e.g. Added provider entry; wrote callback test' : 'e.g. Tokens in cookies — blocked by SameSite',
          describe: (v) => {
            const items = splitItems(v);
            if (items.length === 0) return undefined;
            return `${items.length} item${items.length === 1 ? '' : 's'}: ${items.map((x) => `“${printable(x, 40)}”`).join(', ')}`;
          },
        });
        if (typeof r === 'string') {
          if (isDone) [doneText, form.done] = [r, splitItems(r)];
          else [failedText, form.failed] = [r, splitItems(r)];
        }
        result = r;
        break;
      }
      case 'plan': {
        plans ??= await planItems(plansDir, suggested);
        const none: PlanPickItem = { label: '$(circle-slash) No plan', description: 'a named checkpoint', plan: undefined };
        const items = planFirst ? [...plans, none] : [none, ...plans];
        // Preselected: the plan chosen before (Back), else the suggested one (a checkpoint with its plan beats one without).
        const preselect = form.plan ?? suggested?.path;
        const active = items.find((p) => p.plan !== undefined && p.plan === preselect) ?? items[0];
        const r = await askPick({
          ...frame,
          items,
          active,
          placeholder: plans.length
            ? `Plan in ${tildify(plansDir)}, most recently modified first`
            : `No plans in ${tildify(plansDir)} — Enter saves without a plan`,
        });
        if (r && r !== BACK) form.plan = r.plan;
        result = r;
        break;
      }
    }
    if (result === undefined) return undefined; // Escape: nothing written
    i = result === BACK ? Math.max(0, i - 1) : i + 1;
  }
  return form;
}

/**
 * Plans of the plans directory as pick items, with their progress and age; the suggested plan first when it
 * is the active one, also when it lives outside the plans directory.
 */
async function planItems(plansDir: string, suggested: SuggestedPlan | undefined): Promise<PlanPickItem[]> {
  let plans: { path: string; name: string; mtimeMs: number }[] = (await listPlans(plansDir)).slice(0, MAX_PLANS);
  if (suggested?.why === 'active') {
    const mtimeMs = (await stat(suggested.path).catch(() => undefined))?.mtimeMs ?? 0;
    plans = [{ path: suggested.path, name: planName(suggested.path), mtimeMs }, ...plans.filter((p) => p.path !== suggested.path)];
  }
  return Promise.all(
    plans.map(async (p) => {
      const progress = await readPlanProgress(p.path);
      const modified = formatRelative(new Date(p.mtimeMs).toISOString());
      const active = suggested?.why === 'active' && p.path === suggested.path ? ' · active plan' : '';
      return {
        label: `$(checklist) ${p.name}`,
        description: (progress ? `${formatStep(progress.step, progress.steps)} · ${modified}` : modified) + active,
        detail: tildify(p.path),
        plan: p.path,
      };
    }),
  );
}

/**
 * When `name` exists: Overwrite (true) / Different name (BACK), showing when the existing one was saved
 * and where it left off. False when there is nothing to overwrite; undefined on Escape.
 */
async function askOverwrite(
  store: CheckpointStore,
  name: string,
  frame: { title: string; step: number; totalSteps: number },
): Promise<boolean | typeof BACK | undefined> {
  const file = store.pathFor(name);
  if (!(await exists(file))) return false;
  const existing = await store.read(file, LIST_READ_BYTES).catch(() => undefined);
  const saved = existing ? `Saved ${formatLocalDateTime(new Date(existing.saved))} on ${existing.branch || 'no branch'}` : 'The existing file cannot be read';
  const leftOff = existing ? `left off: ${printable(existing.description, 100)}` : 'overwriting replaces it';
  const r = await askPick({
    ...frame,
    placeholder: `"${name}" already exists — ${saved}`,
    items: [
      { label: '$(replace-all) Overwrite', description: saved, detail: leftOff, value: true },
      { label: '$(edit) Different name', description: 'go back and choose another name', value: false },
    ],
  });
  if (r === undefined) return undefined;
  if (r === BACK || !r.value) return BACK;
  return true;
}

/** Saves the checkpoint (the folder's write path makes it the active one) and says so. */
async function saveFromForm(s: Services, folder: vscode.WorkspaceFolder, form: SaveForm, interactive: boolean): Promise<string | undefined> {
  const checkpoints = s.model.folder(folder);
  const input = { name: form.name, leftOff: form.leftOff, done: form.done, failed: form.failed, plan: form.plan, force: form.force };
  let result: SaveResult;
  try {
    result = await checkpoints.save(input);
  } catch (err) {
    // Created by someone else (an agent, the CLI) while the form was open: ask again.
    if (!(err instanceof CheckpointExistsError) || !interactive) throw err;
    const choice = await vscode.window.showWarningMessage(err.message, { modal: true }, 'Overwrite');
    if (choice !== 'Overwrite') return undefined;
    result = await checkpoints.save({ ...input, force: true });
  }
  const cp = result.checkpoint;
  s.log.info(`Saved ${result.path}${result.overwritten ? ' (overwritten)' : ''}`);
  for (const w of result.warnings) {
    s.log.warn(w);
    void vscode.window.showWarningMessage(w);
  }
  const restricted = s.model.trusted ? '' : ' Branch and modified files were not recorded: git does not run in Restricted Mode.';
  const replaced = result.replaced;
  const overwrote = replaced ? ' The previous version is in the trash.' : '';
  const actions = ['Open', 'Copy Resume Prompt', ...(replaced ? ['Undo'] : [])];
  void vscode.window.showInformationMessage(`Checkpoint "${cp.name}" saved.${overwrote}${restricted}`, ...actions).then((choice) => {
    const target = { folder: folder.uri.toString(), name: cp.name };
    if (choice === 'Open') void vscode.commands.executeCommand(CommandId.open, target);
    if (choice === 'Copy Resume Prompt') void vscode.commands.executeCommand(CommandId.copyResumePrompt, target);
    if (choice === 'Undo' && replaced) void vscode.commands.executeCommand(CommandId.undo, { ...target, trashPath: replaced, overwrite: true });
  });
  return result.path;
}

