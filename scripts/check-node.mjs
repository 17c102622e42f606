// Fails early, with a clear message, when a script runs on a Node older than the one rxkube
// supports (client-node 2.x needs >= 22.19). Under `pnpm run` the workspace's own Node 22
// (the `node` devDependency) is first on PATH, so this only trips when a script is run directly.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  console.error(
    `rxkube: Node ${process.versions.node} is too old; rxkube needs Node >= 22.19. ` +
      'Run through `npm test` / `npm run demo` (they use the Node the workspace installs), or `pnpm run <script>`.',
  );
  process.exit(1);
}
