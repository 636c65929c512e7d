import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import fc from 'fast-check';
import { insideAny, isInside } from '../../src/core/files';

// insideAny tests every changed file of a save against the memory folder with one prefix per folder; it must answer
// as isInside does for the resolved path, for folders inside the repository, outside it, at its top and above it.
const segment = fc.constantFrom('a', 'mem', 'memory', 'mem.d', '..x', 'x..', '.claude', 'b c', 'é', 'A');
const top = path.resolve('/projects/repo');

test('insideAny answers as isInside does for the paths git prints', () => {
  fc.assert(
    fc.property(
      fc.array(segment, { maxLength: 4 }),
      fc.boolean(),
      fc.array(fc.tuple(fc.constantFrom('inside', 'outside', 'top', 'above'), fc.array(segment, { maxLength: 3 })), { maxLength: 3 }),
      (parts, folderEntry, specs) => {
        const p = parts.join('/') + (folderEntry && parts.length ? '/' : '');
        const dirs = specs.map(([where, sub]) => {
          if (where === 'top') return top;
          // A folder that holds the repository: every path of it is inside.
          if (where === 'above') return sub.length % 2 ? path.dirname(top) : path.parse(top).root;
          return path.join(where === 'inside' ? top : path.resolve('/projects/other'), ...sub);
        });
        const expected = dirs.some((d) => isInside(d, path.join(top, p)));
        assert.equal(insideAny(top, dirs)(p), expected, `${p} in ${dirs.join(', ')}`);
      },
    ),
    { numRuns: 3000 },
  );
});

test('a folder named like a climb (..x) is still inside, and a sibling sharing a prefix is not', () => {
  const test = insideAny(top, [path.join(top, '..x'), path.join(top, 'mem')]);
  assert.equal(test('..x/checkpoint-a.md'), true);
  assert.equal(isInside(path.join(top, '..x'), path.join(top, '..x', 'checkpoint-a.md')), true);
  assert.equal(test('mem/MEMORY.md'), true);
  assert.equal(test('mem'), true);
  assert.equal(test('memory/MEMORY.md'), false);
  assert.equal(test('src/mem/x.ts'), false);
});
