// A simple SQL layout: each main clause on its own line; quoted text is left alone.

const CLAUSES =
  /\s+(?=\b(?:SELECT|FROM|WHERE|GROUP\s+BY|ORDER\s+BY|HAVING|LIMIT|OFFSET|UNION(?:\s+ALL)?|(?:LEFT\s+|RIGHT\s+|INNER\s+|FULL\s+|CROSS\s+)?(?:OUTER\s+)?JOIN)\b)/gi;
const ANDS = /\s+(?=\b(?:AND|OR)\b)/gi;
// Quoted strings and identifiers, kept whole so their contents are never re-laid out.
const QUOTED = /('(?:[^']|'')*'|"(?:[^"]|"")*")/;

/** Return `sql` with a line break before each clause and an indent before AND/OR. */
export function formatSql(sql) {
  const parts = String(sql ?? "").trim().split(QUOTED);
  return parts
    .map((part, index) =>
      index % 2 === 1 ? part : part.replace(CLAUSES, "\n").replace(ANDS, "\n  "),
    )
    .join("")
    .trim();
}
