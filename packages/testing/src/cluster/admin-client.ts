/**
 * A minimal JSON client for the test harness's own reads and writes (state checks, the client-side
 * Deployment simulator, readiness): the admin token, the cluster's CA, HTTP or HTTPS, one request
 * at a time per call. Not an API for operators: they use `@rxkube/kube`.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';

/** Where and how to reach a cluster. */
export interface ClusterEndpoint {
  /** `http://127.0.0.1:PORT` or `https://…`. */
  readonly url: string;
  /** Bearer token. */
  readonly token: string;
  /** PEM of the CA that signed the serving certificate (HTTPS). */
  readonly ca?: string;
}

/** A response: status, headers and the parsed JSON body (or the text). */
export interface AdminResponse {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly body: unknown;
}

/** An HTTP JSON client for one cluster. */
export class AdminClient {
  private readonly agent: Agent | undefined;

  constructor(private readonly endpoint: ClusterEndpoint) {
    this.agent = endpoint.url.startsWith('https:')
      ? new Agent({ keepAlive: true, ...(endpoint.ca !== undefined ? { ca: endpoint.ca } : {}) })
      : undefined;
  }

  /** Sends one request; resolves with any status (no throw on 4xx/5xx). */
  request(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
    timeoutMs = 30_000,
  ): Promise<AdminResponse> {
    const url = new URL(path, this.endpoint.url);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.endpoint.token}`,
      Accept: 'application/json',
      'User-Agent': 'rxkube-testing/admin',
    };
    if (payload !== undefined) {
      headers['Content-Type'] = contentType;
      headers['Content-Length'] = String(payload.length);
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(
        url,
        { method, headers, ...(this.agent !== undefined ? { agent: this.agent } : {}), timeout: timeoutMs },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            if ((res.headers['content-type'] ?? '').includes('json')) {
              try {
                parsed = JSON.parse(text);
              } catch {
                parsed = text;
              }
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
          });
        },
      );
      req.on('timeout', () =>
        req.destroy(new Error(`${method} ${url.pathname} timed out after ${timeoutMs} ms`)),
      );
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  /** GET that must answer 200; throws with the status and body otherwise. */
  async getJson<T = unknown>(path: string): Promise<T> {
    const r = await this.request('GET', path);
    if (r.status !== 200) {
      throw new Error(
        `GET ${path} answered ${r.status}: ${typeof r.body === 'string' ? r.body : JSON.stringify(r.body)}`,
      );
    }
    return r.body as T;
  }

  /**
   * Opens a watch and calls `onEvent` per line until the stream ends or `signal` aborts. Resolves
   * when it ended (for any reason); rejects only when it could not be opened.
   */
  watch(
    path: string,
    onEvent: (event: { type: string; object: Record<string, unknown> }) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const url = new URL(path, this.endpoint.url);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(
        url,
        {
          method: 'GET',
          headers: { Authorization: `Bearer ${this.endpoint.token}`, Accept: 'application/json' },
          ...(this.agent !== undefined ? { agent: this.agent } : {}),
          signal,
        },
        (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            reject(new Error(`watch ${url.pathname} answered ${String(res.statusCode)}`));
            return;
          }
          let buf = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => {
            buf += d;
            let i: number;
            while ((i = buf.indexOf('\n')) >= 0) {
              const line = buf.slice(0, i);
              buf = buf.slice(i + 1);
              if (line.trim() === '') continue;
              try {
                onEvent(JSON.parse(line) as { type: string; object: Record<string, unknown> });
              } catch {
                // a malformed line ends nothing here: the next one is read
              }
            }
          });
          res.on('end', () => resolve());
          res.on('error', () => resolve());
          res.on('close', () => resolve());
        },
      );
      req.on('error', (e) => (signal.aborted ? resolve() : reject(e)));
      req.end();
    });
  }

  /** Closes kept-alive connections. */
  close(): void {
    this.agent?.destroy();
  }
}
