import assert from "node:assert/strict";
import * as path from "node:path";
import { loadSkills } from "../../src/definitions/skills.ts";
import { loadFrontmatterParser } from "../../src/definitions/frontmatter.ts";
import { createSkillTool } from "../../src/tools/session/skill.ts";
import { type ToolContext, ToolError } from "../../src/tools/tool.ts";

// The synchronous loaders parse frontmatter with a parser loaded beforehand (src/definitions/frontmatter.ts).
await loadFrontmatterParser();

function write(file: string, text: string): void {
  Deno.mkdirSync(path.dirname(file), { recursive: true });
  Deno.writeTextFileSync(file, text);
}

function layout() {
  const root = Deno.makeTempDirSync({ prefix: "skiff-skills-" });
  Deno.mkdirSync(path.join(root, ".git"));
  const workspace = path.join(root, "app");
  const home = path.join(root, "home");
  const configDir = path.join(home, ".config", "skiff");
  Deno.mkdirSync(workspace, { recursive: true });
  return { root, workspace, home, configDir };
}

// The skill tool uses nothing from the context; a bare one keeps the test honest about that.
const ctx = {} as ToolContext;

Deno.test("skills are found in all four folders, later ones replace earlier by name", () => {
  const { root, workspace, home, configDir } = layout();
  write(
    path.join(configDir, "skills", "release", "SKILL.md"),
    "---\nname: release\ndescription: Cut a release\n---\nGlobal steps",
  );
  write(
    path.join(root, ".claude", "skills", "pdf", "SKILL.md"),
    "---\nname: pdf\ndescription: Work with PDF files\nlicense: MIT\nallowed-tools: Read\n---\nUse the script.",
  );
  write(
    path.join(workspace, ".agents", "skills", "db", "SKILL.md"),
    "---\ndescription: Database migrations\n---\nMigrate.",
  );
  write(
    path.join(workspace, ".skiff", "skills", "rel", "SKILL.md"),
    "---\nname: release\ndescription: Project release\n---\nProject steps",
  );
  const { skills, warnings } = loadSkills({ workspace, home, configDir });
  assert.deepEqual(warnings, []);
  const byName = new Map(skills.map((skill) => [skill.name, skill]));
  assert.deepEqual([...byName.keys()].sort(), ["db", "pdf", "release"]);
  assert.equal(byName.get("release")!.body, "Project steps");
  assert.equal(byName.get("db")!.name, "db", "the folder name stands in for a missing name");
  assert.deepEqual(byName.get("pdf")!.metadata, { license: "MIT", "allowed-tools": "Read" });
});

Deno.test("a skill without a description is skipped with file and line", () => {
  const { workspace, home, configDir } = layout();
  const file = path.join(workspace, ".skiff", "skills", "bad", "SKILL.md");
  write(file, "---\nname: bad\n---\nbody");
  const broken = path.join(workspace, ".skiff", "skills", "worse", "SKILL.md");
  write(broken, '---\nname: worse\ndescription: "unterminated\n---\nbody');
  const { skills, warnings } = loadSkills({ workspace, home, configDir });
  assert.equal(skills.length, 0);
  assert.ok(warnings.some((line) => line.startsWith(`${file}:2: a skill needs a description`)));
  assert.ok(
    warnings.some((line) => line.startsWith(`${broken}:`) && line.includes("invalid YAML")),
  );
});

Deno.test("skill tool lists names and descriptions only, and loads body plus files", async () => {
  const { workspace, home, configDir } = layout();
  const dir = path.join(workspace, ".skiff", "skills", "pdf");
  write(
    path.join(dir, "SKILL.md"),
    "---\nname: pdf\ndescription: Fill PDF forms\n---\nRun scripts/fill.py SECRET-BODY",
  );
  write(path.join(dir, "scripts", "fill.py"), "print(1)");
  write(path.join(dir, "reference.md"), "ref");
  const { skills } = loadSkills({ workspace, home, configDir });
  const tool = createSkillTool(skills);
  assert.equal(tool.name, "skill");
  assert.match(tool.description, /- pdf: Fill PDF forms/);
  assert.ok(!tool.description.includes("SECRET-BODY"), "the body stays out of the prompt");
  const access = await tool.declare({ name: "pdf" }, ctx);
  assert.equal(access.key, "skill");
  assert.deepEqual(access, { key: "skill", patterns: ["pdf"] });
  const result = await tool.execute({ name: "pdf" }, ctx);
  assert.match(result.output, /SECRET-BODY/);
  assert.ok(result.output.includes(path.join(dir, "scripts", "fill.py")));
  assert.ok(result.output.includes(path.join(dir, "reference.md")));
  await assert.rejects(
    () => tool.execute({ name: "nope" }, ctx),
    (error: unknown) =>
      error instanceof ToolError && error.code === "not_found" && /pdf/.test(error.hint ?? ""),
  );
});
