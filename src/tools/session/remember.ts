/**
 * `remember {kind, subject, body, files?}`: write down something learned that
 * the next session here should know — a convention, a command that works, a
 * trap. A tool rather than something that happens on its own: writing memory
 * is an act, and an act nobody asked for is one nobody authorised. What is
 * remembered goes into the system prompt of every later session in this
 * workspace (or repository), marked stale once a file it names changes.
 */
import * as z from "zod";
import { defineTool, type Tool } from "../tool.ts";
import { type HarnessDeps, scopePath } from "./harness_scope.ts";

const schema = z.lazy(() =>
  z.object({
    kind: z.string().min(1).max(40).describe(
      'What sort of thing this is: "convention", "command", "trap", "fact", …',
    ),
    subject: z.string().min(1).max(200).describe(
      "A short name for it. Remembering the same kind and subject again replaces the entry.",
    ),
    body: z.string().min(1).max(4000).describe(
      "What the next session should know, in a few lines.",
    ),
    files: z.array(z.string()).max(50).optional().describe(
      "Files this is about; when one of them changes, the entry is shown as stale.",
    ),
  })
);

export function createRememberTool(deps: HarnessDeps): Tool<z.infer<typeof schema>> {
  return defineTool({
    name: "remember",
    description: [
      "Remember something learned for the next session in this workspace: a convention, a command that works, a trap.",
      "It is shown in the system prompt of every later session here, so keep it short and true; name the files it depends on.",
      "Do not remember secrets or things that are obvious from the code.",
    ].join("\n"),
    schema,
    declare(input) {
      return { key: "remember", patterns: [input.kind] };
    },
    execute(input, ctx) {
      const files = (input.files ?? []).map((file) => scopePath(deps.scope, ctx.workspace, file));
      const entry = deps.memory.remember(deps.place, {
        kind: input.kind,
        subject: input.subject,
        body: input.body,
        commit: deps.commit(),
        files,
      });
      const replaced = entry.created !== entry.updated;
      return Promise.resolve({
        output: `${
          replaced ? "Updated" : "Remembered"
        } m${entry.id} (${entry.kind}: ${entry.subject}).`,
        title: `remember ${entry.subject}`,
        metadata: { id: entry.id, scope: deps.scope, commit: entry.commit, files },
      });
    },
  });
}

/** The tool's zod schema, a module constant (the registry converts it ahead of time). */
export { schema as rememberSchema };
