// A Redis server of the test's own (the machine's redis-server binary), so a test can take
// Redis away for real: stopped, its port refuses connections; paused (SIGSTOP), it accepts
// connections and commands and answers nothing until it is continued.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(true));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(false)));
  });

export interface RedisServer {
  url: string;
  /** SIGSTOP: the process freezes, its sockets stay open. */
  pause(): void;
  /** SIGCONT: it answers again, everything sent meanwhile included. */
  resume(): void;
  stop(): Promise<void>;
}

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100 && !(await listening(port)); i++) await new Promise((r) => setTimeout(r, 50));
  if (!(await listening(port))) throw new Error('redis-server did not start');
  return {
    url: `redis://127.0.0.1:${port}`,
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    },
  };
}
