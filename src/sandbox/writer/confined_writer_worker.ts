/**
 * The confined writer's Worker: a thread that does nothing but the file
 * tools' writes, restricted by Landlock (where the kernel has it) to the
 * writable folders before it takes its first request. Every write uses
 * synchronous calls, which Deno runs on this thread, so the kernel checks
 * the real path at the moment of writing: a folder swapped for a symlink
 * after skiff's own checks cannot carry a write out. FFI is used once, to
 * apply the restriction, and the permission is revoked at once.
 */
/// <reference lib="deno.worker" />
import { writeFileAtomicSync } from "../../lib/atomic_write.ts";
import { restrictWritesTo } from "../landlock/landlock.ts";
import { isWithin, realpathLenient } from "../paths.ts";
import type { WriterInit, WriterOut, WriterReply, WriterRequest } from "./writer_messages.ts";

function serve(request: WriterRequest, writable: string[], confined: boolean): WriterReply {
  try {
    if (request.op === "write") writeFileAtomicSync(request.file, request.bytes, request.mode);
    else Deno.removeSync(request.file);
    return { id: request.id, ok: true };
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    if (confined && failure instanceof Deno.errors.PermissionDenied) {
      const real = realpathLenient(request.file);
      if (!writable.some((dir) => isWithin(dir, real))) {
        return {
          id: request.id,
          ok: false,
          error: {
            name: "NotCapable",
            message: `${request.file} now leads to ${real}, outside the writable folders ` +
              "(a folder was swapped for a symlink after the check); the kernel refused the write",
          },
        };
      }
    }
    return { id: request.id, ok: false, error: { name: failure.name, message: failure.message } };
  }
}

const post = (message: WriterOut) => self.postMessage(message);
let serving: ((request: WriterRequest) => WriterReply) | undefined;

// The first message is the init; every later one a request.
self.onmessage = (message: MessageEvent<WriterInit | WriterRequest>) => {
  if (serving) {
    post({ type: "reply", reply: serving(message.data as WriterRequest) });
    return;
  }
  const { writable } = message.data as WriterInit;
  const real = writable.map((dir) => realpathLenient(dir));
  const confinement = restrictWritesTo(real);
  try {
    Deno.permissions.revokeSync({ name: "ffi" });
  } catch { /* never granted */ }
  const confined = confinement.kind === "restricted";
  serving = (request) => serve(request, real, confined);
  post({ type: "confinement", result: confinement });
};
