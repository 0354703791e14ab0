// npm scripts must run on the Node 24 that the `node` devDependency installs. `npm ci --ignore-scripts`
// skips that package's install step and everything silently falls back to the machine's Node 20, where
// vitest dies with an obscure "Map.groupBy is not a function". Say what is wrong instead.
const major = Number(process.versions.node.split(".")[0]);
if (major < 24) {
  console.error(
    `postern: running on Node ${process.versions.node}; this project needs Node 24 (the "node" devDependency).\n` +
      "Fix: run `npm ci` without --ignore-scripts, or `npm rebuild node`.",
  );
  process.exit(1);
}
