import * as z from 'zod/mini';

// The zod schemas of the core, in a module of their own that checkpointParse.ts and jsonCheckpoints.ts load on first
// use (`require('./schemas')`): zod's module code then runs only when a file is parsed, so commands that never
// parse one (save) do not pay for it at start-up. esbuild still bundles zod/mini's tree-shaken ESM build.

const scalar = z.optional(z.union([z.string(), z.number(), z.boolean()]));
const count = z.optional(z.number().check(z.int(), z.gte(0)));

/** The front matter of a checkpoint file (read in checkpointParse.ts). */
export const FrontMatterSchema = z.looseObject({
  name: scalar,
  description: z.optional(z.nullable(z.union([z.string(), z.number()]))),
  type: z.optional(z.nullable(z.string())),
  branch: z.optional(z.nullable(z.union([z.string(), z.number()]))),
  saved: z.optional(z.union([z.string(), z.date()])),
  plan: z.optional(z.nullable(z.string())),
  planStep: count,
  planSteps: count,
});
export type FrontMatter = z.infer<typeof FrontMatterSchema>;

const strList = z.optional(z.array(z.union([z.string(), z.number()])));

/**
 * A JSON checkpoint of the plan-scoped checkpoint procedure (jsonCheckpoints.ts).
 * @public (this module is loaded lazily with require(), which the unused-export check does not follow)
 */
export const JsonCheckpointSchema = z.looseObject({
  timestamp: z.optional(z.string()),
  summary: z.optional(z.string()),
  decisions: strList,
  next_action: z.optional(z.nullable(z.string())),
  blockers: strList,
  context: z.optional(
    z.looseObject({
      active_plan: z.optional(z.nullable(z.string())),
      active_plan_stage: z.optional(z.nullable(z.union([z.string(), z.number()]))),
      files_in_progress: strList,
    }),
  ),
});

/** @public (loaded lazily, see above) */
export const prettifyError = z.prettifyError;
