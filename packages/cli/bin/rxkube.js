#!/usr/bin/env node
// The `rxkube` command: see packages/cli/README.md.
// The version check comes before any import of rxkube (a static import would load undici first,
// which crashes on an older Node with a TypeError instead of this message).
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  console.error(
    `rxkube: Node ${process.versions.node} is too old; rxkube needs Node >= 22.19. Install Node 22 LTS or newer (e.g. \`nvm install 22\`).`,
  );
  process.exit(1);
}
const { main } = await import('../dist/main.js');

process.exitCode = await main(process.argv.slice(2));
