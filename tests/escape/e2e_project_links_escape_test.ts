/**
 * A repository's definition folders linked out of it: `.skiff/skills/notes`
 * whose SKILL.md is a link to a file elsewhere, and a `.claude/agents` folder
 * that is a link to a folder elsewhere. Both would put another folder's text
 * in front of the model (a skill's description sits in the system prompt; an
 * agent file is a prompt). Each is read only when its real path stays in the
 * project; the control puts the same files inside the project, where they do
 * reach the model.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import { everythingSent, runEvents, withAttack } from "./e2e_support.ts";

const SKILL_SECRET = "skill-secret-5d10";
const AGENT_SECRET = "agent-secret-8c42";

const skillText = `---\nname: notes\ndescription: notes ${SKILL_SECRET}\n---\nUse them.\n`;
const agentText = `---\ndescription: a helper\nmode: primary\n---\nYou know ${AGENT_SECRET}.\n`;

async function write(file: string, text: string): Promise<void> {
  await Deno.mkdir(path.dirname(file), { recursive: true });
  await Deno.writeTextFile(file, text);
}

Deno.test("e2e: a project's skill or agent folder linked out of the project reaches no prompt", async () => {
  await withAttack([{ text: "done" }, { text: "done" }], async (sandbox, mock) => {
    // What the links lead to: files in a folder of the user's, outside the project.
    await write(path.join(sandbox.outside, "notes.md"), skillText);
    await write(path.join(sandbox.outside, "agents", "helper.md"), agentText);
    await Deno.mkdir(path.join(sandbox.workspace, ".skiff", "skills", "notes"), {
      recursive: true,
    });
    await Deno.symlink(
      path.join(sandbox.outside, "notes.md"),
      path.join(sandbox.workspace, ".skiff", "skills", "notes", "SKILL.md"),
    );
    await Deno.mkdir(path.join(sandbox.workspace, ".claude"));
    await Deno.symlink(
      path.join(sandbox.outside, "agents"),
      path.join(sandbox.workspace, ".claude", "agents"),
    );
    const linked = await runSkiff(["run", "--json", "--agent", "helper", "hello"], sandbox);
    // The linked agent folder is not read, so the agent does not exist.
    assertEquals(linked.code, 2, linked.stdout + linked.stderr);
    const plain = await runSkiff(["run", "--json", "hello"], sandbox);
    assertEquals(plain.code, 0, plain.stderr);
    const sent = everythingSent(mock);
    assert(!sent.includes(SKILL_SECRET), "the linked skill's text reached the model");
    assert(!sent.includes(AGENT_SECRET), "the linked agent's text reached the model");
    assert(
      runEvents(plain.stdout).warnings.some((warning) =>
        warning.includes("link leading outside the project")
      ),
      plain.stdout,
    );
  });
  // Control: the same files inside the project do reach the model.
  await withAttack([{ text: "done" }], async (sandbox, mock) => {
    await write(path.join(sandbox.workspace, ".skiff", "skills", "notes", "SKILL.md"), skillText);
    await write(path.join(sandbox.workspace, ".claude", "agents", "helper.md"), agentText);
    const result = await runSkiff(["run", "--json", "--agent", "helper", "hello"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    const sent = everythingSent(mock);
    assert(sent.includes(SKILL_SECRET), "control: the skill did not reach the model");
    assert(sent.includes(AGENT_SECRET), "control: the agent did not reach the model");
  });
});
