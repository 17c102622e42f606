import { kubeWireTranscript } from '@rxkube/testing/fixtures';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { RawWatchEvent } from './raw-watch-event.js';
import { WatchLineDecoder } from './watch-line-decoder.js';

function decode(chunks: readonly (string | Buffer)[], maxLineBytes?: number, end = true) {
  const events: RawWatchEvent[] = [];
  const decoder = new WatchLineDecoder((e) => events.push(e), maxLineBytes);
  const accepted: boolean[] = [];
  for (const c of chunks) accepted.push(decoder.write(typeof c === 'string' ? Buffer.from(c) : c));
  if (end) decoder.end();
  return { events, accepted, decoder };
}

const cm = (name: string, rv: string) => ({
  kind: 'ConfigMap',
  apiVersion: 'v1',
  metadata: { name, namespace: 'wire', resourceVersion: rv },
  data: { key: 'välue ✓' },
});
const line = (type: string, object: unknown) => `${JSON.stringify({ type, object })}\n`;

/** The recorded lines of the kube-wire watch transcript 06 (a real kube-apiserver v1.24). */
function recordedLines(): string[] {
  for (const ex of kubeWireTranscript('06-watch-basics').exchanges) {
    const body = ex.response?.body as { lines?: string[] } | null | undefined;
    if (body && Array.isArray(body.lines) && body.lines.length > 3) return body.lines;
  }
  throw new Error('no watch with lines in 06-watch-basics.json');
}

describe('WatchLineDecoder', () => {
  it('decodes the recorded watch lines of a real API server in order', () => {
    const lines = recordedLines();
    const { events } = decode([lines.map((l) => `${l}\n`).join('')]);
    expect(events.map((e) => e.type)).toEqual(lines.map((l) => (JSON.parse(l) as { type: string }).type));
    expect(events.some((e) => e.type === 'BOOKMARK')).toBe(true);
  });

  it('reassembles lines split at every possible chunk boundary, including inside UTF-8 characters', () => {
    const body = Buffer.from(line('ADDED', cm('a', '1')) + line('MODIFIED', cm('a', '2')));
    for (let cut = 0; cut <= body.length; cut++) {
      const { events } = decode([body.subarray(0, cut), body.subarray(cut)]);
      expect(events).toEqual([
        { type: 'ADDED', object: cm('a', '1') },
        { type: 'MODIFIED', object: cm('a', '2') },
      ]);
    }
  });

  it('decodes the same events for any chunking (property)', () => {
    const objects = [cm('a', '1'), cm('b', '2'), cm('c', '3'), cm('d', '4')];
    const body = Buffer.from(objects.map((o) => line('ADDED', o)).join(''));
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: body.length - 1 }), { maxLength: 20 }), (cuts) => {
        const sorted = [...cuts].sort((x, y) => x - y);
        const chunks: Buffer[] = [];
        let prev = 0;
        for (const c of sorted) {
          chunks.push(body.subarray(prev, c));
          prev = c;
        }
        chunks.push(body.subarray(prev));
        const { events } = decode(chunks);
        expect(events).toEqual(objects.map((object) => ({ type: 'ADDED', object })));
      }),
    );
  });

  it('reports a line that is not JSON as MALFORMED in its place and keeps decoding', () => {
    const { events, accepted } = decode([
      line('ADDED', cm('a', '1')) +
        '{"type":"MODIFIED","object":{"metadata":\n' +
        line('DELETED', cm('a', '3')),
    ]);
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MALFORMED', 'DELETED']);
    const bad = events[1];
    expect(bad?.type === 'MALFORMED' && bad.line).toContain('{"type":"MODIFIED"');
    expect(bad?.type === 'MALFORMED' && bad.error).toBe('not valid JSON');
    expect(accepted).toEqual([true]);
  });

  it('accepts \\r\\n endings and skips empty lines at any chunk boundary', () => {
    const crlf = (type: string, object: unknown) => `${JSON.stringify({ type, object })}\r\n`;
    const body = Buffer.from(`\n\r\n${crlf('ADDED', cm('a', '1'))}\n${crlf('MODIFIED', cm('a', '2'))}`);
    for (let cut = 0; cut <= body.length; cut++) {
      const { events } = decode([body.subarray(0, cut), body.subarray(cut)]);
      expect(events).toEqual([
        { type: 'ADDED', object: cm('a', '1') },
        { type: 'MODIFIED', object: cm('a', '2') },
      ]);
    }
  });

  it('carries the first 256 bytes of a line that is not JSON, even across chunks', () => {
    const bad = `{"type":"MODIFIED","object":{"metadata":{"name":"${'é'.repeat(300)}"`;
    const { events } = decode([bad.slice(0, 40), `${bad.slice(40)}\n`, line('ADDED', cm('a', '1'))]);
    expect(events.map((e) => e.type)).toEqual(['MALFORMED', 'ADDED']);
    const first = events[0];
    expect(first?.type === 'MALFORMED' && Buffer.byteLength(first.line)).toBe(255); // whole characters
    expect(first?.type === 'MALFORMED' && bad.startsWith(first.line)).toBe(true);
  });

  it('reports JSON that is not a watch event as MALFORMED', () => {
    const { events } = decode([
      '[1,2]\n',
      '{"object":{"metadata":{}}}\n',
      '{"type":"ADDED"}\n',
      '{"type":"ADDED","object":{"kind":"ConfigMap"}}\n',
      '{"type":"BOOKMARK","object":{"metadata":{}}}\n',
    ]);
    expect(events.map((e) => (e.type === 'MALFORMED' ? e.error : e.type))).toEqual([
      'a watch line must be a JSON object',
      'watch event without a string "type"',
      'ADDED event without an "object"',
      'ADDED event whose object has no "metadata"',
      'BOOKMARK event without object.metadata.resourceVersion',
    ]);
  });

  it('passes ERROR events (a 410 Expired Status) through and skips unknown event types', () => {
    const status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'too old resource version: 1 (801)',
      reason: 'Expired',
      code: 410,
    };
    const { events } = decode([line('FUTURE', cm('a', '1')) + line('ERROR', status) + '\r\n\n']);
    expect(events).toEqual([{ type: 'ERROR', object: status }]);
  });

  it('decodes a last line without a newline at the end, and reports a truncated one', () => {
    expect(decode([line('ADDED', cm('a', '1')).trimEnd()]).events).toEqual([
      { type: 'ADDED', object: cm('a', '1') },
    ]);
    const truncated = line('ADDED', cm('b', '2')).slice(0, 30);
    expect(decode([line('ADDED', cm('a', '1')) + truncated]).events.map((e) => e.type)).toEqual([
      'ADDED',
      'MALFORMED',
    ]);
  });

  it('stops at a line longer than maxLineBytes spread over chunks, after the lines before it', () => {
    const good = line('ADDED', cm('a', '1'));
    const long = `{"type":"ADDED","object":{"metadata":{"name":"${'x'.repeat(300)}"}}}\n`;
    const { events, accepted, decoder } = decode(
      [good + long.slice(0, 100), long.slice(100, 200), long.slice(200), good],
      200,
      false,
    );
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MALFORMED']);
    const bad = events[1];
    expect(bad?.type === 'MALFORMED' && bad.error).toContain('longer than 200 bytes');
    expect(bad?.type === 'MALFORMED' && bad.line).toBe(long.slice(0, 100));
    // 100 then 200 buffered bytes are within the bound; the third chunk crosses it.
    expect(accepted).toEqual([true, true, false, false]);
    expect(decoder.stopped).toBe(true);
  });

  it('stops at an over-long line that arrives complete inside one chunk', () => {
    const long = `{"type":"ADDED","object":{"metadata":{"name":"${'y'.repeat(300)}"}}}\n`;
    const { events, accepted } = decode(
      [line('ADDED', cm('a', '1')) + long + line('ADDED', cm('b', '2'))],
      200,
    );
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MALFORMED']);
    expect(accepted).toEqual([false]);
  });

  it('accepts a line of exactly maxLineBytes', () => {
    const l = line('ADDED', cm('a', '1'));
    const bytes = Buffer.byteLength(l) - 1;
    expect(decode([l], bytes).events.map((e) => e.type)).toEqual(['ADDED']);
    expect(decode([l], bytes - 1).events.map((e) => e.type)).toEqual(['MALFORMED']);
  });

  it('reports a JSON null line in its place instead of silently ending the stream', () => {
    // (ndjson's stream ended at a null row; lines are now parsed one by one, so a null line is
    // just a line that is not a watch event, and the watcher aborts the watch on it as on any)
    const { events } = decode(['null\n' + line('ADDED', cm('a', '1'))]);
    expect(events.map((e) => (e.type === 'MALFORMED' ? e.error : e.type))).toEqual([
      'a watch line must be a JSON object',
      'ADDED',
    ]);
  });
});
