// Side (c): the raw floor — node:http (keep-alive), paged LIST (limit 500) with JSON.parse per page,
// then one watch: split lines, JSON.parse, a Map. No retries, no freezing, no copies: the least
// work a correct list+watch cache can do in Node.
import { Buffer } from 'node:buffer';
import { Agent, request } from 'node:http';

import { runSide } from '../child.mjs';

await runSide(async ({ url, token, namespace, synced, modified, fail }) => {
  const agent = new Agent({ keepAlive: true });
  const headers = { Accept: 'application/json', Authorization: `Bearer ${token}` };
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
  const cache = new Map();
  const keyOf = (o) => `${o.metadata.namespace}/${o.metadata.name}`;

  const getJson = (query) =>
    new Promise((resolve, reject) => {
      const req = request(`${url}${path}?${query}`, { agent, headers }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`list: HTTP ${String(res.statusCode)}`));
          else resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });

  let resourceVersion;
  let cont;
  do {
    const page = await getJson(`limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
    for (const o of page.items) cache.set(keyOf(o), o);
    resourceVersion = page.metadata.resourceVersion;
    cont = page.metadata.continue;
  } while (cont);
  synced();

  const req = request(
    `${url}${path}?watch=true&allowWatchBookmarks=true&resourceVersion=${resourceVersion}`,
    { agent, headers },
    (res) => {
      if (res.statusCode !== 200) return fail(new Error(`watch: HTTP ${String(res.statusCode)}`));
      res.setEncoding('utf8');
      let rest = '';
      res.on('data', (chunk) => {
        const text = rest + chunk;
        let start = 0;
        for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
          const event = JSON.parse(text.slice(start, nl));
          start = nl + 1;
          const o = event.object;
          resourceVersion = o.metadata.resourceVersion;
          if (event.type === 'ADDED') cache.set(keyOf(o), o);
          else if (event.type === 'MODIFIED') {
            cache.set(keyOf(o), o);
            modified();
          } else if (event.type === 'DELETED') cache.delete(keyOf(o));
          else if (event.type === 'ERROR') fail(new Error(`watch: ${JSON.stringify(o)}`));
        }
        rest = text.slice(start);
      });
      res.on('end', () => fail(new Error('watch ended before the last event')));
    },
  );
  req.on('error', fail);
  req.end();

  return {
    size: () => cache.size,
    rvSum: () => {
      let sum = 0;
      for (const o of cache.values()) sum += Number(o.metadata.resourceVersion);
      return sum;
    },
  };
});
