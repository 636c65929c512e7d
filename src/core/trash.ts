// The trash of a memory directory (`.trash/<YYYY-MM-DD>/`): where resumed, deleted and overwritten checkpoints go,
// and how a copy there is named. Nothing that goes to the trash is destroyed until it is purged.
import { constants as fsConstants, promises as fs } from 'node:fs';
import { join } from 'node:path';
import { assertNotSymlink, exists, syncDir } from './files';
import { nameFromFileName } from './names';
import { TRASH_DIR } from './storeTypes';

/**
 * Moves `file` to the trash folder of `day` as `baseName` (`checkpoint-x~2.md` for the second of the day);
 * `keep`: puts a hard link, or a copy, there and leaves the file. The folders it creates are pushed to `created`
 * (an undo removes them again). Returns where the copy is.
 */
export async function moveToTrashDay(memoryDir: string, day: string, file: string, baseName: string, created: string[] = [], opts: { keep?: boolean } = {}): Promise<string> {
  const trash = join(memoryDir, TRASH_DIR);
  const dir = join(trash, day);
  // A `.trash` (or day folder) that links elsewhere would move checkpoints out of the memory directory. One lstat of
  // each, at once, says that and whether this move makes it.
  const [trashFound, dirFound] = await Promise.all([assertNotSymlink(trash), assertNotSymlink(dir)]);
  if (!trashFound) created.push(trash);
  if (!dirFound) {
    created.push(dir);
    await fs.mkdir(dir, { recursive: true });
  }
  // The first free `~n` of the day, from one reading of the folder (a name saved often has many copies). Names are
  // compared as a file system that ignores case and Unicode form would (macOS, Windows): there `checkpoint-Foo.md`
  // takes `checkpoint-foo.md`'s place. The one found is checked once more, so a rename never replaces a copy.
  const fold = (name: string): string => name.normalize('NFC').toLowerCase();
  const taken = new Set((await fs.readdir(dir)).map(fold));
  const copyName = (n: number): string => (n === 1 ? baseName : baseName.replace(/(\.\w+)$/, `~${n}$1`));
  let n = 1;
  while (taken.has(fold(copyName(n))) || (await exists(join(dir, copyName(n))))) n++;
  const target = join(dir, copyName(n));
  if (opts.keep) await fs.link(file, target).catch(() => fs.copyFile(file, target, fsConstants.COPYFILE_EXCL));
  else await fs.rename(file, target);
  await syncDir(dir);
  // The memory folder's own entries changed only when the file left it, or `.trash` was made in it.
  if (!opts.keep || created.includes(trash)) await syncDir(memoryDir);
  if (created.includes(dir)) await syncDir(trash);
  return target;
}

/** The checkpoint a file in a trash day folder is a copy of (`checkpoint-<name>~<n>.md`: the n-th of that day). */
export function trashedCopy(file: string): { name: string; n: number } | undefined {
  const m = /^(.*?)(?:~(\d+))?(\.md)$/.exec(file);
  const name = m ? nameFromFileName(m[1] + m[3]) : undefined;
  return name === undefined ? undefined : { name, n: m![2] ? Number(m![2]) : 1 };
}
