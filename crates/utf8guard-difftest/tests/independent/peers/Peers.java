// Independent validators for the cross-check in ../main.rs: the Java
// platform's own decoders. Run as a single-file program:
//
//     java Peers.java MODE INPUT OUTPUT [MODE INPUT OUTPUT]...
//
// INPUT holds one input per line, in hex; one line per input is written to
// OUTPUT: "ok", "err V L" (the first V bytes were accepted, then an
// ill-formed sequence of L bytes), or "err" (rejected, no position).
//
// Modes:
//   charset:NAME  Charset.forName(NAME)'s decoder, malformed input reported
//                 (CodingErrorAction.REPORT): its position and length
//   readUTF       DataInputStream.readUTF, the reader of modified UTF-8
//                 (accept or reject only: its messages give no exact offset)

import java.io.*;
import java.nio.*;
import java.nio.charset.*;
import java.nio.file.*;
import java.util.*;

public class Peers {
    static byte[] hex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }

    static String decoder(CharsetDecoder d, byte[] input) {
        d.reset();
        ByteBuffer in = ByteBuffer.wrap(input);
        CharBuffer out = CharBuffer.allocate(2 * input.length + 4);
        CoderResult r = d.decode(in, out, true);
        if (!r.isError()) {
            r = d.flush(out);
        }
        if (r.isError()) {
            return "err " + in.position() + " " + r.length();
        }
        if (in.hasRemaining()) {
            throw new IllegalStateException("input left over without an error");
        }
        return "ok";
    }

    static String readUTF(byte[] input) {
        // readUTF reads a 2-byte length, then that many bytes.
        byte[] framed = new byte[input.length + 2];
        framed[0] = (byte) (input.length >> 8);
        framed[1] = (byte) input.length;
        System.arraycopy(input, 0, framed, 2, input.length);
        try {
            new DataInputStream(new ByteArrayInputStream(framed)).readUTF();
            return "ok";
        } catch (UTFDataFormatException e) {
            return "err";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void main(String[] args) throws IOException {
        if (args.length == 0 || args.length % 3 != 0) {
            System.err.println("usage: java Peers.java MODE INPUT OUTPUT [MODE INPUT OUTPUT]...");
            System.exit(2);
        }
        for (int i = 0; i < args.length; i += 3) {
            String mode = args[i];
            List<String> lines = Files.readAllLines(Paths.get(args[i + 1]));
            StringBuilder out = new StringBuilder(lines.size() * 8);
            if (mode.startsWith("charset:")) {
                CharsetDecoder d = Charset.forName(mode.substring(8)).newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT);
                for (String line : lines) {
                    out.append(decoder(d, hex(line))).append('\n');
                }
            } else if (mode.equals("readUTF")) {
                for (String line : lines) {
                    out.append(readUTF(hex(line))).append('\n');
                }
            } else {
                System.err.println("unknown mode " + mode);
                System.exit(2);
            }
            Files.write(Paths.get(args[i + 2]), out.toString().getBytes(StandardCharsets.US_ASCII));
        }
    }
}
