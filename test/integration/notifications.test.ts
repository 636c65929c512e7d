import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { inWorkbench, suite } from './helpers';

// The workbench driver reads and answers notifications as a person does. VS Code does not toast a notification that
// comes fourth within 800 ms of a burst: a person finds it behind the bell, in the notification center, and so does
// the driver. Without that, a test that meets such a burst waits for a toast that never shows.
suite('Notifications VS Code did not toast', { workbench: true, memoryDir: false, timeout: 60_000 }, () => {
  it('are answered from the notification center; the next one toasts again', async () => {
    for (let i = 1; i <= 4; i++) void vscode.window.showInformationMessage(`Burst notice ${i} of 4`);
    const answered = vscode.window.showInformationMessage('After the burst: pick one', 'Pick', 'Other');
    const read = await inWorkbench({ action: 'notification', text: 'After the burst', button: 'Pick' });
    assert.equal(read.where, 'center', 'the fifth notification of a burst is not toasted');
    assert.deepEqual(read.buttons, ['Pick', 'Other']);
    assert.equal(await answered, 'Pick', 'the button pressed in the notification center answers the extension');
    assert.equal((await inWorkbench({ action: 'count', text: 'Burst notice' })).count, 4, 'the center lists the whole burst');

    await new Promise((resolve) => setTimeout(resolve, 1_000)); // past the burst
    const later = vscode.window.showInformationMessage('A notification on its own', 'Fine');
    const toast = await inWorkbench({ action: 'notification', text: 'A notification on its own', button: 'Fine' });
    assert.equal(toast.where, 'toast', 'the center was closed again: a lone notification toasts');
    assert.equal(await later, 'Fine');
  });
});
