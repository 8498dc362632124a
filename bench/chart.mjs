// Draws the benchmark report's ratio columns as one SVG bar chart beside it (docs/benchmarks.svg), and links the
// chart from the report. Plain SVG text, no dependency: it reads the report's Markdown tables, so whatever
// bench/lib/report.mjs writes into a "ratio to ..." column is charted, one panel per table.
// Usage: node bench/chart.mjs [report.md]   (bench/run.mjs calls writeChart after writing the report)
import { readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const LINK_MARK = '<!-- benchmarks chart -->';

/** Splits one Markdown table row into its cells. */
const cells = (line) =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => c.trim());

/**
 * The report's ratio tables: for each table with a column headed `ratio to ...`, its heading, the baseline the
 * column names, and each row's label and ratio (rows in bold are psp-sdk's own).
 * @param {string} markdown
 * @returns {Array<{ title: string, baseline: string, rows: Array<{ label: string, ratio: number, ours: boolean }> }>}
 */
export function ratioTables(markdown) {
  const lines = markdown.split('\n');
  const tables = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const h = /^#{2,4} (.+)$/.exec(line);
    if (h) heading = h[1].trim();
    if (!line.startsWith('|') || !/^\|[-| ]+\|$/.test(lines[i + 1] ?? '')) continue;
    const header = cells(line);
    const col = header.findIndex((c) => /^ratio to /.test(c));
    let j = i + 2;
    const rows = [];
    for (; j < lines.length && lines[j].startsWith('|'); j++) {
      const row = cells(lines[j]);
      const ratio = Number.parseFloat((row[col] ?? '').replace(/,/g, ''));
      if (col < 0 || !Number.isFinite(ratio)) continue;
      const raw = row[0] ?? '';
      // A psp-sdk row is `**name (variant)** (explanation)`: the bold part names it, the rest explains.
      const bold = /^\*\*(.+?)\*\*/.exec(raw);
      const label = (bold ? bold[1] : raw).replace(/`/g, '').trim();
      rows.push({ label, ratio, ours: bold !== null });
    }
    if (rows.length > 0)
      tables.push({ title: heading, baseline: header[col].replace(/^ratio to /, ''), rows });
    i = j - 1;
  }
  return tables;
}

const esc = (s) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const clip = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * The chart: one panel per ratio table, a bar per row (psp-sdk's in blue), a dashed line at 1.00 (the baseline).
 * @param {ReturnType<typeof ratioTables>} tables
 * @param {string} [subtitle]
 */
export function chartSvg(tables, subtitle = '') {
  const width = 960;
  const labelRight = 400;
  const barLeft = 410;
  const barMax = width - barLeft - 70;
  const top = Math.max(1, ...tables.flatMap((t) => t.rows.map((r) => r.ratio)));
  const x = (ratio) => barLeft + (Math.min(ratio, top) / top) * barMax;
  const out = [];
  let y = 30;
  out.push(
    `<text x="16" y="${y}" font-size="18" font-weight="700">psp-sdk benchmarks: ratios to a baseline in the same run</text>`,
  );
  if (subtitle) {
    y += 20;
    out.push(`<text x="16" y="${y}" font-size="12" fill="#4b5563">${esc(subtitle)}</text>`);
  }
  y += 14;
  for (const t of tables) {
    y += 22;
    out.push(
      `<text x="16" y="${y}" font-size="14" font-weight="700">${esc(clip(t.title, 70))}</text>`,
      `<text x="${width - 16}" y="${y}" font-size="11" fill="#4b5563" text-anchor="end">1.00 = ${esc(clip(t.baseline, 60))}</text>`,
    );
    const panelTop = y + 8;
    for (const r of t.rows) {
      y += 22;
      const fill = r.ours ? '#2563eb' : '#9ca3af';
      const w = Math.max(1, x(r.ratio) - barLeft);
      out.push(
        `<text x="${labelRight}" y="${y}" font-size="12" text-anchor="end"${r.ours ? ' font-weight="700"' : ''}>${esc(clip(r.label, 54))}</text>`,
        `<rect x="${barLeft}" y="${y - 12}" width="${w.toFixed(1)}" height="15" fill="${fill}"><title>${esc(r.label)}: ${r.ratio.toFixed(2)}</title></rect>`,
        `<text x="${(barLeft + w + 6).toFixed(1)}" y="${y}" font-size="12">${r.ratio.toFixed(2)}</text>`,
      );
    }
    const one = x(1).toFixed(1);
    out.push(
      `<line x1="${one}" y1="${panelTop}" x2="${one}" y2="${y + 6}" stroke="#111827" stroke-dasharray="4 3"/>`,
    );
    y += 10;
  }
  y += 24;
  out.push(
    `<rect x="16" y="${y - 11}" width="12" height="12" fill="#2563eb"/><text x="34" y="${y}" font-size="12">psp-sdk</text>`,
    `<rect x="110" y="${y - 11}" width="12" height="12" fill="#9ca3af"/><text x="128" y="${y}" font-size="12">baseline and peers</text>`,
    `<text x="${width - 16}" y="${y}" font-size="11" fill="#4b5563" text-anchor="end">higher is better; dashed line: the baseline (1.00)</text>`,
  );
  const height = y + 16;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" fill="#111827">`,
    `<title>psp-sdk benchmarks: the report's ratios to a baseline measured in the same run</title>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    ...out,
    '</svg>',
    '',
  ].join('\n');
}

/**
 * Writes the chart of `reportFile` beside it (same name, .svg) and links it from the report once, under the
 * report's first paragraph. Returns the chart's path.
 * @param {string} reportFile
 */
export async function writeChart(reportFile) {
  const markdown = await readFile(reportFile, 'utf8');
  const generated = /^Generated by .*? on ([^.]+?)\./m.exec(markdown)?.[1];
  const svgFile = reportFile.replace(/\.md$/, '.svg');
  await writeFile(svgFile, chartSvg(ratioTables(markdown), generated ? `npm run bench, ${generated}` : ''));
  if (!markdown.includes(LINK_MARK)) {
    const link = `${LINK_MARK}\n![The report's ratios as bars, one panel per table](./${basename(svgFile)})\n`;
    const at = markdown.indexOf('\n## ');
    const linked = at < 0 ? `${markdown}\n${link}` : `${markdown.slice(0, at)}\n${link}${markdown.slice(at)}`;
    await writeFile(reportFile, linked);
  }
  return svgFile;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const report =
    process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'benchmarks.md');
  console.error(`wrote ${await writeChart(report)}`);
}
