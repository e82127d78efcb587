/**
 * Instruction files a project ships are read only when they are regular
 * files, and only up to a size: a FIFO named AGENTS.md made skiff hang at
 * start (the read waited for a writer). One that is skipped or cut is named
 * in a warning; `skiff run` with a FIFO AGENTS.md finishes.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { parseJsonLines, spawnSkiff, withMockSandbox } from "../support/cli.ts";
import { MAX_INSTRUCTION_BYTES, readRegularTextFileSync } from "../../src/config/regular_file.ts";
import { collectInstructions } from "../../src/engine/loop/system_prompt.ts";
import { loadSkills } from "../../src/definitions/skills.ts";
import { loadCustomCommands } from "../../src/definitions/commands.ts";

async function mkfifo(file: string): Promise<void> {
  const made = await new Deno.Command("mkfifo", { args: [file] }).output();
  assert(made.success, `mkfifo failed: ${new TextDecoder().decode(made.stderr)}`);
}

Deno.test("a FIFO AGENTS.md is skipped with a warning naming it; CLAUDE.md beside it is read", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-fifo-agents-" }));
  try {
    const repo = path.join(root, "repo");
    await Deno.mkdir(path.join(repo, ".git"), { recursive: true });
    await Deno.mkdir(path.join(root, "config"));
    await mkfifo(path.join(repo, "AGENTS.md"));
    await Deno.writeTextFile(path.join(repo, "CLAUDE.md"), "claude rules");
    await mkfifo(path.join(root, "config", "AGENTS.md"));
    const warnings: string[] = [];
    const found = collectInstructions(repo, path.join(root, "config"), (m) => warnings.push(m));
    assertEquals(found.map((file) => file.text), ["claude rules"]);
    assertEquals(warnings.length, 2, warnings.join("\n"));
    assertStringIncludes(warnings[0], `${root}/config/AGENTS.md was not read: it is a FIFO`);
    assertStringIncludes(warnings[1], `${repo}/AGENTS.md was not read: it is a FIFO`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("an instruction file over the cap is read up to it, with a warning", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-big-agents-" }));
  try {
    await Deno.mkdir(path.join(root, ".git"));
    const line = "Always run the tests before you finish.\n";
    const big = line.repeat(Math.ceil((MAX_INSTRUCTION_BYTES * 2) / line.length));
    await Deno.writeTextFile(path.join(root, "AGENTS.md"), big);
    const warnings: string[] = [];
    const found = collectInstructions(root, path.join(root, "no-config"), (m) => warnings.push(m));
    assertEquals(found.length, 1);
    assertEquals(found[0].text, big.slice(0, MAX_INSTRUCTION_BYTES));
    assertEquals(warnings.length, 1);
    assertStringIncludes(warnings[0], `holds ${big.length} bytes: only its first`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("readRegularTextFileSync: missing, folder, device, FIFO and a link to a regular file", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-regular-" }));
  try {
    assertEquals(readRegularTextFileSync(path.join(root, "absent")).kind, "missing");
    const folder = readRegularTextFileSync(root);
    assertEquals(folder.kind === "skipped" && folder.reason, "it is a folder, not a regular file");
    const device = readRegularTextFileSync("/dev/zero");
    assertEquals(
      device.kind === "skipped" && device.reason,
      "it is a character device, not a regular file",
    );
    await mkfifo(path.join(root, "pipe"));
    const fifo = readRegularTextFileSync(path.join(root, "pipe"));
    assertEquals(
      fifo.kind === "skipped" && fifo.reason,
      "it is a FIFO (named pipe), not a regular file",
    );
    await Deno.writeTextFile(path.join(root, "real.md"), "rules\n");
    await Deno.symlink(path.join(root, "real.md"), path.join(root, "link.md"));
    const linked = readRegularTextFileSync(path.join(root, "link.md"));
    assertEquals(linked.kind === "text" && linked.text, "rules\n");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a FIFO SKILL.md or command file is skipped with a warning naming it", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-fifo-skill-" }));
  try {
    await Deno.mkdir(path.join(root, ".git"));
    await Deno.mkdir(path.join(root, ".skiff", "skills", "stuck"), { recursive: true });
    await Deno.mkdir(path.join(root, ".skiff", "commands"), { recursive: true });
    await mkfifo(path.join(root, ".skiff", "skills", "stuck", "SKILL.md"));
    await mkfifo(path.join(root, ".skiff", "commands", "stuck.md"));
    const options = { workspace: root, configDir: path.join(root, "config"), home: root };
    const skills = loadSkills(options);
    assertEquals(skills.skills, []);
    assertStringIncludes(
      skills.warnings.join("\n"),
      "stuck/SKILL.md: could not be read (it is a FIFO",
    );
    const commands = loadCustomCommands(options);
    assertEquals(commands.commands, []);
    assertStringIncludes(commands.warnings.join("\n"), "stuck.md: could not be read (it is a FIFO");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("skiff run finishes with a FIFO AGENTS.md in the workspace and warns about it", async () => {
  await withMockSandbox([{ text: "done" }], async (sandbox, mock) => {
    await new Deno.Command("git", { args: ["init", "-q"], cwd: sandbox.workspace }).output();
    await mkfifo(path.join(sandbox.workspace, "AGENTS.md"));
    const child = spawnSkiff(["run", "--json", "hello"], sandbox);
    // A hang is the defect: kill it after a while so the test fails instead of hanging too.
    const killer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    const output = await child.output().finally(() => clearTimeout(killer));
    const stderr = new TextDecoder().decode(output.stderr);
    assertEquals(output.code, 0, `skiff run did not finish: ${stderr}`);
    const events = parseJsonLines(new TextDecoder().decode(output.stdout));
    assertEquals(events.at(-1)?.type, "session.completed");
    const warning = events.find((event) =>
      event.type === "warning" && String(event.message).includes("AGENTS.md was not read")
    );
    assert(warning, `no warning names the FIFO: ${JSON.stringify(events.map((e) => e.type))}`);
    assertStringIncludes(String(warning.message), `${sandbox.workspace}/AGENTS.md`);
    assertEquals(mock.requests.length, 1);
  });
});
