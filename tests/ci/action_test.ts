/**
 * The GitHub Action (action.yml): every input is declared and used, the API
 * key reaches skiff only through the environment, and its two shell steps,
 * run here the way a runner runs them (inputs substituted into `env`, a temp
 * file as $GITHUB_STEP_SUMMARY and $GITHUB_OUTPUT), install skiff from this
 * source and run a prompt against the mock endpoint.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, parseJsonLines, type Sandbox } from "../support/cli.ts";
import { type MockTurn, startMockServer } from "../support/mock_server.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const ACTION_TEXT = await Deno.readTextFile(path.join(ROOT, "action.yml"));

interface Step {
  id?: string;
  name: string;
  shell?: string;
  run?: string;
  env?: Record<string, string>;
  uses?: string;
  with?: Record<string, string>;
  "working-directory"?: string;
}
interface Action {
  inputs: Record<string, { required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

const action = parse(ACTION_TEXT) as Action;

function step(id: string): Step {
  const found = action.runs.steps.find((candidate) => candidate.id === id);
  assert(found, `action.yml has a step with id ${id}`);
  return found;
}

Deno.test("action.yml: a composite action whose inputs are all declared and all used", () => {
  assertEquals(action.runs.using, "composite");
  const used = new Set([...ACTION_TEXT.matchAll(/inputs\.([a-z-]+)/g)].map((match) => match[1]));
  assertEquals([...used].sort(), Object.keys(action.inputs).sort());
  for (const name of ["prompt", "model", "base-url", "api-key", "sandbox", "allow", "max-time"]) {
    assert(name in action.inputs, `input ${name}`);
  }
  for (const name of ["exit-code", "session-id"]) assert(name in action.outputs, `output ${name}`);
});

Deno.test("action.yml: the API key is passed by environment, never in a script or a command line", () => {
  const mentions = ACTION_TEXT.split("\n").filter((line) => line.includes("inputs.api-key"));
  assertEquals(mentions.map((line) => line.trim()), [
    "SKIFF_INPUT_API_KEY: ${{ inputs.api-key }}",
  ]);
  for (const each of action.runs.steps) {
    assert(!each.run?.includes("${{"), `step "${each.name}" puts no expression into its script`);
  }
});

/** A step's env as the runner would set it: its expressions replaced. */
function stepEnv(
  each: Step,
  inputs: Record<string, string>,
  context: Record<string, string>,
): Record<string, string> {
  const values: Record<string, string> = { ...context };
  for (const [name, spec] of Object.entries(action.inputs)) {
    values[`inputs.${name}`] = inputs[name] ?? spec.default ?? "";
  }
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(each.env ?? {})) {
    env[name] = String(value).replace(/\$\{\{\s*([\w.-]+)\s*\}\}/g, (_, key: string) => {
      assert(key in values, `the test knows ${key}`);
      return values[key];
    });
  }
  return env;
}

async function runStep(
  each: Step,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  assertEquals(each.shell, "bash");
  const output = await new Deno.Command("bash", {
    // How a runner starts `shell: bash`.
    args: ["--noprofile", "--norc", "-eo", "pipefail", "-c", each.run!],
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

function readOutputs(text: string): Record<string, string> {
  return Object.fromEntries(
    text.split("\n").filter((line) => line.includes("=")).map((line) => {
      const at = line.indexOf("=");
      return [line.slice(0, at), line.slice(at + 1)];
    }),
  );
}

/** Both steps, as a runner runs them, against a mock endpoint; returns what the job would see. */
async function runAction(
  script: MockTurn[],
  inputs: Record<string, string>,
  prepare?: (workspace: string) => Promise<void>,
) {
  const mock = startMockServer(script);
  const sandbox: Sandbox = await makeSandbox();
  await prepare?.(sandbox.workspace);
  const runnerTemp = path.join(sandbox.root, "runner-temp");
  await Deno.mkdir(runnerTemp);
  const files = {
    GITHUB_PATH: path.join(sandbox.root, "github_path"),
    GITHUB_OUTPUT: path.join(sandbox.root, "github_output"),
    GITHUB_STEP_SUMMARY: path.join(sandbox.root, "step_summary.md"),
  };
  await Deno.writeTextFile(files.GITHUB_STEP_SUMMARY, "# Earlier steps\n");
  // Nothing listens there: the download fails and the action falls back to source.
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (closed.addr as Deno.NetAddr).port;
  closed.close();
  const context = {
    "github.action_path": ROOT,
    "github.action_repository": "",
    "runner.temp": runnerTemp,
  };
  const runner = { ...sandbox.env, ...files, RUNNER_TEMP: runnerTemp, RUNNER_OS: "Linux" };
  try {
    const install = await runStep(step("install"), ROOT, {
      ...runner,
      GITHUB_OUTPUT: path.join(sandbox.root, "install_output"),
      ...stepEnv(step("install"), { "release-url": `http://127.0.0.1:${port}` }, context),
    });
    assertEquals(install.code, 0, install.stderr);
    const env = {
      ...runner,
      ...stepEnv(step("run"), { "base-url": mock.url, model: "mock-model", ...inputs }, context),
    };
    const run = await runStep(step("run"), sandbox.workspace, env);
    return {
      install,
      run,
      mock,
      sandbox,
      installedTo: (await Deno.readTextFile(files.GITHUB_PATH)).trim(),
      installOutputs: readOutputs(
        await Deno.readTextFile(path.join(sandbox.root, "install_output")),
      ),
      outputs: readOutputs(await Deno.readTextFile(files.GITHUB_OUTPUT)),
      summary: await Deno.readTextFile(files.GITHUB_STEP_SUMMARY),
    };
  } finally {
    await mock.close();
  }
}

Deno.test("action.yml: its steps install skiff from source and run a prompt, writing the job summary and outputs", async () => {
  const result = await runAction([
    { toolCalls: [{ name: "bash", arguments: { command: "echo checked" } }] },
    { text: "All tests pass." },
  ], {
    prompt: "run the check",
    "api-key": "sk-test-secret-1234",
    allow: "bash(echo *)\n  \n",
    "max-time": "120",
  });
  try {
    assertEquals(result.installOutputs.how, "source");
    assertEquals(result.installedTo, path.join(result.sandbox.root, "runner-temp", "skiff-bin"));
    assertEquals(result.run.code, 0, result.run.stderr);
    assertEquals(result.outputs["exit-code"], "0");
    assert(/^[0-9a-z_-]{6,}$/i.test(result.outputs["session-id"]), result.outputs["session-id"]);
    assertStringIncludes(result.summary, "# Earlier steps\n## skiff run: done");
    assertStringIncludes(result.summary, "All tests pass.");
    assertStringIncludes(result.summary, "`echo checked` → exit 0");
    const events = parseJsonLines(await Deno.readTextFile(result.outputs["events-file"]));
    assertEquals(events[0].session_id, result.outputs["session-id"]);
    assertEquals(events.at(-1)!.type, "session.completed");
    assertEquals(await Deno.readTextFile(result.outputs["answer-file"]), "All tests pass.");
    // The key went to the endpoint, and the prompt arrived through stdin.
    assertEquals(result.mock.headers[0].authorization, "Bearer sk-test-secret-1234");
    const firstRequest = JSON.stringify(result.mock.requests[0]);
    assertStringIncludes(firstRequest, "run the check");
  } finally {
    await result.sandbox.cleanup();
  }
});

Deno.test("action.yml: a denied run fails the step with skiff's exit code and still writes the summary", async () => {
  const result = await runAction([
    { toolCalls: [{ name: "bash", arguments: { command: "rm -rf build" } }] },
    { text: "Could not clean." },
  ], { prompt: "clean up", sandbox: "workspace-write" });
  try {
    assertEquals(result.run.code, 3, result.run.stderr);
    assertEquals(result.outputs["exit-code"], "3");
    assertStringIncludes(result.summary, "did not succeed (exit 3)");
    assertStringIncludes(result.summary, "Failure layer: **workflow** (permission_denied)");
  } finally {
    await result.sandbox.cleanup();
  }
});

Deno.test("action.yml: the events artifact is uploaded even when the run failed", () => {
  const upload = action.runs.steps.find((each) => each.uses?.startsWith("actions/upload-artifact"));
  assert(upload, "an upload-artifact step");
  assertStringIncludes(String((upload as { if?: string }).if), "always()");
  assertEquals(upload.with?.path, "${{ steps.run.outputs.events-file }}");
});

Deno.test("examples/ci: both files parse, and the workflow uses only the action's inputs, the key from a secret", async () => {
  const workflow = parse(
    await Deno.readTextFile(path.join(ROOT, "examples/ci/github-workflow.yml")),
  ) as { jobs: Record<string, { steps: Step[] }> };
  const skiff = Object.values(workflow.jobs).flatMap((job) => job.steps)
    .find((each) => each.id === "skiff");
  assert(skiff?.with, "the example has a step using the action");
  for (const name of Object.keys(skiff.with)) assert(name in action.inputs, `input ${name}`);
  assertEquals(skiff.with["api-key"], "${{ secrets.OPENAI_API_KEY }}");
  const gitlab = parse(
    await Deno.readTextFile(path.join(ROOT, "examples/ci/gitlab-ci.yml")),
  ) as Record<string, { script: string[]; artifacts: { when: string } }>;
  const job = gitlab["skiff-review"];
  assertEquals(job.artifacts.when, "always");
  const command = job.script.join("\n");
  assertStringIncludes(command, "--summary skiff-summary.md");
  assert(!command.includes("OPENAI_API_KEY"), "the key is not on the command line");
});

Deno.test("examples and docs: every actions/checkout keeps no token in the workspace (persist-credentials: false)", async () => {
  const workflow = parse(
    await Deno.readTextFile(path.join(ROOT, "examples/ci/github-workflow.yml")),
  ) as { jobs: Record<string, { steps: (Step & { with?: Record<string, unknown> })[] }> };
  const checkouts = Object.values(workflow.jobs).flatMap((job) => job.steps)
    .filter((each) => each.uses?.startsWith("actions/checkout"));
  assert(checkouts.length > 0, "the example checks out");
  for (const each of checkouts) {
    assertEquals((each.with as Record<string, unknown>)?.["persist-credentials"], false);
  }
  for await (const entry of Deno.readDir(path.join(ROOT, "docs"))) {
    if (!entry.name.endsWith(".md")) continue;
    const lines = (await Deno.readTextFile(path.join(ROOT, "docs", entry.name))).split("\n");
    lines.forEach((line, index) => {
      if (!/^\s*-\s*uses:\s*actions\/checkout@/.test(line)) return;
      assert(
        lines.slice(index + 1, index + 4).some((next) => /persist-credentials:\s*false/.test(next)),
        `docs/${entry.name}:${index + 1} checks out without persist-credentials: false`,
      );
    });
  }
});

Deno.test("action.yml: a checkout's token in .git/config is warned about and reaches no file the job publishes", async () => {
  const token = "ghs_" + "actionT0kenFromCheckout0123456789ab";
  const basic = btoa(`x-access-token:${token}`);
  const result = await runAction(
    [
      { toolCalls: [{ name: "read", arguments: { file_path: ".git/config" } }] },
      { text: `Summary for the PR body: ${token}` },
    ],
    { prompt: "review" },
    async (workspace) => {
      const init = await new Deno.Command("git", { args: ["init", "-q"], cwd: workspace }).output();
      assert(init.success, "git init");
      await Deno.writeTextFile(
        path.join(workspace, ".git", "config"),
        `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${basic}\n`,
        { append: true },
      );
    },
  );
  try {
    assertStringIncludes(
      result.run.stdout,
      "::warning title=skiff::.git/config holds the job's git token",
    );
    assertStringIncludes(result.run.stdout, "persist-credentials: false");
    const published = [
      result.summary,
      await Deno.readTextFile(result.outputs["answer-file"]),
      await Deno.readTextFile(result.outputs["events-file"]),
      JSON.stringify(result.mock.requests),
    ];
    for (const text of published) {
      assert(!text.includes(token) && !text.includes(basic), `the token was published: ${text}`);
    }
    assertStringIncludes(await Deno.readTextFile(result.outputs["answer-file"]), "ghs_***");
  } finally {
    await result.sandbox.cleanup();
  }
});
