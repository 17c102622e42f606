// @rxkube/wire as a user installs it: the shard hash both sides of the wire share.
import assert from 'node:assert/strict';

import { bucketOf, bucketRange, fnv1a64, fnv1a64InRange } from '@rxkube/wire';

assert.equal(fnv1a64('a'), 0xaf63dc4c8601ec8cn);
const bucket = bucketOf('a', 64);
const { start, end } = bucketRange(bucket, 64);
assert.ok(fnv1a64InRange('a', start, end), `bucket ${bucket}: [${start}, ${end})`);
console.log('wire ok');
