// A table-driven test: one function, and rows of an input and the output it must give for it.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';

/** A test named `name`: `fn` gives, for each row's input, the row's output (the input names a row that fails). */
export function tableTest<O>(name: string, fn: (input: string) => O, rows: readonly (readonly [string, O])[]): void {
  test(name, () => {
    for (const [input, expected] of rows) assert.equal(fn(input), expected, input);
  });
}
