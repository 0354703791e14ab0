const { parse } = require("@babel/parser");
const { readFileSync, readdirSync, statSync } = require("node:fs");
const { join } = require("node:path");
const out = [];
function walk(d) { for (const f of readdirSync(d)) { const p = join(d, f); if (statSync(p).isDirectory()) walk(p); else if (p.endsWith(".ts")) scan(p); } }
function scan(p) {
  const ast = parse(readFileSync(p, "utf8"), { sourceType: "module", plugins: ["typescript"] });
  const visit = (n, parent) => {
    if (!n || typeof n.type !== "string") return;
    if (/Function|ArrowFunctionExpression|ClassMethod|ObjectMethod/.test(n.type) && n.body && n.loc) {
      const name = n.id?.name ?? n.key?.name ?? parent?.id?.name ?? parent?.key?.name ?? "<anon>";
      out.push([n.loc.end.line - n.loc.start.line + 1, `${p}:${n.loc.start.line} ${name}`]);
    }
    for (const k of Object.keys(n)) { if (k === "loc") continue; const v = n[k]; if (Array.isArray(v)) v.forEach((c) => visit(c, n)); else if (v && typeof v.type === "string") visit(v, n); }
  };
  visit(ast.program, null);
}
for (const r of process.argv.slice(2)) walk(r);
out.sort((x, y) => y[0] - x[0]);
const lim = Number(process.env.MIN ?? 60);
for (const [n, s] of out) if (n >= lim) console.log(n, s);
const sizes = out.map((x) => x[0]).sort((a, b) => a - b);
console.log("functions", sizes.length, "median", sizes[Math.floor(sizes.length / 2)], "max", sizes.at(-1));
