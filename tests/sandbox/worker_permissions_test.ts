/**
 * The Deno layer on its own: real file tools run in a Worker with the
 * permissions workerPermissions derives, the policy allows everything, and a
 * path outside the allowed folders still meets NotCapable — which reaches the
 * model as a tool error with code "not_capable".
 */
import { installedBashPaths } from "../../src/sandbox/shell.ts";
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import type { ToolErrorPayload } from "../../src/contracts/events.ts";
import type { SandboxMode } from "../../src/sandbox/modes.ts";
import { workerPermissions } from "../../src/sandbox/worker_permissions.ts";
import type { WorkerJob } from "./fixtures/tool_worker.ts";

interface WorkerReply {
  decision: string;
  ok: boolean;
  output?: string;
  error?: ToolErrorPayload;
}

function layout() {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-worker-" }));
  const workspace = path.join(root, "ws");
  const outside = path.join(root, "outside");
  const dataDir = path.join(root, "data");
  for (const dir of [workspace, outside, dataDir]) Deno.mkdirSync(dir);
  Deno.writeTextFileSync(path.join(workspace, "inside.txt"), "inside\n");
  Deno.writeTextFileSync(path.join(outside, "secret.txt"), "secret\n");
  return {
    root,
    workspace,
    outside,
    dataDir,
    done: () => Deno.removeSync(root, { recursive: true }),
  };
}

function runInWorker(mode: SandboxMode, job: WorkerJob): Promise<WorkerReply> {
  const permissions = workerPermissions({ mode, workspace: job.workspace, dataDir: job.dataDir });
  const worker = new Worker(new URL("./fixtures/tool_worker.ts", import.meta.url), {
    type: "module",
    deno: { permissions },
  });
  return new Promise<WorkerReply>((resolve, reject) => {
    worker.onmessage = (message) => {
      worker.terminate();
      resolve(message.data);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      worker.terminate();
      reject(new Error(event.message));
    };
    worker.postMessage(job);
  });
}

Deno.test("worker: read inside the workspace works (the control)", async () => {
  const { workspace, dataDir, done } = layout();
  const reply = await runInWorker("workspace-write", {
    workspace,
    dataDir,
    tool: "read",
    input: { file_path: "inside.txt" },
  });
  assertEquals(reply.ok, true);
  assertStringIncludes(reply.output ?? "", "inside");
  done();
});

Deno.test("worker: read outside with allow-all policy → not_capable tool error", async () => {
  const { workspace, outside, dataDir, done } = layout();
  const file_path = path.join(outside, "secret.txt");
  const reply = await runInWorker("workspace-write", {
    workspace,
    dataDir,
    tool: "read",
    input: { file_path },
  });
  assertEquals(reply.decision, "allow");
  assertEquals(reply.ok, false);
  assertEquals(reply.error?.code, "not_capable");
  assertEquals((reply.output ?? "").includes("secret"), false);
  done();
});

Deno.test("worker: write outside with allow-all policy → not_capable, nothing created", async () => {
  const { workspace, outside, dataDir, done } = layout();
  const file_path = path.join(outside, "planted.txt");
  const reply = await runInWorker("workspace-write", {
    workspace,
    dataDir,
    tool: "write",
    input: { file_path, content: "x" },
  });
  assertEquals([reply.decision, reply.ok, reply.error?.code], ["allow", false, "not_capable"]);
  assertEquals([...Deno.readDirSync(outside)].map((e) => e.name), ["secret.txt"]);
  done();
});

Deno.test("worker: read through a symlink pointing out → not_capable (tools open the realpath)", async () => {
  const { workspace, outside, dataDir, done } = layout();
  Deno.symlinkSync(path.join(outside, "secret.txt"), path.join(workspace, "link.txt"));
  const reply = await runInWorker("workspace-write", {
    workspace,
    dataDir,
    tool: "read",
    input: { file_path: "link.txt" },
  });
  assertEquals([reply.ok, reply.error?.code], [false, "not_capable"]);
  done();
});

Deno.test("worker: read-only mode → writing inside the workspace is not_capable", async () => {
  const { workspace, dataDir, done } = layout();
  const reply = await runInWorker("read-only", {
    workspace,
    dataDir,
    tool: "write",
    input: { file_path: "new.txt", content: "x" },
  });
  assertEquals([reply.ok, reply.error?.code], [false, "not_capable"]);
  assert(!(await Deno.stat(path.join(workspace, "new.txt")).then(() => true, () => false)));
  done();
});

Deno.test("workerPermissions: the table per mode", () => {
  const { workspace, dataDir, root, done } = layout();
  const config = path.join(root, "config");
  const write = workerPermissions({
    mode: "workspace-write",
    workspace,
    dataDir,
    configDirs: [config],
    envNames: ["NODE_ENV", "OPENAI_API_KEY"],
    netHosts: ["api.example.com"],
  });
  assert(
    Array.isArray(write.read) && write.read.includes(workspace) && write.read.includes(config) &&
      write.read.includes(dataDir),
  );
  assertEquals(write.write, [workspace, dataDir]);
  assertEquals(write.net, ["api.example.com"]);
  assert(
    Array.isArray(write.env) && write.env.includes("NODE_ENV") &&
      !write.env.includes("OPENAI_API_KEY"),
  );
  assertEquals(
    write.run,
    Deno.build.os === "darwin"
      ? ["/usr/bin/sandbox-exec", ...installedBashPaths(), "rg", "git"]
      // Deno runs the Landlock backend's exec step; bash runs a command a person let go unsandboxed.
      : ["bwrap", Deno.execPath(), ...installedBashPaths(), "rg", "git"],
  );
  assertEquals([write.ffi, write.import], [false, false]);
  const readOnly = workerPermissions({ mode: "read-only", workspace, dataDir });
  assertEquals(readOnly.write, [dataDir]);
  const full = workerPermissions({
    mode: "full-access",
    workspace,
    dataDir,
    netHosts: true,
    engineEnvNames: ["OPENAI_API_KEY"],
  });
  // full-access: the Worker starts the shell itself, bash where installed.
  assertEquals(full.run, ["sh", ...installedBashPaths(), "rg", "git"]);
  assertEquals(full.net, true);
  assert(Array.isArray(full.env) && full.env.includes("OPENAI_API_KEY"));
  done();
});
