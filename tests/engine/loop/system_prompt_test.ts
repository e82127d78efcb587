/**
 * The system prompt carries the workspace facts and the instruction files:
 * AGENTS.md (or CLAUDE.md) from the git root down to the workspace, after the
 * global one.
 */
import { assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { collectInstructions, renderSystemPrompt } from "../../../src/engine/loop/system_prompt.ts";

Deno.test("instruction files from the git root down, CLAUDE.md only where AGENTS.md is absent", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    const repo = `${root}/repo`;
    const workspace = `${repo}/packages/app`;
    await Deno.mkdir(`${repo}/.git`, { recursive: true });
    await Deno.mkdir(workspace, { recursive: true });
    await Deno.mkdir(`${root}/config`);
    await Deno.writeTextFile(`${root}/AGENTS.md`, "above the repo: never read");
    await Deno.writeTextFile(`${root}/config/AGENTS.md`, "global rules");
    await Deno.writeTextFile(`${repo}/AGENTS.md`, "repo rules");
    await Deno.writeTextFile(`${repo}/CLAUDE.md`, "shadowed by AGENTS.md");
    await Deno.writeTextFile(`${workspace}/CLAUDE.md`, "app rules");
    const found = collectInstructions(workspace, `${root}/config`);
    assertEquals(found.map((file) => file.text), ["global rules", "repo rules", "app rules"]);

    const prompt = renderSystemPrompt({
      workspace,
      date: new Date("2026-11-29T12:00:00Z"),
      platform: "linux x86_64",
      gitSummary: "branch main, clean",
      instructions: found,
    });
    assertStringIncludes(prompt, `Workspace: ${workspace}`);
    assertStringIncludes(prompt, "Date: 2026-11-29");
    assertStringIncludes(prompt, "Git: branch main, clean");
    assertStringIncludes(prompt, "app rules");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
