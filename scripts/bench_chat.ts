/**
 * The chat's bench: time from `skiff` to a ready input prompt, as
 * a ratio to an empty `deno run` on the same machine (median of 5 each, in
 * one run), and the resident memory of the chat process after 10 and after
 * 200 scripted messages (each a prompt and its streamed answer) against the
 * mock. The chat needs a terminal: it runs under `script`, which gives it a
 * pseudo-terminal, with the runtime flags of deno.json's `tasks.skiff` (what
 * `deno task skiff` and the installed binary run with). Run: deno run -A
 * --unstable-worker-options scripts/bench_chat.ts
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { startMockServer } from "../tests/support/mock_server.ts";
import { makeSandbox, type Sandbox } from "../tests/support/cli.ts";
import { runtimeFlags } from "./compile.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** SKIFF_BENCH_MAIN: another tree's main.ts, to measure a before and an after in one sitting. */
const MAIN = Deno.env.get("SKIFF_BENCH_MAIN") ?? path.join(ROOT, "main.ts");
const READY = "Ctrl-D to exit";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** The chat under a pseudo-terminal, with a reader of everything it drew. */
class ChatUnderPty {
  readonly child: Deno.ChildProcess;
  #seen = "";
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #reading: Promise<void>;

  constructor(sandbox: Sandbox, flags: string[]) {
    const { NO_COLOR: _plain, ...env } = sandbox.env;
    // BENCH_V8_FLAGS (say --max-semi-space-size=1,--max-old-space-size=40) replaces
    // deno.json's V8 flags: a capped heap tells a leak from a lazy collector.
    const v8 = Deno.env.get("BENCH_V8_FLAGS");
    const runtime = v8
      ? [...flags.filter((flag) => !flag.startsWith("--v8-flags=")), `--v8-flags=${v8}`]
      : flags;
    const line = `stty cols 100 rows 30; ${quote(Deno.execPath())} run ${
      runtime.map(quote).join(" ")
    } ${quote(MAIN)}`;
    const child = new Deno.Command("script", {
      args: ["-qfec", line, "/dev/null"],
      cwd: sandbox.workspace,
      env: { ...env, TERM: "xterm-256color", COLUMNS: "100", LINES: "30" },
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.child = child;
    this.#writer = child.stdin.getWriter();
    this.#reading = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of child.stdout) {
        // Only the tail matters for what is waited for; the bench must not hold it all.
        this.#seen = (this.#seen + decoder.decode(chunk, { stream: true })).slice(-20_000);
      }
    })();
  }

  async waitFor(text: string, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.#seen.includes(text)) {
      if (Date.now() > deadline) {
        throw new Error(
          `"${text}" never appeared; last output:\n${JSON.stringify(this.#seen.slice(-1500))}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }

  async type(text: string): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(text));
  }

  /** Resident memory (MB) of the deno process running the chat (the engine's Worker is inside it). */
  rssMb(): number {
    const pids = descendants(this.child.pid);
    for (const pid of pids) {
      try {
        const cmdline = Deno.readTextFileSync(`/proc/${pid}/cmdline`);
        const [program, ...args] = cmdline.split("\0");
        if (program !== Deno.execPath() || !args.includes(MAIN)) continue;
        const status = Deno.readTextFileSync(`/proc/${pid}/status`);
        return Number(status.match(/^VmRSS:\s+(\d+) kB/m)?.[1] ?? 0) / 1024;
      } catch { /* gone */ }
    }
    return 0;
  }

  async close(): Promise<void> {
    await this.type("\x15\x04").catch(() => {}); // already gone
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
    await this.child.status;
    clearTimeout(timer);
    await this.#writer.close().catch(() => {});
    await this.#reading.catch(() => {});
  }
}

function descendants(pid: number): number[] {
  const found: number[] = [];
  const visit = (parent: number) => {
    let children: string[] = [];
    try {
      for (const task of Deno.readDirSync(`/proc/${parent}/task`)) {
        children.push(
          ...Deno.readTextFileSync(`/proc/${parent}/task/${task.name}/children`).trim().split(
            /\s+/,
          ),
        );
      }
    } catch { /* gone */ }
    children = children.filter(Boolean);
    for (const child of children) {
      found.push(Number(child));
      visit(Number(child));
    }
  };
  visit(pid);
  return found;
}

export async function benchChatStartup(): Promise<string[]> {
  const flags = await runtimeFlags();
  const dir = await Deno.makeTempDir({ prefix: "skiff-bench-chat-" });
  const empty = path.join(dir, "empty.ts");
  await Deno.writeTextFile(empty, "");
  const emptyRuns: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    await new Deno.Command(Deno.execPath(), { args: ["run", ...flags, empty], stdout: "null" })
      .output();
    emptyRuns.push(performance.now() - start);
  }
  const mock = startMockServer([]);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" });
  const readyRuns: number[] = [];
  try {
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      const chat = new ChatUnderPty(sandbox, flags);
      await chat.waitFor(READY);
      readyRuns.push(performance.now() - start);
      await chat.close();
    }
  } finally {
    await mock.close();
    await sandbox.cleanup();
    await Deno.remove(dir, { recursive: true });
  }
  const ratio = median(readyRuns) / median(emptyRuns);
  return [
    `empty deno run: median ${median(emptyRuns).toFixed(0)} ms (${
      emptyRuns.map((ms) => ms.toFixed(0)).join(", ")
    })`,
    `chat start-up, skiff to a ready input prompt: median ${median(readyRuns).toFixed(0)} ms (${
      readyRuns.map((ms) => ms.toFixed(0)).join(", ")
    })`,
    `chat start-up ratio to an empty deno run: ${ratio.toFixed(1)}× (aim ≤ 6×) ${
      ratio <= 6 ? "OK" : "OVER"
    }`,
  ];
}

export async function benchChatMemory(messages = 200, early = 10): Promise<string[]> {
  const script = Array.from({ length: messages }, (_, i) => ({
    text: `Answer ${i + 1}: ${"a paragraph of **markdown** with `code`. ".repeat(8)}\n\ndone-${
      i + 1
    }.`,
  }));
  const mock = startMockServer(script);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" });
  const chat = new ChatUnderPty(sandbox, await runtimeFlags());
  const rss: Record<number, number> = {};
  try {
    await chat.waitFor(READY);
    for (let i = 1; i <= messages; i++) {
      await chat.type(`message ${i}\r`);
      await chat.waitFor(`done-${i}.`);
      if (i === early || i % 50 === 0 || i === messages) {
        // Let the answer's last redraws and the store's write settle first.
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        rss[i] = chat.rssMb();
      }
    }
  } finally {
    await chat.close();
    await mock.close();
    await sandbox.cleanup();
  }
  return [
    `RSS along the way: ${
      Object.entries(rss).map(([at, mb]) => `${at}: ${mb.toFixed(0)} MB`).join(", ")
    }`,
    `RSS of the chat after ${early} messages: ${rss[early].toFixed(1)} MB`,
    `RSS of the chat after ${messages} messages: ${rss[messages].toFixed(1)} MB (${
      (rss[messages] - rss[early]).toFixed(1)
    } MB more)`,
  ];
}

/** Both, for `deno task bench`'s "chat" section. */
export async function benchChat(): Promise<string[]> {
  return [...await benchChatStartup(), ...await benchChatMemory()];
}

if (import.meta.main) {
  for (const line of await benchChat()) console.log(line);
}
