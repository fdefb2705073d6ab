// Frames a ConverseStream event listing (tests/data/wire/*.events.jsonl: one
// {"event": type, "payload": {...}} or {"exception": type, "payload": {...}}
// per line) with @smithy/eventstream-codec, the AWS SDK's own framing, and
// writes the bytes to stdout. The committed .eventstream fixtures are this
// script's output; CTest `bedrock_stream_fixtures` frames them again and
// compares byte for byte.
//   node tests/dialect_bedrock_converse/stream_fixture.mjs X.events.jsonl > X.eventstream
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../npm/package.json'));
const { EventStreamCodec } = require('@smithy/eventstream-codec');
const { toUtf8, fromUtf8 } = require('@smithy/util-utf8');

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const chunks = [];
for (const line of fs.readFileSync(process.argv[2], 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const e = JSON.parse(line);
  const exception = e.exception !== undefined;
  const headers = {
    [exception ? ':exception-type' : ':event-type']: { type: 'string', value: e.exception ?? e.event },
    ':content-type': { type: 'string', value: 'application/json' },
    ':message-type': { type: 'string', value: exception ? 'exception' : 'event' },
  };
  chunks.push(codec.encode({ headers, body: fromUtf8(JSON.stringify(e.payload)) }));
}
process.stdout.write(Buffer.concat(chunks.map((c) => Buffer.from(c))));
