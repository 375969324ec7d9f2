/** A line diff: the longest common subsequence of two texts' lines, the rest added or removed. */

export interface DiffLine {
  type: 'same' | 'add' | 'del';
  text: string;
  /** 1-based line numbers in the old and the new text (absent on the side the line is not in). */
  oldLine?: number;
  newLine?: number;
}

/** Above this many cells the table is not built: the middle is shown as removed, then added. */
const MAX_CELLS = 4_000_000;

export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  // Common head and tail cost nothing and keep the table small.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);

  const out: DiffLine[] = [];
  let oldNo = 1;
  let newNo = 1;
  const same = (text: string) => out.push({ type: 'same', text, oldLine: oldNo++, newLine: newNo++ });
  const del = (text: string) => out.push({ type: 'del', text, oldLine: oldNo++ });
  const add = (text: string) => out.push({ type: 'add', text, newLine: newNo++ });

  for (let i = 0; i < head; i++) same(a[i]!);
  const n = midA.length;
  const m = midB.length;
  if (n * m > MAX_CELLS) {
    midA.forEach(del);
    midB.forEach(add);
  } else {
    // lcs[i][j]: the LCS length of midA[i..] and midB[j..], in one flat row-major array.
    const width = m + 1;
    const lcs = new Uint32Array((n + 1) * width);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * width + j] = midA[i] === midB[j] ? lcs[(i + 1) * width + j + 1]! + 1 : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (midA[i] === midB[j]) {
        same(midA[i]!);
        i++;
        j++;
      } else if (lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!) {
        del(midA[i++]!);
      } else {
        add(midB[j++]!);
      }
    }
    while (i < n) del(midA[i++]!);
    while (j < m) add(midB[j++]!);
  }
  for (let i = a.length - tail; i < a.length; i++) same(a[i]!);
  return out;
}
