/**
 * `session/list`: the stored sessions an editor may offer to load, the
 * same list `skiff sessions list` prints (top-level sessions, newest
 * first), of the folder the editor names or of every folder.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { resolveWorkspace } from "../../host/setup.ts";
import { withStore } from "../store_access.ts";

/** How many sessions one answer lists; the newest. */
const LISTED_SESSIONS = 100;

/** The sessions of `params.cwd` (every folder's when absent), newest first. */
export function listedSessions(params: acp.ListSessionsRequest): acp.ListSessionsResponse {
  const workspace = params.cwd ? resolveWorkspace(params.cwd) : undefined;
  const sessions = withStore((store) => store.listSessions({ workspace, limit: LISTED_SESSIONS }));
  return {
    sessions: sessions.map((session) => ({
      sessionId: session.id,
      cwd: session.workspace,
      title: session.title || null,
      updatedAt: new Date(session.updated_at).toISOString(),
    })),
  };
}
