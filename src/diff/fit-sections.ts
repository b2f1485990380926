/**
 * Fitting a Markdown document under a size limit (GitHub refuses a comment body over 65,536
 * characters) by leaving out whole rows and sections, never cutting one in the middle, and counting
 * what was left out so the document can say so.
 */

/** A table (or list) that may lose rows from its end: its heading and header, then one line per row. */
export interface CuttableSection {
  /** Lines before the rows (a heading, a blank line, the table header). */
  head: string[];
  /** One line each, most important first. */
  rows: string[];
  /** Lines after the rows (usually a blank line). */
  tail: string[];
  /** What a row is, plural, for the note: `changed jobs`. */
  noun: string;
}

/** Sections shown together, e.g. inside one `<details>`: dropped whole when none of its sections fits. */
export interface SectionGroup {
  open: string[];
  sections: CuttableSection[];
  close: string[];
}

/** What was left out to fit. */
export interface LeftOut {
  /** Rows left out, in sections shown in part or not at all. */
  rows: number;
  /** Sections left out whole. */
  sections: number;
}

/** Room kept for the line that says how many rows of a section were left out. */
const NOTE_ROOM = 120;

const size = (lines: readonly string[]) => lines.reduce((sum, line) => sum + line.length + 1, 0);

/**
 * The groups' lines that fit in `budget` characters (each line counted with its newline), in order,
 * and what was left out. A section shows its rows from the first until the next would not fit,
 * then a note of how many more there were; a section whose first row does not fit is left out whole,
 * and so is a group none of whose sections fits.
 */
export function fitSections(
  groups: readonly SectionGroup[],
  budget: number,
): { lines: string[]; leftOut: LeftOut } {
  const lines: string[] = [];
  const leftOut: LeftOut = { rows: 0, sections: 0 };
  let remaining = budget;
  for (const group of groups) {
    const shell = size(group.open) + size(group.close);
    const shown: string[] = [];
    let room = remaining - shell;
    for (const section of group.sections) {
      const head = size(section.head) + size(section.tail);
      const first = section.rows[0];
      if (first === undefined) continue;
      if (room < head + first.length + 1 + NOTE_ROOM) {
        leftOut.sections++;
        leftOut.rows += section.rows.length;
        continue;
      }
      room -= head;
      shown.push(...section.head);
      let taken = 0;
      for (const row of section.rows) {
        if (room - (row.length + 1) < NOTE_ROOM && taken < section.rows.length - 1) break;
        if (room - (row.length + 1) < 0) break;
        shown.push(row);
        room -= row.length + 1;
        taken++;
      }
      const more = section.rows.length - taken;
      if (more > 0) {
        const note = `\n_…and ${more.toLocaleString('en-US')} more ${section.noun}, left out to fit the comment (see the full report)._`;
        shown.push(note);
        room -= note.length + 1;
        leftOut.rows += more;
      }
      shown.push(...section.tail);
    }
    if (shown.length === 0) continue;
    lines.push(...group.open, ...shown, ...group.close);
    remaining = room;
  }
  return { lines, leftOut };
}
