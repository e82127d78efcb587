/**
 * The input text as rows of the bottom region: `> ` before the first line,
 * two spaces before the others, cut hard at the region's width (not at
 * spaces, so the cursor's cell is easy to find), and the row and column
 * where the cursor belongs. What the user types can hold anything a paste
 * brought in, so it is made safe like model text.
 */
import { neutraliseControls } from "../safe_text.ts";
import type { RegionCursor } from "./screen.ts";
import type { Style } from "./style.ts";
import { graphemes, textWidth } from "./width.ts";

export interface InputRows {
  rows: string[];
  cursor: RegionCursor;
}

export function inputRows(text: string, cursor: number, width: number, style: Style): InputRows {
  const rows: string[] = [];
  let at: RegionCursor | undefined;
  let offset = 0;
  const lines = text.split("\n");
  lines.forEach((line, index) => {
    const prefix = index === 0 ? style.bold("> ") : "  ";
    let row = prefix;
    let used = 2;
    for (const segment of graphemes(line)) {
      const shown = neutraliseControls(segment);
      const cells = textWidth(shown);
      if (used + cells > width) {
        rows.push(row);
        row = "  ";
        used = 2;
      }
      if (at === undefined && offset >= cursor) at = { row: rows.length, column: used };
      row += shown;
      used += cells;
      offset += segment.length;
    }
    if (at === undefined && offset >= cursor) {
      // The cursor after the last character; a full row puts it on the next one.
      if (used >= width) {
        rows.push(row);
        row = "  ";
        used = 2;
      }
      at = { row: rows.length, column: used };
    }
    rows.push(row);
    offset += 1; // the newline
  });
  return { rows, cursor: at ?? { row: rows.length - 1, column: 2 } };
}
