import * as z from 'zod/mini';
import { errorMessage } from '../core/errors';

// The input schemas of the checkpoint tools (agentTools.ts), in a module of their own that agentTools.ts loads on
// first use (`require('./toolSchemas')`, bundled apart as dist/toolSchemas.js): building zod schemas costs
// milliseconds, which the extension would otherwise pay at every activation for tools that may never be called.
// Each schema is public: agentTools.ts reaches them through require(), which the unused-export check does not follow.

/** Limits that keep a checkpoint small and a runaway call harmless. */
const MAX_TEXT = 4000;
const MAX_ITEM = 1000;
const MAX_ITEMS = 50;

const cwdField = z.optional(
  z.string().check(
    z.minLength(1),
    z.maxLength(4096),
    z.describe('Absolute path of the project folder whose checkpoints to use. Leave it out to use the project the tool runs in.'),
  ),
);
const items = (what: string) =>
  z.optional(z.array(z.string().check(z.maxLength(MAX_ITEM))).check(z.maxLength(MAX_ITEMS), z.describe(what)));
const nameField = (what: string) => z.string().check(z.minLength(1), z.maxLength(200), z.describe(what));

/** @public */
export const SaveToolInput = z.object({
  name: nameField('Short name for the checkpoint, such as "oauth-callback" (lowercase letters, digits, ".", "_", "-"; other characters are dropped).'),
  leftOff: z.string().check(
    z.minLength(1),
    z.maxLength(MAX_TEXT),
    z.describe('Where work stopped and what comes next, in 1-3 lines. The first line is the one-line summary shown in lists.'),
  ),
  done: items('What was done this session, one item each.'),
  failed: items('Approaches that failed and why, one item each, so that nobody retries them.'),
  decisions: items('Decisions taken and their reasons, one item each.'),
  questions: items('Open questions, one item each.'),
  plan: z.optional(
    z.string().check(
      z.minLength(1),
      z.maxLength(4096),
      z.describe('Path of the Markdown plan being followed (absolute, ~/..., or relative to the project); its checklist gives "step N of M".'),
    ),
  ),
  force: z.optional(z.boolean().check(z.describe('Replace an existing checkpoint of that name (the previous one goes to the trash). Default false.'))),
  cwd: cwdField,
});
/** @public */
export const ListToolInput = z.object({ cwd: cwdField });
/** @public */
export const ShowToolInput = z.object({ name: nameField('Name of the checkpoint, as listed by checkpoint_list.'), cwd: cwdField });
/** @public */
export const ResumeToolInput = z.object({
  name: z.optional(nameField('Name of the checkpoint, as listed by checkpoint_list. Leave it out when there is only one.')),
  keep: z.optional(z.boolean().check(z.describe('Keep the checkpoint instead of consuming it (moving it to the trash). Default false.'))),
  cwd: cwdField,
});

/**
 * Checks `raw` against `schema`: the data, or one problem per bad field ("field: what is wrong").
 * @public
 */
export function checkInput<S extends z.ZodMiniType>(schema: S, raw: unknown): { success: true; data: z.infer<S> } | { success: false; problems: string[] } {
  const r = z.safeParse(schema, raw);
  if (r.success) return { success: true, data: r.data };
  return { success: false, problems: r.error.issues.map((i) => `${i.path.length ? `${i.path.join('.')}: ` : ''}${issueText(i)}`) };
}

/** zod/mini carries no messages of its own (no locale loaded): a short one from the issue's code. */
function issueText(i: z.core.$ZodIssue): string {
  switch (i.code) {
    case 'invalid_type':
      return `expected ${i.expected}`;
    case 'too_small':
      return i.origin === 'string' ? `must not be empty` : `expected at least ${String(i.minimum)}`;
    case 'too_big':
      return i.origin === 'string' ? `longer than ${String(i.maximum)} characters` : `more than ${String(i.maximum)} items`;
    case 'unrecognized_keys':
      return `unknown field${i.keys.length === 1 ? '' : 's'} ${i.keys.join(', ')}`;
    default:
      return i.message || errorMessage(i.code);
  }
}
