// One line per module of `npm test`'s coverage (v8, through vitest's istanbul report API): a reader sees where the
// tested code is thin without opening an HTML report. The floors themselves are vitest's own `coverage.thresholds`
// (vitest.config.ts), which fail the run; this report only prints.

/** The module a file belongs to: `shared/<dir>` (or `shared` for its top-level files), else its top folder. */
export function moduleOf(relPath) {
  const parts = relPath.split("/");
  if (parts[0] === "shared") return parts.length > 2 ? `shared/${parts[1]}` : "shared";
  return parts[0];
}

const pct = (covered, total) => (total === 0 ? 100 : (100 * covered) / total);

/**
 * Per module: lines, branches and functions covered and total, over `files` (each an absolute `path` and istanbul's
 * per-file `summary`).
 */
export function summarise(files, root) {
  const modules = new Map();
  for (const { path, summary: s } of files) {
    const rel = path.startsWith(root) ? path.slice(root.length + 1) : path;
    const key = moduleOf(rel);
    const m = modules.get(key) ?? { files: 0, lines: [0, 0], branches: [0, 0], functions: [0, 0] };
    m.files++;
    for (const k of ["lines", "branches", "functions"]) {
      m[k][0] += s[k].covered;
      m[k][1] += s[k].total;
    }
    modules.set(key, m);
  }
  return [...modules.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, m]) => ({
      name,
      files: m.files,
      lines: pct(...m.lines),
      branches: pct(...m.branches),
      functions: pct(...m.functions),
    }));
}

export function formatLine(r) {
  const p = (n) => `${n.toFixed(1).padStart(5)}%`;
  return `coverage ${r.name.padEnd(22)} lines ${p(r.lines)}  branches ${p(r.branches)}  functions ${p(r.functions)}  (${r.files} files)`;
}

export default class ModuleCoverage {
  constructor(opts = {}) {
    this.root = opts.root ?? process.cwd();
  }

  execute(context) {
    const files = [];
    context.getTree("flat").visit({
      onDetail(node) {
        const fc = node.getFileCoverage();
        files.push({ path: fc.path, summary: fc.toSummary() });
      },
    });
    const rows = summarise(files, this.root);
    process.stdout.write(`\n${rows.map(formatLine).join("\n")}\n`);
  }
}
