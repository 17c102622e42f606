// Prints, as JSON, the names of the packages (under node_modules) whose files Node loads when it
// imports the specifier given as the first argument — through module.registerHooks, which sees
// every import and require. With a second argument `manager`, it also constructs a Manager from
// the import (an operator's start: its logger and metrics load pino and prom-client on first use).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const loaded = new Set();
registerHooks({
  load(url, context, nextLoad) {
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(decodeURIComponent(url));
    if (m) loaded.add(m[1]);
    return nextLoad(url, context);
  },
});
const imported = await import(process.argv[2]);
if (process.argv[3] === 'manager') {
  // a client of a kubeconfig naming an unused address: constructing sends nothing
  const dir = mkdtempSync(join(tmpdir(), 'rxkube-loaded-'));
  const path = join(dir, 'kubeconfig.json');
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: 'http://127.0.0.1:9' } }],
      users: [{ name: 'u', user: {} }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
  const client = imported.KubeClient.fromKubeConfig(imported.loadKubeConfigFile(path));
  rmSync(dir, { recursive: true, force: true });
  void new imported.Manager({ client, name: 'probe', logLevel: 'silent' });
  client.close();
}
console.log(JSON.stringify([...loaded].sort()));
