// npm scripts must run on the Node 24 that the `node` devDependency installs. `npm ci --ignore-scripts`
// skips that package's install step and everything silently falls back to the machine's Node 20, where
// vitest dies with an obscure "Map.groupBy is not a function"; a plain shell's `node bin/postern.mjs` meets the
// machine's Node too. Say what is wrong and what to do, in one line.
const major = Number(process.versions.node.split(".")[0]);
if (major < 24) {
  console.error(
    `postern: this is Node ${process.versions.node}, and Postern needs Node 24: run it through npm (\`npx postern\`, \`npm run postern\`), which uses the "node" devDependency's Node 24; if that fails too, run \`npm rebuild node\` (or \`npm ci\` without --ignore-scripts)`,
  );
  process.exit(1);
}
