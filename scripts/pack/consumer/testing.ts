// @rxkube/testing as a user installs it: start the in-memory API server over TLS (its test CA
// ships in the package) and talk to it over HTTPS.
import assert from 'node:assert/strict';
import { get } from 'node:https';

import { startApiServer, testCertificates } from '@rxkube/testing';

const server = await startApiServer({ tls: true });
try {
  assert.match(server.url, /^https:/);
  const body = await new Promise<string>((resolve, reject) => {
    const req = get(
      `${server.url}/api/v1/namespaces`,
      { ca: testCertificates().ca, headers: { authorization: `Bearer ${server.token}` } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          res.statusCode === 200 ? resolve(text) : reject(new Error(`${res.statusCode}: ${text}`)),
        );
      },
    );
    req.on('error', reject);
  });
  const list = JSON.parse(body) as { kind: string; items: { metadata: { name: string } }[] };
  assert.equal(list.kind, 'NamespaceList');
  assert.ok(list.items.some((n) => n.metadata.name === 'default'));
  console.log('testing ok');
} finally {
  await server.stop();
}
