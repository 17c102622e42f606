/**
 * Child processes of a control plane: started with their output in a log file, killed by PID,
 * and never outliving the test process — a watchdog process holds a pipe from this one and kills
 * every registered child when the pipe closes (this process exited, crashed or was killed, even
 * with SIGKILL), and an `exit` handler kills them on an ordinary exit.
 *
 * @module
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';

/**
 * The watchdog (exported for its test only): reads `+PID` / `-PID` lines; when its stdin ends it SIGKILLs every PID still
 * registered, then exits. Run with `node -e`, so it needs no file of its own.
 */
export const WATCHDOG_SOURCE = `
const pids = new Set();
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    const pid = Number(line.slice(1));
    if (!Number.isInteger(pid) || pid <= 0) continue;
    if (line[0] === '+') pids.add(pid); else pids.delete(pid);
  }
});
const killAll = () => { for (const p of pids) { try { process.kill(p, 'SIGKILL'); } catch {} } process.exit(0); };
process.stdin.on('end', killAll);
process.stdin.on('close', killAll);
process.stdin.on('error', killAll);
`;

let watchdog: ChildProcess | undefined;
const live = new Set<number>();
let exitHookInstalled = false;

function watchdogProcess(): ChildProcess | undefined {
  if (watchdog?.exitCode === null && watchdog.stdin?.writable === true) return watchdog;
  try {
    const w = spawn(process.execPath, ['-e', WATCHDOG_SOURCE], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true, // its own process group: a Ctrl-C to ours must not kill it before it acts
    });
    w.unref();
    (w.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    w.on('error', () => undefined);
    w.stdin?.on('error', () => undefined);
    watchdog = w;
    for (const pid of live) w.stdin?.write(`+${pid}\n`);
    return w;
  } catch {
    return undefined;
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pid of live) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

/** A started child process with its log file. */
export interface Child {
  readonly name: string;
  readonly process: ChildProcess;
  readonly logPath: string;
  /** Resolves when the process exited (with its code or signal). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The last lines of its log (for error messages). */
  tail(lines?: number): string;
  /** SIGKILL, then wait for the exit. */
  kill(): Promise<void>;
}

/**
 * Starts `binary args…` with stdout and stderr appended to `logPath`, registered with the
 * watchdog so it dies with this process.
 */
export function startChild(name: string, binary: string, args: readonly string[], logPath: string): Child {
  installExitHook();
  const fd = openSync(logPath, 'a');
  let child: ChildProcess;
  try {
    child = spawn(binary, [...args], { stdio: ['ignore', fd, fd] });
  } finally {
    closeSync(fd);
  }
  const pid = child.pid;
  if (pid !== undefined) {
    live.add(pid);
    watchdogProcess()?.stdin?.write(`+${pid}\n`);
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      if (pid !== undefined) {
        live.delete(pid);
        if (watchdog?.stdin?.writable === true) watchdog.stdin.write(`-${pid}\n`);
      }
      resolve({ code, signal });
    });
    child.once('error', () => resolve({ code: -1, signal: null }));
  });
  const tail = (lines = 25): string => {
    try {
      return readFileSync(logPath, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  };
  return {
    name,
    process: child,
    logPath,
    exited,
    tail,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        try {
          child.kill('SIGKILL');
        } catch {
          // already gone
        }
      }
      await exited;
    },
  };
}

/** `count` free TCP ports on 127.0.0.1 (bound and released; a later bind may still race). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const s = createServer();
          s.once('error', reject);
          s.listen(0, '127.0.0.1', () => resolve(s));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  return ports;
}

/**
 * Polls `probe` every `intervalMs` until it resolves true; rejects when `child` exits first or
 * `timeoutMs` passes, with the child's log tail in the message.
 */
export async function waitUntil(
  what: string,
  probe: () => Promise<boolean>,
  child: Child,
  timeoutMs: number,
  intervalMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void child.exited.then((e) => (exited = e));
  for (;;) {
    if (exited !== undefined) {
      throw new Error(
        `${child.name} exited (${exited.signal ?? `code ${String(exited.code)}`}) before ${what}; ` +
          `its log (${child.logPath}) ends:\n${child.tail()}`,
      );
    }
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) {
      throw new Error(
        `${child.name}: ${what} did not happen within ${timeoutMs} ms; its log (${child.logPath}) ends:\n${child.tail()}`,
      );
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
