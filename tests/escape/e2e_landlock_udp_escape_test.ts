/**
 * UDP from a command under `skiff run --sandbox-backend landlock` with the
 * network off. Landlock judges only TCP, so the exec step's seccomp filter
 * refuses the other internet sockets (src/sandbox/landlock/seccomp.ts). The listener
 * is the test's, on 127.0.0.1; control: the same command under
 * `--sandbox full-access` reaches it. Skipped loudly where Landlock does
 * not work; needs bash (its `/dev/udp`), and fails without it.
 */
import dgram from "node:dgram";
import { assert, assertEquals } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import { probeSandboxes } from "../../src/sandbox/choose.ts";
import { bash, lastToolResults, withAttack } from "./e2e_support.ts";

const found = await probeSandboxes();
if (!found.landlock) {
  console.warn(
    `\n!!! LANDLOCK UDP E2E: Landlock does not work here (${found.reasons?.landlock}); SKIPPED. !!!\n`,
  );
}

/** A UDP listener on 127.0.0.1 that keeps what it receives. */
async function listener(): Promise<{ port: number; received: string[]; close(): void }> {
  const socket = dgram.createSocket("udp4");
  const received: string[] = [];
  socket.on("message", (message: Uint8Array) => received.push(new TextDecoder().decode(message)));
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return { port: socket.address().port, received, close: () => socket.close() };
}

async function sendFrom(args: string[], word: string): Promise<{ seen: string; got: string[] }> {
  const udp = await listener();
  try {
    let seen = "";
    const attack = `bash -c 'echo ${word} > /dev/udp/127.0.0.1/${udp.port}' && echo SENT`;
    await withAttack([{ toolCalls: [bash(attack)] }, { text: "done" }], async (sandbox, mock) => {
      const result = await runSkiff(args, sandbox);
      assertEquals(result.code, 0, result.stderr);
      seen = lastToolResults(mock)[0]?.content ?? "";
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { seen, got: [...udp.received] };
  } finally {
    udp.close();
  }
}

Deno.test({
  name: "landlock e2e: UDP with the network off is refused (control: full-access sends it)",
  ignore: !found.landlock,
}, async () => {
  assert(
    (await new Deno.Command("bash", { args: ["-c", "true"] }).output()).success,
    "bash is needed for /dev/udp",
  );
  const contained = await sendFrom(
    ["run", "--json", "--yes", "--sandbox-backend", "landlock", "go"],
    "landlock",
  );
  assertEquals(contained.got, [], `a datagram got out: ${contained.seen}`);
  assert(!contained.seen.includes("SENT"), contained.seen);
  const uncontained = await sendFrom(
    ["run", "--json", "--yes", "--sandbox", "full-access", "go"],
    "uncontained",
  );
  assertEquals(uncontained.got, ["uncontained\n"], `control: ${uncontained.seen}`);
});
