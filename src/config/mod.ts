/**
 * skiff's configuration: the global file, the nearest project file, the
 * environment and the flags, read once per start (`load.ts` `loadConfig`),
 * each layer checked against the zod schema (`schema.ts`, `check.ts`, with
 * errors in plain words from `errors.ts`), merged key by key (`merge.ts`)
 * and kept with where each value came from (`origin.ts`). Config files are
 * JSON with comments: `jsonc.ts` reads them on jsonc-parser and is the one
 * editor that changes one (`editConfigFile`: a trusted project, an
 * "always here" rule), keeping the user's comments and layout, written
 * through the one host-side writer. Which permission keys exist and which
 * of them write (`permission_keys.ts`), a project's own allow rules
 * (`project_allows.ts`, applied only on trust, src/trust/) and the trusted
 * projects list (`trusted_projects.ts`) are here too. docs/config.md is the
 * reference.
 */
export { loadConfig } from "./load.ts";
export { editConfigFile, parseJsonc } from "./jsonc.ts";
export { WRITING_KEYS } from "./permission_keys.ts";
