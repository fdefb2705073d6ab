// Preloaded into Portkey's node process by run.sh (node --require): its server
// listens on 127.0.0.1 only (not every interface), and the port it was given
// (0: any free one) is printed once bound, as the benchmark reads ports from output.
'use strict';
const net = require('net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number') {
    const port = args[0];
    const rest = args.slice(1).filter((a) => typeof a === 'function' || typeof a === 'object');
    args = [port, '127.0.0.1', ...rest];
  } else if (args[0] && typeof args[0] === 'object' && !args[0].path) {
    args[0] = { ...args[0], host: '127.0.0.1' };
  }
  this.once('listening', () => {
    const a = this.address();
    process.stdout.write(`portkey: listening on http://127.0.0.1:${a.port}\n`);
  });
  return listen.apply(this, args);
};
