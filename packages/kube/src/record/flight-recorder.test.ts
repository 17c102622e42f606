import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VirtualTimeScheduler } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';

import { InvalidArgumentError } from '../internal/invalid-argument.js';
import type { KubeObject } from '../types.js';
import { FlightRecorder } from './flight-recorder.js';
import { parseRecording } from './format.js';

const CM = { resource: { apiVersion: 'v1', kind: 'ConfigMap' } };
const cm = (name: string, size: number): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns' },
  data: { x: 'y'.repeat(size) },
});

describe('FlightRecorder', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('caps each file at maxBytes and keeps rotate older files, each starting with the header', () => {
    dir = mkdtempSync(join(tmpdir(), 'rxkube-record-'));
    const file = join(dir, 'run.ndjson');
    const scheduler = new VirtualTimeScheduler();
    const recorder = new FlightRecorder({ file, maxBytes: 4096, rotate: 2 }, scheduler);
    recorder.start({ name: 'op', controllers: ['c'] });
    for (let i = 0; i < 40; i++) recorder.event(CM, { type: 'Apply', object: cm(`o${i}`, 400) });
    recorder.close();
    expect(readdirSync(dir).sort()).toEqual(['run.ndjson', 'run.ndjson.1', 'run.ndjson.2']);
    for (const name of readdirSync(dir)) {
      const text = readFileSync(join(dir, name), 'utf8');
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096);
      const rec = parseRecording(text);
      expect(rec.header).toMatchObject({ name: 'op', controllers: ['c'] });
      expect(rec.events.length).toBeGreaterThan(0);
    }
    // the newest file holds the last event; a part number says how many came before
    const newest = parseRecording(readFileSync(file, 'utf8'));
    expect(newest.events.at(-1)?.event).toMatchObject({ object: { metadata: { name: 'o39' } } });
    expect(newest.header.part).toBeGreaterThan(2);
  });

  it('replaces a line too long for the cap by one without its object', () => {
    const lines: string[] = [];
    // virtual time: the wall clock may pass a millisecond between start and event (t: 1)
    const recorder = new FlightRecorder(
      { sink: (l) => lines.push(l), maxBytes: 2048 },
      new VirtualTimeScheduler(),
    );
    recorder.start({ name: 'op', controllers: ['c'] });
    recorder.event(CM, { type: 'Apply', object: cm('huge', 5000) });
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[1]!)).toEqual({
      type: 'event',
      t: 0,
      target: CM,
      event: { type: 'Apply' },
      truncated: true,
    });
  });

  it('removes Secret data from events and from writes to Secrets, and credentials anywhere', () => {
    const lines: string[] = [];
    const recorder = new FlightRecorder({ sink: (l) => lines.push(l) });
    recorder.start({ name: 'op', controllers: ['c'] });
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'ns' },
      data: { pw: 'c2VjcmV0' },
      stringData: { pw: 'secret' },
    } as KubeObject;
    recorder.event({ resource: { apiVersion: 'v1', kind: 'Secret' } }, { type: 'Apply', object: secret });
    recorder.write({
      verb: 'patch',
      ref: { apiVersion: 'v1', kind: 'Secret', namespace: 'ns', name: 's' },
      patchType: 'merge',
      body: { stringData: { pw: 'secret' } },
      outcome: { ok: true },
    });
    recorder.write({
      verb: 'apply',
      ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'c' },
      body: { data: { token: 'abc', note: 'Authorization: Bearer xyz.abc' } },
      outcome: { ok: true },
    });
    const text = lines.join('\n');
    expect(text).not.toMatch(/c2VjcmV0|"secret"|abc"|xyz/);
    const rec = parseRecording(text);
    expect(rec.events[0]?.event).not.toHaveProperty('object.data');
    expect(rec.events[0]?.event).not.toHaveProperty('object.stringData');
    expect(rec.writes[0]?.body).toEqual({});
    expect(rec.writes[1]?.body).toEqual({
      data: { token: '[REDACTED]', note: 'Authorization: Bearer [REDACTED]' },
    });
  });

  it('refuses neither or both of file and sink, naming them', () => {
    expect(() => new FlightRecorder({})).toThrow(InvalidArgumentError);
    expect(() => new FlightRecorder({ file: 'x', sink: () => undefined })).toThrow(
      /exactly one of file .* and sink/,
    );
  });
});
