/**
 * Running `skiff run`, `skiff tool` or the chat once their command line is read, by
 * commander's action (src/cli/program.ts) or without commander
 * (`parseEngineCommand`, src/boot/engine_options.ts): the same call either way.
 */
import { loadCommandModule as load } from "./command_loader.ts";
import type { ParsedEngineCommand } from "../boot/engine_options.ts";

/** Loads the command's module and runs it; returns its exit code. */
export async function runEngineCommand(parsed: ParsedEngineCommand): Promise<number> {
  if (parsed.command === "chat") {
    const { chatCommand } = await load<typeof import("./chat/chat.ts")>("./chat/chat.ts");
    return await chatCommand(parsed.prompt, parsed.options);
  }
  if (parsed.command === "run") {
    const { runCommand } = await load<typeof import("./run/run.ts")>("./run/run.ts");
    return await runCommand(parsed.prompt, parsed.options);
  }
  const { toolCommand } = await load<typeof import("./tool.ts")>("./tool.ts");
  return await toolCommand(parsed.name, parsed.input, parsed.options);
}
