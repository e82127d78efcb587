/**
 * Language servers for the diagnostics after an edit: the known servers and
 * the config's, one per session and server, started contained, kept warm.
 */
export { SessionDiagnostics, type SessionDiagnosticsOptions } from "./diagnostics.ts";
export { formatDiagnostics } from "./format.ts";
export type {
  ChangedFile,
  DiagnoseChanges,
  DiagnosticsReport,
  FileDiagnostic,
  LanguageServers,
} from "./types.ts";
