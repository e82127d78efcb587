/**
 * What the diagnostics after an edit look like to the tools that append them
 * and to the renderers that count them. Imports nothing.
 */

/** One new error a language server reported in a changed file. */
export interface FileDiagnostic {
  /** The file as the tool names it (relative to the workspace when inside). */
  path: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  message: string;
  /** The server's code for it (`TS2322`, `reportAssignmentType`), when it gives one. */
  code?: string;
  /** The server's name for its checker (`typescript`, `Pyright`). */
  source?: string;
}

/** What came back for one tool call's changed files. */
export interface DiagnosticsReport {
  /** Errors that were not there before the change. */
  errors: FileDiagnostic[];
  /** Servers that had not answered within the wait (still starting or checking). */
  busy: string[];
  /** Said once per session: a server missing, crashed, hung or denied. */
  notes: string[];
}

/** A file a tool call changed: its text before (null: created) and after. */
export interface ChangedFile {
  /** Absolute, symbolic links resolved. */
  real: string;
  display: string;
  before: string | null;
  after: string;
}

/** Asks the session's language servers about changed files; never throws. */
export type DiagnoseChanges = (
  files: ChangedFile[],
  signal?: AbortSignal,
) => Promise<DiagnosticsReport | undefined>;

/** The session's language servers as the file tools see them. */
export interface LanguageServers {
  /** New errors in files a tool changed; never throws. */
  diagnose: DiagnoseChanges;
  /**
   * A file was read: start its server and open it there without waiting, so
   * that an edit finds the server warm and the text before it checked.
   */
  opened(real: string, text: string): void;
}
