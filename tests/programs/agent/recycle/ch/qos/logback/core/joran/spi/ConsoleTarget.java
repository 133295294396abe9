// SPDX-License-Identifier: Apache-2.0
// A stand-in for Logback's console targets (same names): constants whose streams wrap
// System.out and System.err; a stopped console appender closes them (a no-op).
package ch.qos.logback.core.joran.spi;

import java.io.OutputStream;

public enum ConsoleTarget {
    SystemOut(new OutputStream() {
        @Override public void write(int b) { System.out.write(b); }
    }),
    SystemErr(new OutputStream() {
        @Override public void write(int b) { System.err.write(b); }
    });

    private final OutputStream stream;

    ConsoleTarget(OutputStream stream) { this.stream = stream; }

    public OutputStream getStream() { return stream; }
}
