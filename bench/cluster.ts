// N bench servers (bench/server.ts) behind one port, as several API processes run behind one
// load balancer: node:cluster's primary accepts the connections and hands them round-robin to
// its workers. Size from BENCH_CLUSTER_SIZE. Prints one JSON line {"benchCluster": {port,
// pids}} once every worker listens (pids: the primary's first; a benchmark sums their CPU);
// SIGTERM stops the workers (each closes cleanly) and then the primary.
import cluster from 'node:cluster';

if (cluster.isPrimary) {
  const size = Number(process.env.BENCH_CLUSTER_SIZE ?? 2);
  if (!Number.isInteger(size) || size < 1) throw new Error(`BENCH_CLUSTER_SIZE must be a whole number ≥ 1`);
  // Round-robin by the primary is Node's default everywhere but Windows; said here, not assumed.
  cluster.schedulingPolicy = cluster.SCHED_RR;
  const workers = Array.from({ length: size }, () => cluster.fork());
  let port = 0;
  let listening = 0;
  cluster.on('listening', (_worker, address) => {
    port = address.port;
    if (++listening === size)
      process.stdout.write(
        `${JSON.stringify({ benchCluster: { port, pids: [process.pid, ...workers.map((w) => w.process.pid!)] } })}\n`,
      );
  });
  let stopping = false;
  cluster.on('exit', (worker, code) => {
    if (!stopping) {
      process.stderr.write(`bench cluster: worker ${worker.process.pid} exited with ${code}\n`);
      process.exit(1);
    }
  });
  process.on('SIGTERM', () => {
    stopping = true;
    void Promise.all(
      workers.map(
        (w) =>
          new Promise((done) => {
            w.once('exit', done);
            w.process.kill('SIGTERM');
          }),
      ),
    ).then(() => process.exit(0));
  });
} else {
  // Workers given listen(0) all get the primary's one port (node:cluster), so they share it.
  await import('./server.js');
}
