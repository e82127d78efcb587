/**
 * The top-level agent's `model`, end to end through `skiff run`: the model a
 * request names is the one the agent file or `agent.build.model` gives,
 * below `--model`. An untrusted project's agent file cannot switch it (the
 * attack), while the same file in a trusted project does (the control). An
 * opencode `provider/model` id that does not name the endpoint is not sent.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff, type Sandbox, withMockSandbox } from "../support/cli.ts";

const REVIEW_AGENT =
  "---\ndescription: Reviews the change\nmode: primary\nmodel: pricey-model\n---\nReview it.\n";

async function writeAgent(sandbox: Sandbox, relative: string, text: string): Promise<string> {
  const file = `${sandbox.workspace}/${relative}`;
  await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(file, text);
  return file;
}

const sentModel = (request: Record<string, unknown>) => request.model;

Deno.test("a trusted project's primary agent file chooses the model; --model still wins", async () => {
  await withMockSandbox(
    [{ text: "reviewed" }, { text: "reviewed again" }],
    async (sandbox, mock) => {
      await writeAgent(sandbox, ".skiff/agents/review.md", REVIEW_AGENT);
      const run = await runSkiff(["run", "--trust-project", "--agent", "review", "look"], sandbox);
      assertEquals(run.code, 0, run.stderr);
      assertEquals(sentModel(mock.requests[0]), "pricey-model");
      const flagged = await runSkiff(
        ["run", "--trust-project", "--agent", "review", "--model", "flag-model", "look"],
        sandbox,
      );
      assertEquals(flagged.code, 0, flagged.stderr);
      assertEquals(sentModel(mock.requests[1]), "flag-model");
    },
  );
});

Deno.test("an untrusted project's agent file cannot switch the model (the control above shows it would)", async () => {
  await withMockSandbox([{ text: "reviewed" }], async (sandbox, mock) => {
    const file = await writeAgent(sandbox, ".claude/agents/review.md", REVIEW_AGENT);
    const run = await runSkiff(["run", "--agent", "review", "look"], sandbox);
    assertEquals(run.code, 0, run.stderr);
    assertEquals(sentModel(mock.requests[0]), "mock-model");
    assertStringIncludes(
      run.stderr,
      `${file}: model "pricey-model" is not used: the project is not trusted`,
    );
  });
});

Deno.test("agent.build.model in your config is sent for the top-level build agent", async () => {
  await withMockSandbox([{ text: "built" }], async (sandbox, mock) => {
    await Deno.writeTextFile(
      `${sandbox.configDir}/config.json`,
      JSON.stringify({ agent: { build: { model: "build-model" } } }),
    );
    const run = await runSkiff(["run", "go"], sandbox);
    assertEquals(run.code, 0, run.stderr);
    assertEquals(sentModel(mock.requests[0]), "build-model");
  });
});

Deno.test("an opencode provider/model id that is not this endpoint's is not sent; one warning names file and model", async () => {
  await withMockSandbox([{ text: "done" }], async (sandbox, mock) => {
    const file = await writeAgent(
      sandbox,
      ".opencode/agent/review.md",
      "---\ndescription: Reviews\nmode: primary\nmodel: anthropic/claude-opus-4-8\n---\nReview.\n",
    );
    const run = await runSkiff(["run", "--trust-project", "--agent", "review", "look"], sandbox);
    assertEquals(run.code, 0, run.stderr);
    assertEquals(sentModel(mock.requests[0]), "mock-model");
    const warnings = run.stderr.split("\n").filter((line) =>
      line.includes("anthropic/claude-opus-4-8")
    );
    assertEquals(warnings.length, 1, run.stderr);
    assertStringIncludes(warnings[0], file);
    assert(
      !JSON.stringify(mock.requests).includes("anthropic/"),
      "the prefixed id never reaches the endpoint",
    );
  });
});
