/**
 * The GitHub Action (action.yml), its steps run here as a runner runs them
 * (tests/ci/action_runner.ts): installed from this source with the Deno on
 * PATH, its dependencies from the cache, `skiff doctor` in the log, then a
 * prompt against the scripted mock model, with the job summary, outputs and
 * events checked. Every input is declared and used, the API key reaches
 * skiff only through its environment, and nothing is looked up on the
 * network but the model (a recording HTTPS proxy sees every other try).
 */
import * as path from "node:path";
import { parse } from "yaml";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, parseJsonLines, type Sandbox } from "../support/cli.ts";
import { type MockTurn, startMockServer } from "../support/mock_server.ts";
import { startRecordingProxy } from "../support/recording_proxy.ts";
import { skiffTaskFlags } from "../../scripts/install.ts";
import {
  action,
  ACTION_TEXT,
  type ActionRun,
  ROOT,
  runAction,
  type Runner,
  type Step,
  step,
} from "./action_runner.ts";

Deno.test("action.yml: a composite action with branding, whose inputs are all declared and all used", () => {
  assertEquals(action.runs.using, "composite");
  assert(action.branding?.icon && action.branding.color, "branding for the Marketplace");
  const used = new Set([...ACTION_TEXT.matchAll(/inputs\.([a-z-]+)/g)].map((match) => match[1]));
  assertEquals([...used].sort(), Object.keys(action.inputs).sort());
  const expected = ["prompt", "model", "base-url", "api-key", "sandbox", "allow", "deny", "yes"];
  expected.push("agent", "max-turns", "max-cost", "until", "max-time");
  for (const name of expected) assert(name in action.inputs, `input ${name}`);
  for (const name of ["exit-code", "session-id", "sandbox-backend"]) {
    assert(name in action.outputs, `output ${name}`);
  }
});

Deno.test("action.yml: the API key is passed by environment, never in a script or a command line", () => {
  const mentions = ACTION_TEXT.split("\n").filter((line) => line.includes("inputs.api-key"));
  assertEquals(mentions.map((line) => line.trim()), [
    "SKIFF_INPUT_API_KEY: ${{ inputs.api-key }}",
  ]);
  for (const each of action.runs.steps) {
    assert(!each.run?.includes("${{"), `step "${each.name}" puts no expression into its script`);
    if (each.run) {
      const syntax = new Deno.Command("bash", { args: ["-n", "-c", each.run] }).outputSync();
      assertEquals(
        syntax.code,
        0,
        `step "${each.name}": ${new TextDecoder().decode(syntax.stderr)}`,
      );
    }
  }
});

interface Job {
  sandbox: Sandbox;
  runner: Runner;
  context: Record<string, string>;
  summaryFile: string;
  runnerTemp: string;
}

/** A runner's job in a fresh sandbox: its temp folder, summary file and environment. */
async function makeJob(extraEnv: Record<string, string> = {}, cacheHit = true): Promise<Job> {
  const sandbox = await makeSandbox();
  const runnerTemp = path.join(sandbox.root, "runner-temp");
  const scratch = path.join(sandbox.root, "runner-scratch");
  await Deno.mkdir(runnerTemp);
  await Deno.mkdir(scratch);
  const summaryFile = path.join(sandbox.root, "step_summary.md");
  await Deno.writeTextFile(summaryFile, "# Earlier steps\n");
  // A runner sets neither: the action must turn Deno's update check off and pick its cache.
  const { DENO_NO_UPDATE_CHECK: _, DENO_DIR: sharedDenoDir, ...base } = sandbox.env;
  const runner: Runner = {
    scratch,
    env: {
      ...base,
      RUNNER_TEMP: runnerTemp,
      RUNNER_OS: "Linux",
      RUNNER_ARCH: "X64",
      GITHUB_WORKSPACE: sandbox.workspace,
      GITHUB_ACTION_PATH: ROOT,
      GITHUB_STEP_SUMMARY: summaryFile,
      CI: "true",
      ...extraEnv,
    },
    // The cache restored: the npm packages this machine holds already. On a miss they
    // are there too, as `deno install` would download them, so the test needs no network.
    async uses(each, inputs) {
      if (!each.uses?.startsWith("actions/cache/restore@")) return;
      await Deno.mkdir(inputs.path, { recursive: true });
      await Deno.symlink(path.join(sharedDenoDir, "npm"), path.join(inputs.path, "npm"));
      return { "cache-hit": String(cacheHit) };
    },
  };
  const context = {
    "github.action_path": ROOT,
    "github.action_repository": "",
    "github.workspace": sandbox.workspace,
    "runner.temp": runnerTemp,
    "runner.os": "Linux",
  };
  return { sandbox, runner, context, summaryFile, runnerTemp };
}

/** Nothing listens there: the release download fails and the action installs from source. */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

function ran(run: ActionRun, name: string) {
  const found = run.steps.find((each) => each.step.name === name);
  assert(found, `a step named ${name}`);
  return found;
}

/** The whole action against a mock endpoint, with a recording proxy as HTTPS_PROXY. */
async function actionAgainstMock(
  script: MockTurn[],
  inputs: Record<string, string>,
  prepare?: (workspace: string) => Promise<void>,
  cacheHit = true,
) {
  const mock = startMockServer(script);
  const proxy = startRecordingProxy();
  const proxyEnv = { HTTPS_PROXY: proxy.url, NO_PROXY: "127.0.0.1,localhost" };
  const job = await makeJob(proxyEnv, cacheHit);
  await prepare?.(job.sandbox.workspace);
  try {
    const run = await runAction(
      {
        "release-url": `http://127.0.0.1:${closedPort()}`,
        "base-url": mock.url,
        model: "mock-model",
        ...inputs,
      },
      job.context,
      job.runner,
    );
    return {
      ...job,
      run,
      mock,
      lookups: [...proxy.requests],
      log: run.steps.map((each) => each.log).join("\n"),
      summary: await Deno.readTextFile(job.summaryFile),
    };
  } finally {
    await mock.close();
    await proxy.close();
  }
}

Deno.test("action.yml: installed from source, it prints doctor's sandbox and runs a prompt, writing the job summary and outputs", async () => {
  const result = await actionAgainstMock(
    [
      { toolCalls: [{ name: "bash", arguments: { command: "echo checked" } }] },
      { text: "All tests pass." },
    ],
    {
      prompt: "run the check",
      "api-key": "sk-test-secret-1234",
      allow: "bash(echo *)\n  \n",
      "max-time": "120",
    },
    undefined,
    false,
  );
  try {
    const { run, runnerTemp } = result;
    for (const each of run.steps.filter((one) => one.ran)) {
      assertEquals(each.code, 0, `${each.step.name}: ${each.log}`);
    }
    const install = run.stepOutputs.install;
    assertEquals(install.how, "source");
    assertEquals(run.paths, [path.join(runnerTemp, "skiff-bin")]);
    // The Deno on PATH is the one skiff needs, so none was installed.
    assertEquals(install.deno, await which("deno", result.runner.env.PATH));
    assertStringIncludes(ran(run, "Install skiff").log, "Using deno 2.9.");
    // The cache: Deno's folder of the source-mode command, keyed by deno.lock; on a miss
    // saved once the packages are fetched, before skiff runs.
    const restore = ran(run, "Restore skiff's dependencies");
    assertEquals(restore.with?.path, path.join(runnerTemp, "skiff-deno-dir"));
    const lock = await sha256(path.join(ROOT, "deno.lock"));
    assertEquals(
      restore.with?.key,
      `skiff-deno-Linux-X64-${Deno.version.deno}-${lock.slice(0, 20)}`,
    );
    const names = run.steps.filter((each) => each.ran).map((each) => each.step.name);
    assertEquals(names, [
      "Install skiff",
      "Restore skiff's dependencies",
      "Fetch skiff's dependencies",
      "Save skiff's dependencies",
      "Install bubblewrap",
      "Run skiff",
      "Upload skiff events",
    ]);
    assertEquals(ran(run, "Save skiff's dependencies").with, restore.with);
    // The command starts main.ts as `deno task skiff` does: deno.json's flags, read from there.
    const command = await Deno.readTextFile(path.join(runnerTemp, "skiff-bin", "skiff"));
    const config = JSON.parse(await Deno.readTextFile(path.join(ROOT, "deno.json")));
    for (const flag of skiffTaskFlags(config)) assertStringIncludes(command, ` ${flag} `);
    assertStringIncludes(command, `export DENO_DIR=${path.join(runnerTemp, "skiff-deno-dir")}\n`);
    // bubblewrap is here already; doctor's report is in the log, its backend a notice.
    assertStringIncludes(ran(run, "Install bubblewrap").log, "bubblewrap is installed");
    const log = ran(run, "Run skiff").log;
    assertMatch(log, /^::group::skiff doctor\n::stop-commands::[0-9a-f]{32}\nskiff /m);
    assertStringIncludes(log, "Sandbox backends");
    const backend = run.outputs["sandbox-backend"];
    assert(["bwrap", "landlock"].includes(backend), `sandbox-backend: ${backend}`);
    assertStringIncludes(log, `::notice title=skiff sandbox::commands run with: ${backend}\n`);

    assertEquals(run.outputs["exit-code"], "0");
    assert(/^[0-9a-z_-]{6,}$/i.test(run.outputs["session-id"]), run.outputs["session-id"]);
    assertStringIncludes(result.summary, "# Earlier steps\n## skiff run: done");
    assertStringIncludes(result.summary, "All tests pass.");
    assertStringIncludes(result.summary, "`echo checked` → exit 0");
    const events = parseJsonLines(await Deno.readTextFile(run.outputs["events-file"]));
    assertEquals(events[0].session_id, run.outputs["session-id"]);
    assertEquals(events.at(-1)!.type, "session.completed");
    assertEquals(await Deno.readTextFile(run.outputs["answer-file"]), "All tests pass.");
    // The key went to the endpoint, and the prompt arrived through stdin.
    assertEquals(result.mock.headers[0].authorization, "Bearer sk-test-secret-1234");
    assertStringIncludes(JSON.stringify(result.mock.requests[0]), "run the check");
    // Deno looked nothing up: no update check, and the packages came from the cache.
    assertEquals(result.lookups, []);
    // The events are uploaded (the runner does that step).
    assertEquals(ran(run, "Upload skiff events").with?.path, run.outputs["events-file"]);
  } finally {
    await result.sandbox.cleanup();
  }
});

async function which(name: string, searchPath: string): Promise<string> {
  for (const folder of searchPath.split(":")) {
    try {
      await Deno.stat(path.join(folder, name));
      return path.join(folder, name);
    } catch { /* not here */ }
  }
  throw new Error(`${name} is not on ${searchPath}`);
}

async function sha256(file: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(file));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

Deno.test("action.yml: --until from its input sends the failed check back; a deny input wins over allow and yes", async () => {
  const until = await actionAgainstMock([
    { text: "Done." },
    { toolCalls: [{ name: "bash", arguments: { command: "touch marker" } }] },
    { text: "Done now." },
  ], {
    prompt: "make the check pass",
    until: "test -f marker",
    allow: "bash(touch *)",
    "max-turns": "6",
    agent: "build",
  });
  try {
    assertEquals(until.run.outputs["exit-code"], "0", until.log);
    assertEquals(until.mock.requests.length, 3);
    assertStringIncludes(JSON.stringify(until.mock.requests[1]), "test -f marker");
  } finally {
    await until.sandbox.cleanup();
  }
  const denied = await actionAgainstMock([
    { toolCalls: [{ name: "bash", arguments: { command: "rm -rf build" } }] },
    { text: "Could not clean." },
  ], { prompt: "clean up", allow: "bash(rm *)", deny: "bash(rm *)", yes: "true" });
  try {
    assertEquals(denied.run.outputs["exit-code"], "3", denied.log);
    assertEquals(ran(denied.run, "Run skiff").code, 3);
    assertStringIncludes(denied.summary, "did not succeed (exit 3)");
    assertStringIncludes(denied.summary, "Failure layer: **workflow** (permission_denied)");
    // The events are uploaded even so; the restored cache was not saved again.
    assert(ran(denied.run, "Upload skiff events").ran, "the upload step ran after a failure");
    assert(!ran(denied.run, "Save skiff's dependencies").ran, "a cache hit is not saved");
  } finally {
    await denied.sandbox.cleanup();
  }
});

/** Only the run step, with a stand-in skiff that records its arguments and stdin. */
async function runStepWithRecorder(inputs: Record<string, string>) {
  const job = await makeJob();
  try {
    const bin = path.join(job.runnerTemp, "skiff-bin");
    await Deno.mkdir(bin);
    const record = path.join(job.sandbox.root, "argv");
    await Deno.writeTextFile(
      path.join(bin, "skiff"),
      "#!/bin/bash\n" +
        `if [ "$1" = doctor ]; then echo "::error::from doctor"; echo "  commands run with: landlock"; exit 0; fi\n` +
        `echo "::error::from the run" >&2\n` +
        `printf '%s\\n' "$@" > ${JSON.stringify(record)}\ncat >> ${JSON.stringify(record)}\n`,
      { mode: 0o755 },
    );
    const run = await runAction({ prompt: "the prompt", model: "m", ...inputs }, job.context, {
      ...job.runner,
      only: ["run"],
    });
    const argv = await Deno.readTextFile(record).catch(() => "");
    return { run, argv: argv.split("\n"), step: ran(run, "Run skiff") };
  } finally {
    await job.sandbox.cleanup();
  }
}

Deno.test("action.yml: each input becomes skiff run's flag, rules one per line", async () => {
  const { argv, run } = await runStepWithRecorder({
    allow: "bash(npm test *)\n\n  bash(git diff *)  \n",
    deny: "bash(git push *)\nwebfetch",
    yes: "true",
    agent: "review",
    "max-turns": "12",
    "max-cost": "0.5",
    until: "npm test -- --silent",
    sandbox: "read-only",
  });
  const flags = argv.slice(0, argv.indexOf("--summary"));
  assertEquals(flags, [
    "run",
    "--json",
    "--yes",
    "--sandbox",
    "read-only",
    "--agent",
    "review",
    "--max-turns",
    "12",
    "--max-cost",
    "0.5",
    "--max-time",
    "1200",
    "--until",
    "npm test -- --silent",
    "--allow",
    "bash(npm test *)",
    "--allow",
    "bash(git diff *)",
    "--deny",
    "bash(git push *)",
    "--deny",
    "webfetch",
  ]);
  assertEquals(argv.at(-1), "the prompt");
  assertEquals(run.outputs["sandbox-backend"], "landlock");
  // What skiff prints is never read as a workflow command: each stretch is stopped first.
  const log = ran(run, "Run skiff");
  const stop = log.log.match(/^::stop-commands::([0-9a-f]{32})$/m)?.[1];
  assert(stop, log.log);
  assertStringIncludes(log.log, `::stop-commands::${stop}\n::error::from doctor\n`);
  assertStringIncludes(log.log, `::stop-commands::${stop}\n::error::from the run\n::${stop}::\n`);
  assertEquals(log.log.split(`::${stop}::`).length, 3, "both stretches end");
  // Empty inputs add nothing.
  const plain = await runStepWithRecorder({ "max-time": "" });
  assertEquals(plain.argv.slice(0, plain.argv.indexOf("--summary")), ["run", "--json"]);
});

Deno.test("action.yml: a yes input other than true or false stops the step before skiff runs", async () => {
  const { step: run, argv } = await runStepWithRecorder({ yes: "yes please" });
  assertEquals(run.code, 2);
  assertStringIncludes(run.log, '::error title=skiff::the yes input is "yes please"');
  assertEquals(argv, [""]);
});

/** A folder of stand-ins: each name a script recording its arguments, then running `body`. */
async function standIns(folder: string, scripts: Record<string, string>): Promise<string> {
  await Deno.mkdir(folder, { recursive: true });
  for (const [name, body] of Object.entries(scripts)) {
    await Deno.writeTextFile(
      path.join(folder, name),
      `#!/bin/bash\necho "${name} $*" >> ${JSON.stringify(path.join(folder, "calls"))}\n${body}\n`,
      { mode: 0o755 },
    );
  }
  return folder;
}

Deno.test("action.yml: a Deno on PATH of another minor version is not used; the pinned one is installed from npm", async () => {
  const job = await makeJob();
  try {
    const fakes = await standIns(path.join(job.sandbox.root, "fakes"), {
      deno: 'echo "deno 2.8.1 (stable, release, x86_64-unknown-linux-gnu)"',
      // npm as the runner's: the prefix gets a deno, here this machine's.
      npm: `echo "npm in $PWD" >> ${
        JSON.stringify(path.join(job.sandbox.root, "npm-cwd"))
      }; prefix=$3; mkdir -p "$prefix/node_modules/.bin"; ln -s ${
        JSON.stringify(Deno.execPath())
      } "$prefix/node_modules/.bin/deno"`,
    });
    const runner = {
      ...job.runner,
      env: { ...job.runner.env, PATH: `${fakes}:${job.runner.env.PATH}` },
      only: ["install"],
    };
    const run = await runAction(
      {
        "release-url": `http://127.0.0.1:${closedPort()}`,
      },
      job.context,
      runner,
    );
    const install = ran(run, "Install skiff");
    assertEquals(install.code, 0, install.log);
    const calls = await Deno.readTextFile(path.join(fakes, "calls"));
    assertStringIncludes(
      calls,
      `npm install --prefix ${job.runnerTemp}/skiff-deno --no-audit --no-fund --no-save deno@2.9.6`,
    );
    assertStringIncludes(install.log, "Installing Deno 2.9.6 from npm (on PATH: deno 2.8.1");
    // Away from the workspace, whose .npmrc could name another registry.
    assertEquals(
      await Deno.readTextFile(path.join(job.sandbox.root, "npm-cwd")),
      `npm in ${job.runnerTemp}\n`,
    );
    const deno = path.join(job.runnerTemp, "skiff-deno", "node_modules", ".bin", "deno");
    assertEquals(run.stepOutputs.install.deno, deno);
    const command = await Deno.readTextFile(path.join(job.runnerTemp, "skiff-bin", "skiff"));
    assertStringIncludes(command, `exec ${deno} run `);
  } finally {
    await job.sandbox.cleanup();
  }
});

Deno.test("action.yml: the version skiff needs is read from one place, which .ci/run and the examples agree with", async () => {
  const pinned = action.inputs["deno-version"].default!;
  assert(/^\d+\.\d+\.\d+$/.test(pinned), pinned);
  assertStringIncludes(await Deno.readTextFile(path.join(ROOT, ".ci/run")), `deno ${pinned}`);
  const gitlab = await Deno.readTextFile(path.join(ROOT, "examples/ci/gitlab-ci.yml"));
  assertStringIncludes(gitlab, `denoland/deno:${pinned}`);
  const minor = pinned.split(".").slice(0, 2).join(".");
  assertStringIncludes(
    await Deno.readTextFile(path.join(ROOT, "README.md")),
    `Deno](https://deno.com) ${minor}`,
  );
  // The install step compares against the input alone: no other version is written in it.
  const install = step("install").run!;
  assertEquals(install.match(/\d\\?\./g), null);
});

Deno.test("action.yml: on Linux without bubblewrap it installs it with apt-get; a failed install warns and goes on", async () => {
  for (const aptWorks of [true, false]) {
    const job = await makeJob();
    try {
      // No bwrap on this PATH: only the stand-ins and id.
      const fakes = await standIns(path.join(job.sandbox.root, "fakes"), {
        "apt-get": aptWorks ? "exit 0" : "exit 100",
        id: "echo 0",
      });
      const run = await runAction({}, job.context, {
        ...job.runner,
        env: { ...job.runner.env, PATH: fakes },
        only: ["bubblewrap"],
      });
      const bubblewrap = ran(run, "Install bubblewrap");
      assertEquals(bubblewrap.code, 0, bubblewrap.log);
      const calls = (await Deno.readTextFile(path.join(fakes, "calls"))).trim().split("\n");
      assertEquals(
        calls.filter((call) => call.startsWith("apt-get")),
        aptWorks ? ["apt-get install -y -q bubblewrap"] : [
          "apt-get install -y -q bubblewrap",
          "apt-get update -q",
        ],
      );
      assertEquals(
        bubblewrap.log.includes("::warning title=skiff::bubblewrap could not be installed"),
        !aptWorks,
      );
    } finally {
      await job.sandbox.cleanup();
    }
  }
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
  ) as Record<
    string,
    { before_script: string[]; script: string[]; artifacts: { when: string } }
  >;
  const job = gitlab["skiff-review"];
  assertEquals(job.artifacts.when, "always");
  // Its skiff command is written as the action's and `deno task install`'s are.
  assert(
    job.before_script.some((line) => line.includes("/opt/skiff/scripts/install.ts --to ")),
    job.before_script.join("\n"),
  );
  const command = job.script.join("\n");
  assertStringIncludes(command, "--summary skiff-summary.md");
  assert(!command.includes("OPENAI_API_KEY"), "the key is not on the command line");
});

async function git(cwd: string, ...args: string[]): Promise<string> {
  const output = await new Deno.Command("git", { args, cwd }).output();
  const text = new TextDecoder().decode(output.stdout);
  assertEquals(output.code, 0, `git ${args.join(" ")}: ${new TextDecoder().decode(output.stderr)}`);
  return text;
}

Deno.test("examples/ci: the pull-request step commits the files skiff created, not only the ones it changed", async () => {
  const workflow = parse(
    await Deno.readTextFile(path.join(ROOT, "examples/ci/github-workflow.yml")),
  ) as { jobs: Record<string, { steps: Step[] }> };
  const open = Object.values(workflow.jobs).flatMap((job) => job.steps)
    .find((each) => each.name === "Open a pull request");
  assert(open?.run, "the example has a pull-request step");
  const root = await Deno.makeTempDir({ prefix: "skiff-pr-step-" });
  try {
    const remote = path.join(root, "remote.git");
    const work = path.join(root, "work");
    await git(root, "init", "-q", "--bare", remote);
    await git(root, "clone", "-q", remote, work);
    await Deno.writeTextFile(path.join(work, "app.js"), "old\n");
    await git(work, "add", "-A");
    await git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start");
    // What skiff left: one file changed, one created.
    await Deno.writeTextFile(path.join(work, "app.js"), "fixed\n");
    await Deno.writeTextFile(path.join(work, "app.test.js"), "new test\n");
    const fakes = await standIns(path.join(root, "fakes"), { gh: "exit 0" });
    const output = await new Deno.Command("bash", {
      args: ["--noprofile", "--norc", "-eo", "pipefail", "-c", open.run],
      cwd: work,
      env: {
        PATH: `${fakes}:${Deno.env.get("PATH")}`,
        HOME: root,
        GITHUB_RUN_ID: "42",
        ANSWER_FILE: path.join(root, "answer.md"),
      },
      clearEnv: true,
    }).output();
    assertEquals(output.code, 0, new TextDecoder().decode(output.stderr));
    const files = await git(remote, "ls-tree", "--name-only", "skiff/fix-42");
    assertEquals(files.trim().split("\n"), ["app.js", "app.test.js"]);
    assertStringIncludes(
      await Deno.readTextFile(path.join(fakes, "calls")),
      "gh pr create --title skiff: fix failing tests",
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
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
  const result = await actionAgainstMock(
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
    const log = ran(result.run, "Run skiff").log;
    assertStringIncludes(log, "::warning title=skiff::.git/config holds the job's git token");
    assertStringIncludes(log, "persist-credentials: false");
    const published = [
      result.summary,
      await Deno.readTextFile(result.run.outputs["answer-file"]),
      await Deno.readTextFile(result.run.outputs["events-file"]),
      JSON.stringify(result.mock.requests),
    ];
    for (const text of published) {
      assert(!text.includes(token) && !text.includes(basic), `the token was published: ${text}`);
    }
    assertStringIncludes(await Deno.readTextFile(result.run.outputs["answer-file"]), "ghs_***");
  } finally {
    await result.sandbox.cleanup();
  }
});
