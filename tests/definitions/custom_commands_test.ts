import assert from "node:assert/strict";
import * as path from "node:path";
import {
  expandCommand,
  loadCustomCommands,
  splitArguments,
} from "../../src/definitions/commands.ts";
import { loadFrontmatterParser } from "../../src/definitions/frontmatter.ts";

// The synchronous loaders parse frontmatter with a parser loaded beforehand (src/definitions/frontmatter.ts).
await loadFrontmatterParser();

function write(file: string, text: string): void {
  Deno.mkdirSync(path.dirname(file), { recursive: true });
  Deno.writeTextFileSync(file, text);
}

function layout() {
  const root = Deno.makeTempDirSync({ prefix: "skiff-commands-" });
  Deno.mkdirSync(path.join(root, ".git"));
  const workspace = path.join(root, "app");
  const home = path.join(root, "home");
  const configDir = path.join(home, ".config", "skiff");
  Deno.mkdirSync(workspace, { recursive: true });
  return { root, workspace, home, configDir };
}

Deno.test("custom commands: read from all four folders, project and user, with their sources", () => {
  const { root, workspace, home, configDir } = layout();
  try {
    write(
      path.join(workspace, ".skiff/commands/deploy.md"),
      "---\ndescription: Deploy it\nargument-hint: <env>\n---\nDeploy to $1.",
    );
    write(path.join(workspace, ".claude/commands/git/commit.md"), "Commit with message $ARGUMENTS");
    write(
      path.join(workspace, ".opencode/command/review.md"),
      "---\ndescription: Review\nagent: plan\nmodel: big-model\n---\nReview $ARGUMENTS",
    );
    write(path.join(configDir, "commands/mine.md"), "---\ndescription: Mine\n---\nMy prompt");
    write(path.join(home, ".claude/commands/theirs.md"), "Claude user prompt");
    const { commands, warnings } = loadCustomCommands({ workspace, configDir, home });
    assert.deepEqual(warnings, []);
    const byName = Object.fromEntries(commands.map((command) => [command.name, command]));
    assert.deepEqual(Object.keys(byName).sort(), [
      "deploy",
      "git:commit",
      "mine",
      "review",
      "theirs",
    ]);
    assert.equal(byName.deploy.description, "Deploy it");
    assert.equal(byName.deploy.argumentHint, "<env>");
    assert.equal(byName.deploy.scope, "project");
    assert.equal(byName.deploy.source, ".skiff/commands");
    assert.equal(byName["git:commit"].source, ".claude/commands");
    // No description: the first line of the prompt stands in.
    assert.equal(byName["git:commit"].description, "Commit with message $ARGUMENTS");
    assert.equal(byName.review.agent, "plan");
    assert.equal(byName.review.model, "big-model");
    assert.equal(byName.review.source, ".opencode/command");
    assert.equal(byName.mine.scope, "user");
    assert.equal(byName.mine.source, "~/.config/skiff/commands");
    assert.equal(byName.theirs.source, "~/.claude/commands");
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("custom commands: your own file keeps the name; the project's of the same name becomes project:<name>; a git-root folder is read from a sub-folder", () => {
  const { root, workspace, home, configDir } = layout();
  try {
    write(path.join(configDir, "commands/same.md"), "user version");
    write(path.join(root, ".skiff/commands/same.md"), "repository version");
    write(path.join(workspace, ".claude/commands/other.md"), "project only");
    const { commands, warnings } = loadCustomCommands({ workspace, configDir, home });
    const byName = Object.fromEntries(commands.map((command) => [command.name, command]));
    assert.deepEqual(Object.keys(byName).sort(), ["other", "project:same", "same"]);
    assert.equal(byName.same.body, "user version");
    assert.equal(byName.same.scope, "user");
    assert.equal(byName["project:same"].body, "repository version");
    assert.equal(byName["project:same"].scope, "project");
    assert.equal(byName["project:same"].source, "../.skiff/commands");
    assert.match(warnings.join("\n"), /\/same stays your own .*; the project's is \/project:same/);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("custom commands: a project's file or folder linked outside the project is not read; a link inside it is", () => {
  const { root, workspace, configDir } = layout();
  // Outside the repository (layout() puts its home inside it).
  const outside = Deno.makeTempDirSync({ prefix: "skiff-commands-outside-" });
  const home = path.join(outside, "home");
  try {
    write(path.join(home, ".ssh/id_rsa"), "PRIVATE KEY");
    write(path.join(outside, "loose/a.md"), "outside folder");
    write(path.join(workspace, "docs/prompt.md"), "inside the project");
    Deno.mkdirSync(path.join(workspace, ".claude/commands"), { recursive: true });
    Deno.symlinkSync(
      path.join(home, ".ssh/id_rsa"),
      path.join(workspace, ".claude/commands/key.md"),
    );
    Deno.symlinkSync(path.join(outside, "loose"), path.join(workspace, ".claude/commands/loose"));
    Deno.symlinkSync(
      path.join(workspace, "docs/prompt.md"),
      path.join(workspace, ".claude/commands/alias.md"),
    );
    // A whole command folder that is a link out of the project.
    Deno.mkdirSync(path.join(workspace, ".opencode"), { recursive: true });
    Deno.symlinkSync(path.join(outside, "loose"), path.join(workspace, ".opencode/command"));
    // Your own folder may link anywhere: it is yours.
    Deno.mkdirSync(path.join(home, ".claude/commands"), { recursive: true });
    Deno.symlinkSync(path.join(outside, "loose/a.md"), path.join(home, ".claude/commands/mine.md"));
    const { commands, warnings } = loadCustomCommands({ workspace, configDir, home });
    assert.deepEqual(commands.map((command) => [command.name, command.body]), [
      ["alias", "inside the project"],
      ["mine", "outside folder"],
    ]);
    const said = warnings.join("\n");
    assert.match(said, /key\.md is a link leading outside the project; skipped/);
    assert.match(
      said,
      /commands\/loose is a link leading outside the project; its commands are not read/,
    );
    assert.match(said, /\.opencode\/command leads outside the project; its commands are not read/);
    assert.doesNotMatch(said, /PRIVATE KEY/);
  } finally {
    Deno.removeSync(root, { recursive: true });
    Deno.removeSync(outside, { recursive: true });
  }
});

Deno.test("custom commands: a broken file is warned about with its line and skipped; the others load", () => {
  const { root, workspace, home, configDir } = layout();
  try {
    write(path.join(workspace, ".skiff/commands/bad.md"), "---\ndescription: [unclosed\n---\nx");
    write(path.join(workspace, ".skiff/commands/open.md"), "---\ndescription: never closed\n");
    write(path.join(workspace, ".skiff/commands/empty.md"), "---\ndescription: nothing\n---\n");
    write(path.join(workspace, ".skiff/commands/9lives.md"), "a name that cannot be typed");
    write(path.join(workspace, ".skiff/commands/good.md"), "Fine");
    const { commands, warnings } = loadCustomCommands({ workspace, configDir, home });
    assert.deepEqual(commands.map((command) => command.name), ["good"]);
    assert.equal(warnings.length, 4, warnings.join("\n"));
    assert.match(warnings.join("\n"), /bad\.md:[23]: invalid YAML.*; command skipped/);
    assert.match(warnings.join("\n"), /open\.md:1: frontmatter opened with ---/);
    assert.match(warnings.join("\n"), /empty\.md:1: the command has no prompt/);
    assert.match(warnings.join("\n"), /9lives\.md: "9lives" cannot be typed as a command/);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("custom commands: $ARGUMENTS and $1… are substituted; quoted words stay together", () => {
  assert.equal(expandCommand("Fix issue $ARGUMENTS now", "42 fast"), "Fix issue 42 fast now");
  assert.equal(
    expandCommand("Deploy $1 to $2 ($3)", `web "eu west"`),
    "Deploy web to eu west ()",
  );
  assert.equal(expandCommand("$1 and $ARGUMENTS", "a b"), "a and a b");
  // $10 is not $1 followed by 0.
  assert.equal(expandCommand("cost $10", "x"), "cost $10\n\nx");
  // No placeholder: what was typed still reaches the model.
  assert.equal(expandCommand("Review the diff", "carefully"), "Review the diff\n\ncarefully");
  assert.equal(expandCommand("Review the diff", ""), "Review the diff");
  // An argument holding a placeholder is not expanded again.
  assert.equal(expandCommand("say $ARGUMENTS", "$1"), "say $1");
  assert.deepEqual(splitArguments(`a 'b c' "d"`), ["a", "b c", "d"]);
});
