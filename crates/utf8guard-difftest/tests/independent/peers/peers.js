// Independent validators for the cross-check in ../main.rs: Node's
// WHATWG TextDecoder and two npm packages (installed next to this file by
// `npm ci`, from package-lock.json).
//
//     node peers.js MODE INPUT OUTPUT [MODE INPUT OUTPUT]...
//
// INPUT holds one input per line, in hex; one line per input is written to
// OUTPUT: "ok", "err" (rejected, no position), or for `whatwg` on a
// rejected input "err lossy HEX": the UTF-8 bytes of the decoder's
// replacement output (one U+FFFD per maximal subpart, as the Encoding
// Standard specifies), from which positions can be compared. When a mode's
// package is not installed, OUTPUT holds one line, "unavailable: REASON".
//
// Modes:
//   whatwg   new TextDecoder('utf-8', {fatal: true}) (Node's built-in, ICU)
//   wtf-8    the `wtf-8` package's decode()
//   mutf-8   the `mutf-8` package's MUtf8Decoder with {fatal: true}
'use strict';
const fs = require('fs');

function checker(mode) {
  if (mode === 'whatwg') {
    const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    const lossy = new TextDecoder('utf-8', { ignoreBOM: true });
    return (bytes) => {
      try {
        fatal.decode(bytes);
        return 'ok';
      } catch (e) {
        if (!(e instanceof TypeError)) throw e;
        return 'err lossy ' + Buffer.from(lossy.decode(bytes), 'utf8').toString('hex');
      }
    };
  }
  if (mode === 'wtf-8') {
    const wtf8 = require('wtf-8');
    return (bytes) => {
      try {
        wtf8.decode(Buffer.from(bytes).toString('latin1'));
        return 'ok';
      } catch (e) {
        return 'err';
      }
    };
  }
  if (mode === 'mutf-8') {
    const { MUtf8Decoder } = require('mutf-8');
    const decoder = new MUtf8Decoder('mutf-8', { fatal: true, ignoreBOM: true });
    return (bytes) => {
      try {
        decoder.decode(bytes);
        return 'ok';
      } catch (e) {
        if (!(e instanceof TypeError)) throw e;
        return 'err';
      }
    };
  }
  throw new Error('unknown mode ' + mode);
}

const args = process.argv.slice(2);
if (args.length === 0 || args.length % 3 !== 0) {
  console.error('usage: node peers.js MODE INPUT OUTPUT [MODE INPUT OUTPUT]...');
  process.exit(2);
}
for (let i = 0; i < args.length; i += 3) {
  const [mode, src, dst] = args.slice(i, i + 3);
  let check;
  try {
    check = checker(mode);
  } catch (e) {
    if (e.code !== 'MODULE_NOT_FOUND') throw e;
    const reason = e.message.split('\n')[0];
    fs.writeFileSync(dst, `unavailable: ${reason} (install: npm ci --prefix ${__dirname})\n`);
    continue;
  }
  const lines = fs.readFileSync(src, 'latin1').split('\n');
  lines.pop(); // the text ends with a newline
  const out = lines.map((line) => check(Buffer.from(line, 'hex')));
  fs.writeFileSync(dst, out.join('\n') + '\n');
}
