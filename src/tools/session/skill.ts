/**
 * The `skill` tool: the model sees every skill's name and description in the
 * tool description, and calls `skill {name}` to load one — its instructions
 * and the list of files beside them, which it can then read.
 */
import * as z from "zod";
import * as path from "../../lib/path.ts";
import { defineTool, type Tool, ToolError } from "../tool.ts";
import { listSkillFiles, type Skill } from "../../definitions/skills.ts";

const schema = z.lazy(() =>
  z.object({
    name: z.string().describe("Name of the skill to load, exactly as listed"),
  })
);

export function skillToolDescription(skills: Skill[]): string {
  const lines = skills.map((skill) => `- ${skill.name}: ${skill.description}`);
  return [
    "Load a skill: instructions and files for a kind of task. When a task matches a skill's",
    "description, load the skill first and follow it. Available skills:",
    ...(lines.length ? lines : ["(none installed)"]),
  ].join("\n");
}

export function createSkillTool(skills: Skill[]): Tool<z.infer<typeof schema>> {
  const byName = new Map(skills.map((skill) => [skill.name, skill]));
  const find = (name: string): Skill => {
    const skill = byName.get(name.trim());
    if (skill) return skill;
    throw new ToolError(
      "not_found",
      `No skill named "${name}".`,
      `Use one of: ${[...byName.keys()].join(", ") || "(none installed)"}.`,
    );
  };
  return defineTool({
    name: "skill",
    description: skillToolDescription(skills),
    schema,
    declare(input) {
      // No `reads`: SKILL.md is a definition the user installed, not a file of
      // the workspace, and a global one would otherwise ask as an outside path.
      return { key: "skill", patterns: [input.name] };
    },
    async execute(input) {
      const skill = find(input.name);
      const files = await listSkillFiles(skill.dir);
      const output = [
        `<skill name="${skill.name}" folder="${skill.dir}">`,
        skill.body,
        "</skill>",
        "",
        `Files in ${skill.dir} (read them by path when the instructions call for it):`,
        ...files.map((file) => `- ${path.join(skill.dir, file)}`),
      ].join("\n");
      return { output, title: `skill ${skill.name}`, metadata: { dir: skill.dir, files } };
    },
  });
}

/** The tool's zod schema, a module constant (the registry converts it ahead of time). */
export { schema as skillSchema };
