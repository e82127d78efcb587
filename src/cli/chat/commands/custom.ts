/**
 * Custom commands (src/definitions/commands.ts) as slash commands. A command
 * sends text to the model, and its `` !`command` `` lines and `@path`s run
 * and read through the session's own `bash` and `read` tools
 * (src/definitions/command_prompt.ts): the same rules, approvals and sandbox
 * as the model's calls, so a project's own commands work in a project nobody
 * has trusted, and its `allowed-tools` grants nothing, trusted or not. One
 * never replaces a built-in command nor one of yours, and its `model` and
 * `agent` (which would spend or widen) apply only when the person trusted the
 * project (`spec.projectTrusted`, the one trust decision; a spec that does not
 * say counts as untrusted). A user's own commands are trusted like the user.
 */
import type { SlashCommand } from "../../../ui/chat/input/commands.ts";
import type { CustomCommand } from "../../../definitions/commands.ts";
import { buildCommandPrompt, type InlineResult } from "../../../definitions/command_prompt.ts";
import type { ToolCallResult } from "../../../engine/types.ts";
import * as path from "../../../lib/path.ts";
import { neutraliseControls } from "../../../ui/safe_text.ts";
import type { SessionControls } from "./controls.ts";

export function customSlashCommand(command: CustomCommand): SlashCommand<SessionControls> {
  return {
    name: command.name,
    description: command.description,
    argumentHint: command.argumentHint,
    source: command.source,
    async run(args, controls) {
      const spec = controls.spec();
      const wanted = { model: command.model, agent: command.agent };
      const shown = args ? `/${command.name} ${args}` : `/${command.name}`;
      // Built once `› /name` shows, under the agent it runs with: its rules judge the lines.
      const send = () =>
        controls.send({
          shown,
          build: (stopped) => commandPrompt(command, args, controls, stopped),
        });
      if (!wanted.model && !wanted.agent) return await send();
      if (command.scope === "project" && spec.projectTrusted !== true) {
        controls.print(neutraliseControls(
          `/${command.name} (${command.source}) asks for ${
            [wanted.model && `model ${wanted.model}`, wanted.agent && `agent ${wanted.agent}`]
              .filter(Boolean).join(" and ")
          }; ignored, as you have not trusted this project: the prompt goes with your current model and agent. To honour it, start skiff with --trust-project, or add this folder to trustedProjects in your global config.`,
        ));
        return await send();
      }
      // For this prompt only; then back to what the person chose.
      const before = { model: spec.model, agent: spec.agent };
      await controls.reopen(wanted);
      try {
        await send();
      } finally {
        await controls.reopen(before);
      }
    },
  };
}

/**
 * The command's prompt, its `!` lines run by the session's `bash` tool and
 * its `@path`s read by `read`, each call judged, asked and sandboxed as a
 * model's would be; a line asks its approval question in the chat.
 */
async function commandPrompt(
  command: CustomCommand,
  args: string,
  controls: SessionControls,
  stopped: () => boolean,
): Promise<string> {
  const workspace = controls.spec().workspace;
  const call = async (tool: string, input: Record<string, unknown>) =>
    inlineResult(await (await controls.engine()).runTool(tool, input));
  const built = await buildCommandPrompt(command.body, args, {
    runCommand: (line) =>
      call("bash", { command: line, description: `a line of /${command.name}` }),
    readFile: (file) => call("read", { file_path: file }),
    stopped,
    isFile: (file) => {
      try {
        return Deno.statSync(path.resolve(workspace, file)).isFile;
      } catch {
        return false;
      }
    },
  });
  return built.prompt;
}

/** A tool's result as text to inline: the bash tool's closing `exit code: N` becomes `exitCode`. */
function inlineResult(result: ToolCallResult): InlineResult {
  if (!result.ok) return { ok: false, why: result.error?.message ?? "refused" };
  const exitCode = result.metadata.exitCode;
  if (typeof exitCode !== "number") return { ok: true, text: result.output };
  return {
    ok: true,
    text: result.output.replace(/\n?exit code: -?\d+\s*$/, ""),
    exitCode,
  };
}
