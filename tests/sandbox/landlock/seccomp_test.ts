/**
 * The exec step's seccomp program (src/sandbox/landlock/seccomp.ts) for each
 * architecture it has a table for: built whole (every jump lands inside
 * the program), ending in its verdicts. What it refuses is tried end to end
 * in tests/escape/e2e_landlock_process_escape_test.ts and
 * e2e_metadata_escape_test.ts, on this machine's architecture.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { commandFilter } from "../../../src/sandbox/landlock/seccomp.ts";

const RET_K = 0x06;
const BPF_JMP = 0x05;

for (
  const [machine, network] of [
    ["x86_64", "open"],
    ["x86_64", "tcp"],
    ["x86_64", "none"],
    ["aarch64", "open"],
    ["aarch64", "tcp"],
    ["aarch64", "none"],
  ] as const
) {
  Deno.test(`seccomp: the ${machine} program (network ${network}) builds, every jump inside it`, () => {
    const filter = commandFilter(machine, network);
    assert(filter !== null, `no table for ${machine}`);
    const { program, pidAt } = filter;
    const view = new DataView(program.buffer);
    const count = program.length / 8;
    assert(count <= 4096, "BPF programs hold at most 4096 instructions");
    for (let index = 0; index < count; index++) {
      if ((view.getUint16(index * 8, true) & 0x07) !== BPF_JMP) continue;
      const jt = view.getUint8(index * 8 + 2);
      const jf = view.getUint8(index * 8 + 3);
      assert(index + 1 + Math.max(jt, jf) < count, `jump out of the program at ${index}`);
    }
    // allow, EPERM, ENOSYS: the last three instructions are the verdicts.
    const verdicts = [count - 3, count - 2, count - 1].map((index) => [
      view.getUint16(index * 8, true),
      view.getUint32(index * 8 + 4, true),
    ]);
    assertEquals(verdicts, [[RET_K, 0x7fff0000], [RET_K, 0x00050001], [RET_K, 0x00050026]]);
    // The step writes its pid into a comparison, left 0 until then.
    assertEquals(view.getUint16(pidAt - 4, true), 0x15, "the pid slot is not a JEQ");
    assertEquals(view.getUint32(pidAt, true), 0);
  });
}

Deno.test("seccomp: an architecture without a table gets no program (the step then refuses)", () => {
  assertEquals(commandFilter("riscv64gc" as typeof Deno.build.arch), null);
});
