// A loopback TCP proxy in front of a Redis port that counts the chunks the client writes. With
// one request in flight at a time, each burst the client sends and then waits on is one round
// trip. Shared by the round-trip tests and the Redis benchmark.
import net from 'node:net';

export async function countingProxy(targetPort) {
  const counts = { clientWrites: 0 };
  const sockets = new Set();
  const server = net.createServer((client) => {
    const upstream = net.connect({ port: targetPort, host: '127.0.0.1' });
    sockets.add(client).add(upstream);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    client.on('data', (chunk) => {
      counts.clientWrites++;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    counts,
    host: '127.0.0.1',
    port,
    url: `redis://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(resolve);
      }),
  };
}
