import vscode = require('vscode');

/**
 * Steps of a multi-step quick input (one InputBox or QuickPick per step, with a Back button after the
 * first). Each resolves to the value, to {@link BACK}, or to undefined when the user pressed Escape
 * or the input lost focus for good.
 */

export const BACK = Symbol('back');
export type StepResult<T> = T | typeof BACK | undefined;

export interface StepFrame {
  title: string;
  step: number;
  totalSteps: number;
}

export type Validation = vscode.InputBoxValidationMessage | undefined;

export interface TextStep extends StepFrame {
  value: string;
  prompt: string;
  placeholder?: string;
  /** Live validation; an Error severity keeps Enter from accepting. */
  validate?: (value: string) => Validation;
  /** A live preview of what the value becomes, shown after the prompt (undefined: the prompt alone). */
  describe?: (value: string) => string | undefined;
  /** Validate the initial value too (default: only once the user types or presses Enter). */
  validateOnShow?: boolean;
}

const isError = (v: Validation): boolean => v?.severity === vscode.InputBoxValidationSeverity.Error;

export function askText(opts: TextStep): Promise<StepResult<string>> {
  const input = vscode.window.createInputBox();
  input.title = opts.title;
  input.step = opts.step;
  input.totalSteps = opts.totalSteps;
  input.value = opts.value;
  input.placeholder = opts.placeholder;
  // The question stays in view; the preview follows it (a validation message, when there is one, takes the line).
  const prompt = (value: string): string => {
    const preview = opts.describe?.(value);
    return preview ? `${opts.prompt} · ${preview}` : opts.prompt;
  };
  input.prompt = prompt(opts.value);
  input.ignoreFocusOut = true;
  input.buttons = opts.step > 1 ? [vscode.QuickInputButtons.Back] : [];
  const refresh = (value: string): void => {
    input.validationMessage = opts.validate?.(value);
    input.prompt = prompt(value);
  };
  if (opts.validateOnShow) refresh(opts.value);
  return run<string>(input, (done) => [
    input.onDidChangeValue(refresh),
    input.onDidAccept(() => {
      const v = opts.validate?.(input.value);
      input.validationMessage = v;
      if (!isError(v)) done(input.value);
    }),
  ]);
}

export interface PickStep<T extends vscode.QuickPickItem> extends StepFrame {
  items: T[];
  active?: T;
  placeholder: string;
}

export function askPick<T extends vscode.QuickPickItem>(opts: PickStep<T>): Promise<StepResult<T>> {
  const pick = vscode.window.createQuickPick<T>();
  pick.title = opts.title;
  pick.step = opts.step;
  pick.totalSteps = opts.totalSteps;
  pick.placeholder = opts.placeholder;
  pick.items = opts.items;
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  pick.ignoreFocusOut = true;
  if (opts.active) pick.activeItems = [opts.active];
  pick.buttons = opts.step > 1 ? [vscode.QuickInputButtons.Back] : [];
  return run<T>(pick, (done) => [
    pick.onDidAccept(() => {
      const chosen = pick.selectedItems[0] ?? pick.activeItems[0];
      if (chosen) done(chosen);
    }),
  ]);
}

/** Shows a quick input and settles once: value, Back, or undefined on hide (Escape). Disposes everything. */
function run<T>(
  input: vscode.InputBox | vscode.QuickPick<vscode.QuickPickItem>,
  listen: (done: (value: StepResult<T>) => void) => vscode.Disposable[],
): Promise<StepResult<T>> {
  return new Promise((resolve) => {
    let settled = false;
    const disposables: vscode.Disposable[] = [];
    const done = (value: StepResult<T>): void => {
      if (settled) return;
      settled = true;
      for (const d of disposables) d.dispose();
      input.dispose();
      resolve(value);
    };
    disposables.push(
      ...listen(done),
      input.onDidTriggerButton((b) => {
        if (b === vscode.QuickInputButtons.Back) done(BACK);
      }),
      input.onDidHide(() => done(undefined)),
    );
    input.show();
  });
}
