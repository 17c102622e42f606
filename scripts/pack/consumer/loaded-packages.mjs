// Prints, as JSON, the names of the packages (under node_modules) whose files Node loads when it
// imports the specifier given as the first argument — through module.registerHooks, which sees
// every import and require.
import { registerHooks } from 'node:module';

const loaded = new Set();
registerHooks({
  load(url, context, nextLoad) {
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(decodeURIComponent(url));
    if (m) loaded.add(m[1]);
    return nextLoad(url, context);
  },
});
await import(process.argv[2]);
console.log(JSON.stringify([...loaded].sort()));
